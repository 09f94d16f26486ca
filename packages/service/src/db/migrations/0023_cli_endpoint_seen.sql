-- When a `svc listen` endpoint (kind cli) last had its stream open: set when the stream opens,
-- every few minutes while it stays open, and when it closes. A cli endpoint whose CLI was killed
-- outright (it could not delete it) is deleted once nothing has read it for a day
-- (EndpointsService.removeAbandonedCli), so it does not count towards the endpoint limit for ever.
alter table webhook_endpoints add column stream_seen_at timestamptz;
