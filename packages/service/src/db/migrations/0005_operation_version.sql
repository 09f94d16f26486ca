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
