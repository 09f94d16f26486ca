-- Dashboard sign-in: cookie sessions and failed sign-in counters.

-- A session is known by the SHA-256 of its cookie token only, so a leaked table signs nobody in.
-- The CSRF token is per session (synchronizer token). flash carries one notice to the next page.
create table dashboard_sessions (
  token_hash text primary key,
  user_id bigint not null references users(id) on delete cascade,
  merchant_id text not null references merchants(id),
  csrf_token text not null,
  flash jsonb,
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  expires_at timestamptz not null
);
create index dashboard_sessions_user on dashboard_sessions (user_id);
create index dashboard_sessions_expiry on dashboard_sessions (expires_at);

-- Failed sign-ins per key ('user:<username>' or 'ip:<address>'); locked_until grows
-- exponentially with the failures past the threshold.
create table dashboard_sign_in_failures (
  key text primary key,
  failures integer not null,
  last_failure_at timestamptz not null,
  locked_until timestamptz
);
