-- Idempotency keys past their 24 h are deleted in the background, the oldest first
-- (http/idempotency.ts, purgeExpiredKeys); before, a key was deleted only when the same key came
-- back, and the table kept every key ever sent. No update changes `created_at` but a key's
-- replacement in place, so the index adds an entry to a key's insert and to its non-HOT updates.
create index idempotency_keys_created on idempotency_keys (created_at);
