-- svc schema, part 3: operation reservations, webhook settings and the delivery outbox.

-- An operation is first reserved (`<operation>_pending`) so that concurrent requests count it
-- against the parent's totals while the gateway is called; a declined reservation is deleted.
-- `operated_at` is the time of the operation as the webhook's timestamp_utc reports it.
alter table operations add column operated_at timestamptz;
create index operations_reference on operations (pg_code, reference_number);

-- The general webhook configuration, one row per merchant (absent row = the defaults).
create table webhook_configs (
  merchant_id text primary key references merchants(id),
  enabled boolean not null default true,
  operations_webhook_url text,
  notify_api_initiated boolean not null default false,
  timeout_seconds integer not null default 15 check (timeout_seconds between 1 and 30),
  retry_schedule_seconds integer[] not null default '{5,300,1800,7200,18000,36000,36000}',
  updated_at timestamptz not null default now()
);

-- The payment webhook plugin configuration, per transaction type.
create table webhook_plugins (
  merchant_id text not null references merchants(id),
  type text not null check (type in ('e_commerce', 'payment_request')),
  webhook_url text,
  enabled boolean not null default true,
  updated_at timestamptz not null default now(),
  primary key (merchant_id, type)
);

-- One message per webhook event; `body` is the exact JSON sent on every attempt (the payload's
-- `signature` field is computed once, at commit time). The id is the `webhook-id` header.
create table webhook_messages (
  id text primary key,
  merchant_id text not null references merchants(id),
  kind text not null check (kind in ('operation', 'payment')),
  parent_session_id text not null,
  child_session_id text,
  reference_number text,
  result text,
  body text not null,
  created_at timestamptz not null default now()
);
create index webhook_messages_merchant_created on webhook_messages (merchant_id, created_at desc);
create index webhook_messages_parent on webhook_messages (merchant_id, parent_session_id);

-- One delivery per (message, destination URL). `seq` orders deliveries of one (url, parent).
-- A claim is a lease: `lease_until` in the future means a worker is attempting it now.
create table webhook_deliveries (
  id text primary key,
  seq bigserial not null,
  message_id text not null references webhook_messages(id),
  merchant_id text not null,
  parent_session_id text not null,
  url text not null,
  status text not null check (status in ('pending', 'retrying', 'succeeded', 'failed')),
  tries integer not null default 0,
  timeout_seconds integer not null,
  retry_schedule_seconds integer[] not null,
  next_attempt_at timestamptz not null default now(),
  lease_until timestamptz,
  last_error text,
  last_status_code integer,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  completed_at timestamptz
);
-- Claims and outcomes rewrite each row twice: free space on each page lets PostgreSQL update in place (HOT).
alter table webhook_deliveries set (fillfactor = 70);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at, seq) where status in ('pending', 'retrying');
create index webhook_deliveries_order on webhook_deliveries (url, parent_session_id, seq) where status in ('pending', 'retrying');
create index webhook_deliveries_message on webhook_deliveries (message_id);
create index webhook_deliveries_merchant_status on webhook_deliveries (merchant_id, status, created_at);

-- Every attempt, for the dashboard and the messages API.
create table webhook_attempts (
  id bigserial primary key,
  delivery_id text not null references webhook_deliveries(id),
  attempted_at timestamptz not null,
  status_code integer,
  latency_ms integer not null,
  error text,
  response_body text
);
create index webhook_attempts_delivery on webhook_attempts (delivery_id, id);
