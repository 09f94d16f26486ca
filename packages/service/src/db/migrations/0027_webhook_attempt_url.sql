-- Where an attempt went, when that is not where its delivery goes now. A replay sends a delivery
-- to an endpoint where the endpoint is now (messages.repo.ts, `replay`); the attempts made before
-- it keep the URL they were sent to here. Null means the delivery's own URL: every attempt until a
-- replay moves its delivery. The replay that moves a delivery fills this in for its earlier attempts
-- and moves the latest one off the delivery's row into webhook_attempts with its URL; an attempt
-- the worker logs for a delivery that moved on meanwhile carries the URL it was sent to.
alter table webhook_attempts add column url text;

create or replace view webhook_delivery_attempts as
  select a.delivery_id, a.attempted_at, a.status_code, a.latency_ms, a.error, a.response_body,
         coalesce(a.url, (select d.url from webhook_deliveries d where d.id = a.delivery_id)) as url
    from webhook_attempts a
  union all
  select id, last_attempt_at, last_attempt_status_code, last_attempt_latency_ms, last_attempt_error, last_attempt_response_body,
         url
    from webhook_deliveries where last_attempt_at is not null;
