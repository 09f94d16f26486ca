-- Operations a gateway reported (from its own dashboard) that break a money rule: more than can be
-- refunded or captured, a state the parent does not allow, another currency. They are not applied
-- to the totals and send no webhook; they wait here for an operator (docs/operations.md,
-- "Discrepancies"). One per gateway operation, however often it is notified.
create table gateway_discrepancies (
  id text primary key,
  merchant_id text not null references merchants(id),
  parent_session_id text not null,
  pg_code text not null,
  gateway_operation_id text not null,
  notification_id text not null,
  operation text not null,
  -- As the gateway reported them (the amount may not even fit the parent's currency).
  amount text not null,
  currency_code text not null,
  -- The rule broken: the error code the operations API would have answered.
  rule text not null,
  detail text not null,
  pg_response jsonb not null,
  status text not null default 'open' check (status in ('open', 'resolved')),
  resolution_note text,
  resolved_by text,
  resolved_at timestamptz,
  created_at timestamptz not null default now(),
  unique (pg_code, gateway_operation_id)
);
create index gateway_discrepancies_merchant on gateway_discrepancies (merchant_id, created_at desc);
create index gateway_discrepancies_parent on gateway_discrepancies (merchant_id, parent_session_id);
