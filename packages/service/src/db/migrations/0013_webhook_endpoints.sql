-- Webhook endpoints (docs/webhooks.md "Endpoints"): besides the seed's general operations URL and
-- plugin URLs, a merchant may register endpoints of their own, each with the event types it wants
-- (null: all of them), custom headers sent on every request, an enabled flag, and the payload
-- version it was created with. `kind` = 'cli' for the temporary endpoint of `svc listen`.
-- `failing_since` is when the endpoint's current run of failed attempts began (null: its last
-- attempt succeeded); an endpoint failing for the configured period is disabled (`disabled_reason`
-- = 'failing'), a merchant may disable one by hand ('manual'). While disabled, its deliveries are
-- written failed and not sent; enabled again, `replay_since` is where what it missed begins.
create table webhook_endpoints (
  id text primary key,
  merchant_id text not null references merchants(id),
  kind text not null default 'endpoint' check (kind in ('endpoint', 'cli')),
  url text not null,
  description text not null default '',
  event_types text[],
  headers jsonb not null default '{}',
  enabled boolean not null default true,
  payload_version text not null,
  include_metadata boolean not null default false,
  failing_since timestamptz,
  last_error text,
  disabled_at timestamptz,
  disabled_reason text check (disabled_reason in ('manual', 'failing')),
  replay_since timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (merchant_id, url)
);

-- A delivery made for an endpoint names it (null: one of the seed's destinations), so the worker
-- sends the endpoint's custom headers as they are now, and its attempts keep `failing_since`.
-- Its payload version is copied onto the delivery like the event type (the worker reads it from the row it
-- claims); every existing delivery carries the first version.
alter table webhook_deliveries add column endpoint_id text;
alter table webhook_deliveries add column payload_version text not null default '2026-11-24';
create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at) where endpoint_id is not null;

-- Messages about the webhook platform itself (`webhook.endpoint_disabled`).
alter table webhook_messages drop constraint webhook_messages_kind_check;
alter table webhook_messages add constraint webhook_messages_kind_check check (kind in ('operation', 'payment', 'webhook'));
