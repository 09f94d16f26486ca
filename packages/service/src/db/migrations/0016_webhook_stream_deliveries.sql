-- `svc listen` (docs/cli.md): the deliveries of an endpoint of kind 'cli' are not POSTed by the
-- worker; they wait in status 'stream' until the developer's CLI, connected to the endpoint's event
-- stream, takes them (a lease), forwards them to the local server and reports its answer. The
-- worker's indexes and claim cover 'pending' and 'retrying' only, so it never sees them. A retry
-- after a failed forward stays 'stream'; success and giving up end it as for any delivery.
alter table webhook_deliveries drop constraint webhook_deliveries_status_check;
alter table webhook_deliveries add constraint webhook_deliveries_status_check
  check (status in ('pending', 'retrying', 'succeeded', 'failed', 'stream'));
create index webhook_deliveries_stream on webhook_deliveries (endpoint_id, seq) where status = 'stream';
