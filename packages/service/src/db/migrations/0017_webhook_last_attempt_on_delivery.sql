-- Fewer writes per delivered message (issue 12's drain): a delivery's latest attempt is kept on
-- its own row, written by the same update that records the outcome, instead of a row of
-- webhook_attempts (an insert with two index entries and a foreign-key check per message). The
-- earlier attempts of a retried delivery move to webhook_attempts when the next one is recorded,
-- so a delivery that succeeds at once — nearly all of them — costs one write for its outcome.
-- `webhook_delivery_attempts` is every attempt, from both places; read attempts only through it.
alter table webhook_deliveries
  add column last_attempt_at timestamptz,
  add column last_attempt_status_code integer,
  add column last_attempt_latency_ms integer,
  add column last_attempt_error text,
  add column last_attempt_response_body text;

create view webhook_delivery_attempts as
  select delivery_id, attempted_at, status_code, latency_ms, error, response_body from webhook_attempts
  union all
  select id, last_attempt_at, last_attempt_status_code, last_attempt_latency_ms, last_attempt_error, last_attempt_response_body
    from webhook_deliveries where last_attempt_at is not null;

-- No statement reads deliveries by (merchant, status): every insert and every outcome paid for it.
drop index webhook_deliveries_merchant_status;
