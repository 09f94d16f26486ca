/**
 * Amounts as Stripe's API takes them ("minor units" in Stripe's sense, docs.stripe.com/currencies):
 * two decimals for most currencies, none for the zero-decimal ones, three for BHD, JOD, KWD, OMR
 * and TND — whose last digit must be 0, because Stripe's card partners take two (5.124 KWD is
 * refused; 5.120 is 5120). ISK is charged in whole krónur but written with two decimals
 * (divisible by 100). svc keeps ISO 4217's exponents, so an amount is converted on the way in
 * and out, and one Stripe cannot represent is refused before anything is sent.
 */
import { currencyExponent, formatAmount } from "@svc/protocol";
import { MAXIMUM_AMOUNT_MINOR_UNITS, MINIMUM_CHARGE_MINOR_UNITS } from "./limits.js";

const ZERO_DECIMAL = new Set([
  "BIF",
  "CLP",
  "DJF",
  "GNF",
  "JPY",
  "KMF",
  "KRW",
  "MGA",
  "PYG",
  "RWF",
  "UGX",
  "VND",
  "VUV",
  "XAF",
  "XOF",
  "XPF",
]);
const THREE_DECIMAL = new Set(["BHD", "JOD", "KWD", "OMR", "TND"]);

/** The number of decimals Stripe's API writes `currency` with. */
export function stripeExponent(currency: string): number {
  if (ZERO_DECIMAL.has(currency)) return 0;
  if (THREE_DECIMAL.has(currency)) return 3;
  return 2;
}

/** The smallest step Stripe accepts, in svc's minor units (10 fils for KWD, 100 aurar for ISK, …). */
function stepOf(currency: string): number {
  const svc = currencyExponent(currency);
  const stripe = stripeExponent(currency);
  // Three-decimal currencies: the last digit must be 0. ISK: whole units although written with two decimals.
  const chargeable = THREE_DECIMAL.has(currency) ? 2 : currency === "ISK" ? 0 : stripe;
  return 10 ** Math.max(0, svc - Math.min(stripe, chargeable));
}

/**
 * What is wrong with `minor` (svc's minor units) of `currency` on Stripe, or undefined: its step,
 * Stripe's eight-digit maximum, and for a `charge` (a payment, not a refund or a capture of part
 * of one) Stripe's minimum charge in the currencies Stripe lists one for.
 * @example
 * stripeAmountProblem(5124, "KWD") // "Stripe takes KWD in steps of 0.010: use 5.120 or 5.130"
 * stripeAmountProblem(30, "USD") // "Stripe charges at least 0.50 USD"
 */
export function stripeAmountProblem(
  minor: number,
  currency: string,
  what: "charge" | "operation" = "charge",
): string | undefined {
  const step = stepOf(currency);
  if (minor % step !== 0) {
    const down = minor - (minor % step);
    return `Stripe takes ${currency} in steps of ${formatAmount(step, currency)}: use ${formatAmount(down, currency)} or ${formatAmount(down + step, currency)}`;
  }
  const amount = toStripeAmount(minor, currency);
  const minimum = MINIMUM_CHARGE_MINOR_UNITS[currency.toLowerCase()];
  if (what === "charge" && minimum !== undefined && amount < minimum)
    return `Stripe charges at least ${formatAmount(fromStripeAmount(minimum, currency), currency)} ${currency}`;
  if (amount > MAXIMUM_AMOUNT_MINOR_UNITS) {
    // The largest amount Stripe takes in the currency's step (99999.990 KWD, not 99999.999).
    const most = fromStripeAmount(MAXIMUM_AMOUNT_MINOR_UNITS, currency);
    return `Stripe takes at most ${formatAmount(most - (most % step), currency)} ${currency}`;
  }
  return undefined;
}

/** svc's minor units → Stripe's `amount`. Check {@link stripeAmountProblem} first. */
export function toStripeAmount(minor: number, currency: string): number {
  const shift = stripeExponent(currency) - currencyExponent(currency);
  return shift >= 0 ? minor * 10 ** shift : Math.round(minor / 10 ** -shift);
}

/** Stripe's `amount` → svc's minor units. */
export function fromStripeAmount(amount: number, currency: string): number {
  const shift = currencyExponent(currency) - stripeExponent(currency);
  return shift >= 0 ? amount * 10 ** shift : Math.round(amount / 10 ** -shift);
}
