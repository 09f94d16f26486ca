-- Where a payment attempt waits for the customer (a gateway page or a card challenge), so the
-- hosted page can send a customer who closed that window back to it instead of a dead end.
alter table payment_attempts add column redirect_url text;
