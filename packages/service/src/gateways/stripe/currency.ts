/**
 * Amounts as Stripe's API takes them ("minor units" in Stripe's sense, docs.stripe.com/currencies):
 * two decimals for most currencies, none for the zero-decimal ones, three for BHD, JOD, KWD, OMR
 * and TND — whose last digit must be 0, because Stripe's card partners take two (5.124 KWD is
 * refused; 5.120 is 5120). ISK is charged in whole krónur but written with two decimals
 * (divisible by 100). svc keeps ISO 4217's exponents, so an amount is converted on the way in
 * and out, and one Stripe cannot represent is refused before anything is sent.
 */
import { currencyExponent, formatAmount } from "@svc/protocol";

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
 * What is wrong with charging `minor` (svc's minor units) of `currency` on Stripe, or undefined.
 * @example
 * stripeAmountProblem(5124, "KWD") // "Stripe takes KWD in steps of 0.010: use 5.120 or 5.130"
 */
export function stripeAmountProblem(minor: number, currency: string): string | undefined {
  const step = stepOf(currency);
  if (minor % step === 0) return undefined;
  const down = minor - (minor % step);
  return `Stripe takes ${currency} in steps of ${formatAmount(step, currency)}: use ${formatAmount(down, currency)} or ${formatAmount(down + step, currency)}`;
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
