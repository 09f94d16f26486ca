-- Every webhook message has an event type (sent as the `svc-event-type` header): `operation` for
-- the seed's operation webhook, `payment.<state>` for the payment webhook, `webhook.test` for a
-- test. Existing messages get theirs from what they were.
alter table webhook_messages add column event_type text;
update webhook_messages set event_type = case
  when kind = 'operation' then 'operation'
  else 'payment.' || coalesce(result, 'unknown') end;
alter table webhook_messages alter column event_type set not null;
-- Copied onto each delivery, as merchant_id and parent_session_id are: the worker's claim reads
-- it from the row it updates, with no second look-up of the message.
alter table webhook_deliveries add column event_type text;
update webhook_deliveries d set event_type = m.event_type from webhook_messages m where m.id = d.message_id;

-- Every delivery has a sequence number per (parent, destination URL), sent as `svc-sequence`: 1,
-- 2, 3… in the order the messages were committed, with no gap (the counter moves in the
-- producer's transaction, so a rollback gives its number back), so a receiver can tell it missed
-- or reordered a message. A retry or a replay resends the same number.
alter table webhook_deliveries add column sequence bigint;
update webhook_deliveries d set sequence = n.sequence
  from (select id, row_number() over (partition by parent_session_id, url order by seq) as sequence
          from webhook_deliveries) n
 where n.id = d.id;
create table webhook_sequences (
  parent_session_id text not null,
  url text not null,
  last bigint not null,
  primary key (parent_session_id, url)
);
insert into webhook_sequences (parent_session_id, url, last)
  select parent_session_id, url, max(sequence) from webhook_deliveries group by parent_session_id, url;
