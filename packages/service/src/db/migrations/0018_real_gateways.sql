-- Real gateways (KNET, Stripe): a gateway setting holds the merchant's credentials for it, sealed
-- with AES-256-GCM under SVC_SECRETS_KEY (secrets/keyring.ts), never in plain text. `credentials`
-- is one sealed JSON object; `credentials_hint` is what may be shown of it (last characters of
-- identifiers and API keys, only "set" for passwords and keys). `api_base_url` overrides the
-- gateway's production host (KNET's test host, a stand-in). `updated_at` versions the setting:
-- each process rebuilds its adapter when it changes.
alter table gateway_settings
  add column credentials text,
  add column credentials_hint jsonb,
  add column api_base_url text,
  add column updated_at timestamptz not null default now(),
  alter column notification_secret drop not null;

-- Discrepancies are no longer only operations a gateway reported that break a money rule:
-- `unknown_outcome` is an operation svc sent whose answer was lost at a gateway that can be
-- neither asked about it nor safely sent it again (KNET's refunds); an operator checks the
-- gateway's portal and settles it by hand (`outcome`: done or not_done). `late_payment` is a
-- payment a gateway took after svc had closed its attempt (to be refunded by hand).
alter table gateway_discrepancies
  add column kind text not null default 'gateway_operation'
    check (kind in ('gateway_operation', 'unknown_outcome', 'late_payment')),
  add column child_session_id text,
  add column outcome text check (outcome in ('done', 'not_done')),
  alter column notification_id drop not null;

-- What a gateway posted to svc, kept as received and as read (KNET's manual: "save both the
-- encrypted and the plain response"), for reconciliation and for support.
create table gateway_messages (
  id text primary key,
  pg_code text not null,
  pg_reference text,
  received_at timestamptz not null default now(),
  -- What the gateway sent (KNET: the form with its encrypted trandata), and what it said.
  raw text not null,
  decoded jsonb not null,
  -- What svc made of it: applied, unconfirmed (an inquiry did not confirm it), unknown_payment, …
  outcome text not null
);
create index gateway_messages_reference on gateway_messages (pg_code, pg_reference, received_at);

-- A gateway's notification names a payment by its reference (KNET's track id, Stripe's
-- PaymentIntent id); the sweep asks again about payments left waiting on a gateway page.
create index payment_attempts_reference on payment_attempts (pg_code, pg_reference) where pg_reference is not null;
create index payment_attempts_waiting on payment_attempts (updated_at) where status = 'action_required';
