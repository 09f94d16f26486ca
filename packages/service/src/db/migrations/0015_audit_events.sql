-- The audit log (docs/dashboard.md "Audit log"): who did what to a merchant's account, when and
-- from where — sign-ins, money operations, settings, endpoints, keys, secrets, replays — kept with
-- the merchant's data. `actor` is a user ("demo") or a key hint ("sk_…e2ua"); `ip` is the client
-- address as the service sees it (SVC_TRUST_PROXY decides whom to believe).
create table audit_events (
  id bigserial primary key,
  merchant_id text not null references merchants(id),
  at timestamptz not null default now(),
  actor_kind text not null check (actor_kind in ('user', 'api_key')),
  actor text not null,
  action text not null,
  target text,
  detail jsonb not null default '{}',
  ip text,
  user_agent text
);
create index audit_events_merchant on audit_events (merchant_id, id desc);
