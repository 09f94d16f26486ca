-- Reservations (`<operation>_pending`) are few at any moment; the sweep that settles those left
-- by a request that died finds them here instead of scanning every operation.
create index operations_pending on operations (updated_at) where state like '%\_pending';
