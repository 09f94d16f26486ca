-- The merchant's own data on a payment (`metadata` of the Checkout API): up to 50 string values,
-- returned by the Payment Status API and the payments list and carried by the payment webhook.
alter table transactions add column metadata jsonb not null default '{}'::jsonb;
