-- One saved card per card, not per save: the gateway's card fingerprint (a keyed hash of the
-- card number it computes; svc never sees it unhashed in storage) identifies the card for a
-- customer, and saving the same card again refreshes its token and expiry instead of adding a
-- row. Cards saved before this migration have no fingerprint; the listing folds those by brand,
-- last digits and expiry.
alter table saved_cards add column fingerprint text;
alter table saved_cards add column updated_at timestamptz not null default now();
create unique index saved_cards_one_per_card on saved_cards (merchant_id, customer_id, pg_code, fingerprint)
  where fingerprint is not null;
