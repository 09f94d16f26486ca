-- Why a person refunded, captured or voided (the dashboard's optional reason, ≤ 200 characters):
-- stored with the operation, shown on the payment's timeline, never sent in the operation webhook
-- (the seed's payload is exact).
alter table operations add column reason text;
