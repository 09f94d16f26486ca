/**
 * Amount rules from Stripe's currency guide (docs.stripe.com/currencies): minor units,
 * zero-decimal currencies, three-decimal currencies whose last digit must be 0, the minimum
 * charge amounts, the eight-digit maximum, and the special case of ISK. HUF and TWD are charged
 * with two decimals like any other (their special rule is for payouts, which the stand-in does
 * not make); UGX is on Stripe's zero-decimal list and is treated as such.
 */
// Stripe's published minimums and maximum: one table for the connector and this stand-in (a
// fact of Stripe's, not a rule of either).
import { MAXIMUM_AMOUNT_MINOR_UNITS, MINIMUM_CHARGE_MINOR_UNITS } from "../limits.js";
import { invalidRequest } from "./errors.js";

export const ZERO_DECIMAL = new Set(
  "bif clp djf gnf jpy kmf krw mga pyg rwf ugx vnd vuv xaf xof xpf".split(" "),
);
export const THREE_DECIMAL = new Set(["bhd", "jod", "kwd", "omr", "tnd"]);

/** Stripe's presentment currencies for cards (docs.stripe.com/currencies, lowercase as the API wants). */
export const SUPPORTED_CURRENCIES = new Set(
  (
    "usd aed afn all amd ang aoa ars aud awg azn bam bbd bdt bgn bhd bif bmd bnd bob brl bsd bwp byn " +
    "bzd cad cdf chf clp cny cop crc cve czk djf dkk dop dzd egp etb eur fjd fkp gbp gel gip gmd gnf " +
    "gtq gyd hkd hnl htg huf idr ils inr isk jmd jod jpy kes kgs khr kmf krw kwd kyd kzt lak lbp lkr " +
    "lrd lsl mad mdl mga mkd mmk mnt mop mur mvr mwk mxn myr mzn nad ngn nio nok npr nzd omr pab pen " +
    "pgk php pkr pln pyg qar ron rsd rub rwf sar sbd scr sek sgd shp sle sos srd std szl thb tjs tnd " +
    "top try ttd twd tzs uah ugx uyu uzs vnd vuv wst xaf xcd xof xpf yer zar zmw"
  ).split(" "),
);

export function decimalsOf(currency: string): number {
  if (ZERO_DECIMAL.has(currency)) return 0;
  if (THREE_DECIMAL.has(currency)) return 3;
  return 2;
}

/**
 * An amount in minor units written as Stripe writes it in messages.
 *
 * @example
 * formatMinor(50, "usd"); // "$0.50"
 */
export function formatMinor(amount: number, currency: string): string {
  const decimals = decimalsOf(currency);
  return new Intl.NumberFormat("en-US", {
    style: "currency",
    currency: currency.toUpperCase(),
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  }).format(amount / 10 ** decimals);
}

/** Refuses a currency Stripe does not accept; Stripe wants it lowercase. */
export function checkCurrency(currency: string): void {
  if (!SUPPORTED_CURRENCIES.has(currency))
    throw invalidRequest(
      `Invalid currency: ${currency}. Stripe currently supports these currencies: ${[...SUPPORTED_CURRENCIES].join(", ")}`,
      { param: "currency", phase: "validation" },
    );
}

/**
 * Refuses an amount Stripe would refuse for this currency (a PaymentIntent's amount, a capture
 * or a refund): `param` names the parameter in the error.
 */
export function checkAmount(
  amount: number,
  currency: string,
  param: string,
  options = { minimum: true },
): void {
  const minimum = MINIMUM_CHARGE_MINOR_UNITS[currency];
  if (amount < 1 || (options.minimum && minimum !== undefined && amount < minimum)) {
    const floor = options.minimum && minimum !== undefined ? minimum : 1;
    throw invalidRequest(`Amount must be at least ${formatMinor(floor, currency)} ${currency}`, {
      code: "amount_too_small",
      param,
      phase: "validation",
    });
  }
  if (amount > MAXIMUM_AMOUNT_MINOR_UNITS)
    throw invalidRequest(`Amount must be no more than ${formatMinor(MAXIMUM_AMOUNT_MINOR_UNITS, currency)}`, {
      code: "amount_too_large",
      param,
      phase: "validation",
    });
  if (THREE_DECIMAL.has(currency) && amount % 10 !== 0)
    throw invalidRequest(
      `Invalid amount. Currency ${currency.toUpperCase()} is a three-decimal currency and amounts must be rounded to the nearest ten (the least-significant digit must be 0, e.g. 5120 rather than 5124). See https://stripe.com/docs/currencies#three-decimal for more information.`,
      { code: "invalid_charge_amount", param, phase: "validation" },
    );
  if (currency === "isk" && amount % 100 !== 0)
    throw invalidRequest(
      "Invalid amount. Currency ISK has become effectively zero-decimal and charged amounts must be evenly divisible by 100. See https://stripe.com/docs/currencies#special-cases for more information.",
      { code: "invalid_charge_amount_no_decimal_compatible", param, phase: "validation" },
    );
}
