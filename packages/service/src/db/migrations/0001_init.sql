-- svc schema, part 1: tenancy, checkout, payments, operations (children).
-- Money is bigint minor units; the currency's ISO 4217 exponent decides the wire format.

create table merchants (
  id text primary key,
  root_domain text not null unique,
  name text not null,
  error_reporting_enabled boolean not null default true,
  created_at timestamptz not null default now()
);

create table api_keys (
  id text primary key,
  merchant_id text not null references merchants(id),
  kind text not null check (kind in ('private', 'public')),
  key_hash text not null unique,
  key_hint text not null,
  label text not null default '',
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index api_keys_merchant on api_keys (merchant_id);

-- Dashboard users. The integer id is the webhook initiator's `id`. Usernames are unique across
-- merchants because Basic auth names no merchant.
create table users (
  id bigserial primary key,
  merchant_id text not null references merchants(id),
  username text not null unique,
  email text not null,
  first_name text,
  last_name text,
  phone text,
  password_hash text not null,
  permissions text[] not null default '{}',
  created_at timestamptz not null default now(),
  disabled_at timestamptz
);
create index users_merchant on users (merchant_id);

-- A merchant's gateway settings. pg_code is globally unique because the gateway notification
-- endpoint (/v1/gateways/{pg_code}/notifications) names no merchant.
create table gateway_settings (
  id text primary key,
  merchant_id text not null references merchants(id),
  pg_code text not null unique,
  name text not null,
  kind text not null,
  operation text not null check (operation in ('purchase', 'authorize')),
  currencies text[] not null,
  notification_secret text not null,
  wallet_a_merchant_identifier text,
  created_at timestamptz not null default now()
);
create index gateway_settings_merchant on gateway_settings (merchant_id);

-- Parent payment transactions.
create table transactions (
  session_id text primary key,
  merchant_id text not null references merchants(id),
  order_no text,
  type text not null check (type in ('e_commerce', 'payment_request')),
  created_via text not null check (created_via in ('api', 'dashboard')),
  state text not null check (state in ('created', 'pending', 'attempted', 'authorized', 'paid', 'failed', 'canceled', 'expired')),
  amount_minor bigint not null check (amount_minor > 0),
  currency_code text not null,
  operation text not null check (operation in ('purchase', 'authorize')),
  pg_codes text[] not null,
  language text not null check (language in ('en', 'ar')),
  customer_id text,
  customer_email text,
  customer_phone text,
  customer_first_name text,
  customer_last_name text,
  redirect_url text,
  webhook_url text,
  expires_at timestamptz not null,
  pg_code text,
  form_of_payment text,
  pg_reference text,
  pg_response jsonb,
  challenge_occurred boolean not null default false,
  completed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index transactions_order_no on transactions (merchant_id, order_no) where order_no is not null;
create index transactions_merchant_created on transactions (merchant_id, created_at desc);
create index transactions_pg_reference on transactions (pg_code, pg_reference) where pg_reference is not null;
create index transactions_open_expiry on transactions (expires_at) where state in ('created', 'pending', 'attempted');

-- One payment attempt per parent at most (the concurrency rule): the unique index makes a
-- second concurrent attempt fail even if two requests pass the state check together.
create table payment_attempts (
  id text primary key,
  session_id text not null references transactions(session_id),
  pg_code text not null,
  form_of_payment text not null,
  status text not null check (status in ('started', 'otp_required', 'action_required', 'approved', 'declined', 'canceled', 'error')),
  pg_reference text,
  pg_response jsonb,
  otp_failures integer not null default 0,
  save_card boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index payment_attempts_one_per_session on payment_attempts (session_id);

-- Cards saved on the hosted card page, for token_pay. svc keeps the gateway's token, never the number.
create table saved_cards (
  token text primary key,
  merchant_id text not null references merchants(id),
  customer_id text not null,
  pg_code text not null,
  gateway_token text not null,
  brand text not null,
  last4 text not null,
  expiry text not null,
  created_at timestamptz not null default now()
);
create index saved_cards_customer on saved_cards (merchant_id, customer_id);

-- Child transactions created by refund, capture and void.
create table operations (
  session_id text primary key,
  parent_session_id text not null references transactions(session_id),
  merchant_id text not null references merchants(id),
  operation text not null check (operation in ('refund', 'capture', 'void')),
  amount_minor bigint not null check (amount_minor > 0),
  currency_code text not null,
  state text not null,
  reference_number text not null unique,
  source text not null check (source in ('input', 'pg')),
  via text not null check (via in ('api', 'dashboard', 'gateway')),
  initiator jsonb,
  pg_code text not null,
  pg_response jsonb not null default '{}',
  gateway_operation_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index operations_parent on operations (parent_session_id, created_at);
create unique index operations_gateway_op on operations (pg_code, gateway_operation_id) where gateway_operation_id is not null;

create table idempotency_keys (
  merchant_id text not null,
  key text not null,
  request_hash text not null,
  status text not null check (status in ('in_progress', 'done')),
  response_status integer,
  response_body jsonb,
  created_at timestamptz not null default now(),
  primary key (merchant_id, key)
);

create table sdk_error_reports (
  id text primary key,
  merchant_id text not null references merchants(id),
  session_id text,
  message text not null,
  form_of_payment text,
  details jsonb not null default '{}',
  user_agent text,
  created_at timestamptz not null default now()
);
create index sdk_error_reports_merchant on sdk_error_reports (merchant_id, created_at desc);

-- Gateway notifications already applied, so a notification delivered twice has one effect.
create table gateway_notifications (
  pg_code text not null,
  notification_id text not null,
  received_at timestamptz not null default now(),
  primary key (pg_code, notification_id)
);
