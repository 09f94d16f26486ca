-- Queued operations (`<operation>_queued`) are few at any moment; the sweep that asks the gateway
-- about those whose final result was never notified finds them here instead of scanning every
-- operation (OperationsService.sweepQueued).
create index operations_queued on operations (updated_at) where state like '%\_queued';
