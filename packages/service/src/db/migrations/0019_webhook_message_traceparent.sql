-- The trace a webhook message belongs to (docs/operations.md, Tracing): the W3C `traceparent` of
-- the span that wrote it (a refund's request), so each delivery attempt, in the worker and
-- outside any request, is a span linked to that trace. Null when tracing was off or no span was
-- active. Nullable without a default: adding it rewrites nothing.
alter table webhook_messages add column traceparent text;
