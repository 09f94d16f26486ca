/**
 * Stripe's limits on a charge's amount (docs.stripe.com/currencies, "Minimum and maximum charge
 * amounts"), in Stripe's minor units, by lowercase currency: the connector refuses what Stripe
 * would refuse before anything is sent, and the stand-in refuses it as Stripe does.
 */
/**
 * Minimum charge amounts for the settlement currencies Stripe lists; other currencies' minimums
 * depend on a conversion to the account's currency, which neither side can make, so they are
 * not checked (Stripe then refuses with `amount_too_small`, and the attempt is declined).
 */
export const MINIMUM_CHARGE_MINOR_UNITS: Readonly<Record<string, number>> = {
  usd: 50,
  aed: 200,
  aud: 50,
  bgn: 100,
  brl: 50,
  cad: 50,
  chf: 50,
  czk: 1500,
  dkk: 250,
  eur: 50,
  gbp: 30,
  hkd: 400,
  huf: 17500,
  inr: 50,
  jpy: 50,
  mxn: 1000,
  myr: 200,
  nok: 300,
  nzd: 50,
  pln: 200,
  ron: 200,
  sek: 300,
  sgd: 50,
  thb: 1000,
};

/** "Amount must be no more than $999,999.99": Stripe's amounts have at most eight digits. */
export const MAXIMUM_AMOUNT_MINOR_UNITS = 99_999_999;
