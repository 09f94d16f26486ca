-- An authorization its gateway captures once (Stripe's PaymentIntents: capturing part of it
-- releases the rest). Set when the payment is attempted at such a gateway (the gateway's kind
-- does not change under its pg_code); the totals then show nothing more as capturable once a
-- capture is done or in flight (payments/totals.ts). Existing payments get it from their gateway.
alter table transactions add column captures_once boolean not null default false;
update transactions t set captures_once = true
  from gateway_settings g
 where g.pg_code = t.pg_code and g.kind = 'stripe';
