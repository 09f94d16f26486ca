-- One row per webhook message on the hot path (issue 25). A message used to cost its producer
-- three rows (the message, a delivery, its (parent, URL) sequence counter) and eight index
-- entries: 2.5 KB of WAL that every commit waited for. Now the delivery row is the message:
-- the first destination's row (`position` 1) carries the message's fields and its body; a
-- message with several destinations has one more row per destination (position 2, 3…, with the
-- delivery columns only: its body is read from position 1). `webhook_messages` is a view of the
-- position-1 rows, so everything that reads messages reads them as before.
--
-- Sequence numbers (`svc-sequence`) no longer come from a counter row the producer locked until
-- it committed: a delivery is numbered when it is first claimed, after the highest number its
-- (parent, URL) has so far. Deliveries of one (parent, URL) are claimed one at a time in order,
-- so the numbers are 1, 2, 3… in the order they are sent, with no gap, and a retry or a replay
-- keeps its number.
--
-- Indexes only where a query needs them: the due queue (partial), a message by id and the
-- deliveries of a parent (hash: 4-byte entries; both are equality look-ups), a merchant's
-- messages by time (position-1 rows only). The delivery id is no longer indexed: the worker
-- records an outcome by the row's ctid (with its message id and tries as the guard) and every
-- other reader finds deliveries through their message, parent or endpoint.
alter table webhook_attempts drop constraint webhook_attempts_delivery_id_fkey;
alter table webhook_deliveries drop constraint webhook_deliveries_message_id_fkey;
alter table webhook_deliveries
  add column position int2 not null default 1,
  add column kind text,
  add column child_session_id text,
  add column reference_number text,
  add column result text,
  add column body text,
  add column traceparent text;

update webhook_deliveries d set position = n.position
  from (select id, row_number() over (partition by message_id order by seq) as position from webhook_deliveries) n
 where n.id = d.id and n.position > 1;
update webhook_deliveries d
   set kind = m.kind, event_type = m.event_type, child_session_id = m.child_session_id,
       reference_number = m.reference_number, result = m.result, body = m.body, traceparent = m.traceparent,
       created_at = m.created_at
  from webhook_messages m
 where m.id = d.message_id and d.position = 1;

drop view webhook_delivery_attempts;
drop table webhook_messages;
drop table webhook_sequences;

-- What the common row leaves out (each byte is WAL its producer waits for): `kind`, which its
-- event type names ('payment.paid' is a payment message), the first payload version and the
-- default retry schedule (null: that version, that schedule; delivery.repo.ts reads them so),
-- and `updated_at` until the row is first updated.
alter table webhook_deliveries
  alter column updated_at drop not null,
  alter column updated_at drop default,
  alter column payload_version drop not null,
  alter column payload_version drop default,
  alter column retry_schedule_seconds drop not null;

create view webhook_messages as
  select message_id as id, merchant_id, coalesce(kind, split_part(event_type, '.', 1)) as kind, event_type, parent_session_id, child_session_id, reference_number,
         result, body, created_at, traceparent
    from webhook_deliveries where position = 1;

alter table webhook_deliveries drop constraint webhook_deliveries_pkey;
drop index webhook_deliveries_order;
drop index webhook_deliveries_message;
create index webhook_deliveries_message on webhook_deliveries using hash (message_id);
create index webhook_deliveries_parent on webhook_deliveries using hash (parent_session_id);
-- A merchant's messages by time: the rows no longer in the due queue only. A delivery enters it
-- when its outcome is recorded (that update writes every index entry anew anyway), so the
-- producer's insert writes none; a message still due is found through the due queue, which is
-- what is in flight (messages.repo.ts lists both).
create index webhook_deliveries_merchant_created on webhook_deliveries (merchant_id, created_at)
  where position = 1 and status not in ('pending', 'retrying');

-- A row now carries its body (~1 KB), and is updated twice (the claim, the outcome). Each new
-- version that fits on its own page is logged as the bytes that changed; one that does not is
-- logged whole and writes every index entry anew. At fillfactor 70 most outcomes left the page
-- (1.6 KB of WAL per delivered message, measured 2026-11-26); at 40 they stay (0.74 KB).
alter table webhook_deliveries set (fillfactor = 40);

-- Every attempt: the earlier ones of retried deliveries (webhook_attempts) and each delivery's
-- latest (on its row). Read it through a delivery's message (see messages.repo.ts).
create view webhook_delivery_attempts as
  select delivery_id, attempted_at, status_code, latency_ms, error, response_body from webhook_attempts
  union all
  select id, last_attempt_at, last_attempt_status_code, last_attempt_latency_ms, last_attempt_error, last_attempt_response_body
    from webhook_deliveries where last_attempt_at is not null;
