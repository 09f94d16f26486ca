-- Signing secrets of the operation and payment webhooks: one active per merchant; a rotated-out
-- secret keeps signing (as a second signature) until expires_at, 24 h after the rotation.
create table webhook_secrets (
  id text primary key,
  merchant_id text not null references merchants(id),
  secret text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz
);
create index webhook_secrets_merchant on webhook_secrets (merchant_id, created_at desc);
