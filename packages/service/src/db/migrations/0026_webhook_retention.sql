-- Webhook retention (SVC_WEBHOOK_RETENTION_DAYS, webhooks/retention.ts): a message whose every
-- delivery finished longer ago than the retention is deleted with its deliveries and their
-- earlier attempts. A delivery's `svc-sequence` continues from the highest number its (parent,
-- URL) has: when the purge deletes every delivery of a (parent, URL), it keeps that number here,
-- and the next delivery of that (parent, URL) numbers from it. Written by the purge only, read
-- only when a (parent, URL) has no numbered delivery left (delivery.repo.ts, NEXT_SEQUENCE).
create table webhook_sequence_floors (
  parent_session_id text not null,
  url text not null,
  sequence int8 not null,
  primary key (parent_session_id, url)
);
