-- What gateways posted (gateway_messages) and the ids of the notifications applied
-- (gateway_notifications) are deleted in the background once older than
-- SVC_GATEWAY_RETENTION_DAYS (gateways/retention.ts), the oldest first; before, both kept every
-- row for ever. Neither table's rows are updated, so each index adds one entry to an insert.
create index gateway_messages_received on gateway_messages (received_at);
create index gateway_notifications_received on gateway_notifications (received_at);
