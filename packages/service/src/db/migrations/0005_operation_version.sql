-- Optimistic concurrency for operations on a parent. Every statement that adds a child bumps its
-- parent's ops_version in the same statement; a reservation made from an unlocked read commits
-- only if the version it read is still current (see operations.repo.ts). So two concurrent
-- operations can never both spend the same money, without holding a lock across round trips.
alter table transactions add column ops_version integer not null default 0;
-- Each operation rewrites its parent row: leave room on the page so the new version stays on it
-- (a HOT update, no index writes).
alter table transactions set (fillfactor = 90);
-- Lookups by (pg_code, reference_number) use the unique index on reference_number alone; the
-- second index only cost every operation one more index write.
drop index operations_reference;
-- A child belongs to its parent's merchant: one foreign key on (parent, merchant) says so, in
-- place of two separate ones (stronger: the child's merchant must be its parent's). The separate
-- key to merchants had every operation share-lock its merchant's row, one row for all of a
-- merchant's concurrent operations; the parent's row is one the operation locks anyway.
alter table transactions add constraint transactions_session_merchant unique (session_id, merchant_id);
alter table operations drop constraint operations_merchant_id_fkey;
alter table operations drop constraint operations_parent_session_id_fkey;
alter table operations add constraint operations_parent_fkey
  foreign key (parent_session_id, merchant_id) references transactions (session_id, merchant_id);
