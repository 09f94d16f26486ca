-- Idempotency keys that survive a crash (docs/operations.md, "Idempotency and recovery").
--
-- A key belongs to the merchant and to the credential that sent it (an API key or a dashboard
-- user): two credentials of one merchant never see each other's answers.
alter table idempotency_keys add column credential text not null default '';
alter table idempotency_keys drop constraint idempotency_keys_pkey;
alter table idempotency_keys add primary key (merchant_id, credential, key);
-- The first answer as it was sent, byte for byte, and its content type.
alter table idempotency_keys add column response_type text;
alter table idempotency_keys add column response_text text;
update idempotency_keys set response_text = response_body::text, response_type = 'application/json'
 where response_body is not null;
alter table idempotency_keys drop column response_body;
-- The request holding an in-progress key holds it until this instant (a lease); past it, a
-- retry takes the key over. Null: nobody holds it (the first request ended with an unknown
-- outcome), so a retry takes it over at once.
alter table idempotency_keys add column locked_until timestamptz;
update idempotency_keys set locked_until = created_at + interval '60 seconds' where status = 'in_progress';
-- The recovery point: what the request started that a retry must finish instead of starting
-- again — an operation's session_id or a payment attempt's id. Written in the same transaction
-- as the reservation (or the attempt), so a key can never be without it once money may move.
alter table idempotency_keys add column recovery_id text;
create unique index idempotency_keys_recovery on idempotency_keys (recovery_id) where recovery_id is not null;

-- Payment attempts sent to the gateway whose answer was never recorded (their request died):
-- few at any moment; the sweep that asks the gateway about them finds them here.
create index payment_attempts_started on payment_attempts (updated_at) where status = 'started';
