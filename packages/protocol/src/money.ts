import { currencyExponent } from "./currency.js";

/**
 * Money is integer minor units everywhere inside svc (never floats). The largest amount is kept
 * well inside Number.MAX_SAFE_INTEGER so sums of many amounts stay exact too.
 */
export const MAX_MINOR_UNITS = 1_000_000_000_000_000; // 10^15 minor units

export type ParseAmountResult = { ok: true; minor: number } | { ok: false; message: string };

/**
 * Parses a wire amount ("10.50") into minor units for `currency`. The string must carry exactly
 * the currency's ISO 4217 number of decimals so that no amount is ever rounded silently.
 */
export function parseAmount(value: unknown, currency: string): ParseAmountResult {
  const exponent = currencyExponent(currency);
  const example = formatAmount(1050 * 10 ** Math.max(0, exponent - 2), currency);
  if (typeof value !== "string") {
    return { ok: false, message: `must be a decimal string such as "${example}", not a ${typeof value}` };
  }
  const match = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/.exec(value);
  if (!match) {
    return { ok: false, message: `must be a positive decimal string such as "${example}"` };
  }
  const decimals = match[2] ?? "";
  if (decimals.length !== exponent) {
    const wanted = exponent === 0 ? "no decimals" : `exactly ${exponent} decimal${exponent === 1 ? "" : "s"}`;
    return { ok: false, message: `${currency} amounts take ${wanted}, e.g. "${example}"` };
  }
  const digits = `${match[1]}${decimals}`;
  if (digits.replace(/^0+/, "").length > 16) {
    return {
      ok: false,
      message: `is too large; the largest amount is ${formatAmount(MAX_MINOR_UNITS, currency)}`,
    };
  }
  const minor = Number(digits);
  if (minor > MAX_MINOR_UNITS) {
    return {
      ok: false,
      message: `is too large; the largest amount is ${formatAmount(MAX_MINOR_UNITS, currency)}`,
    };
  }
  if (minor <= 0) return { ok: false, message: "must be greater than zero" };
  return { ok: true, minor };
}

/** Formats minor units as the wire string of `currency`: 86000 KWD → "86.000". */
export function formatAmount(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`amount ${minor} is not a safe integer`);
  const exponent = currencyExponent(currency);
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(exponent + 1, "0");
  const whole = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  return negative ? `-${whole}` : whole;
}

/** Why an amount was refused, for wording it in another language (`message` is the English). */
export type AmountProblem = "empty" | "not_digits" | "no_decimals" | "too_many_decimals" | "zero" | "invalid";

export type NormalisedAmount =
  | { ok: true; value: string; minor: number }
  | {
      ok: false;
      message: string;
      problem: AmountProblem;
      example: string;
      exponent: number;
      typedDecimals: number;
    };

/**
 * What a person typed as an amount, in their words: "12.5" and "500" become "12.500" and
 * "500.000" for KWD (the currency's decimals are filled in, never rounded away); spaces and a
 * leading currency code are ignored. Messages say what to type instead; `problem` (with the
 * currency's `example` and `exponent`) lets a page say it in another language.
 */
export function normaliseAmountInput(text: string, currency: string): NormalisedAmount {
  const exponent = currencyExponent(currency);
  const example = formatAmount(12500 * 10 ** Math.max(0, exponent - 3), currency);
  const spaceless = text.replace(/\s+/g, "");
  const raw = spaceless.toUpperCase().startsWith(currency.toUpperCase())
    ? spaceless.slice(currency.length)
    : spaceless;
  const refuse = (problem: AmountProblem, message: string, typedDecimals = 0): NormalisedAmount => ({
    ok: false,
    message,
    problem,
    example,
    exponent,
    typedDecimals,
  });
  if (raw === "") return refuse("empty", `Enter an amount in ${currency}, such as ${example}.`);
  const match = /^([0-9]+)(?:\.([0-9]*))?$/.exec(raw);
  if (!match) return refuse("not_digits", `Enter the amount in digits, such as ${example}.`);
  const decimals = match[2] ?? "";
  if (decimals.length > exponent)
    return refuse(
      exponent === 0 ? "no_decimals" : "too_many_decimals",
      exponent === 0
        ? `${currency} has no decimals: enter a whole amount, such as ${example}.`
        : `${currency} has ${exponent} decimal${exponent === 1 ? "" : "s"}: ${raw} has ${decimals.length}.`,
      decimals.length,
    );
  const whole = match[1]!.replace(/^0+(?=\d)/, "");
  const value = exponent === 0 ? whole : `${whole}.${decimals.padEnd(exponent, "0")}`;
  const parsed = parseAmount(value, currency);
  if (!parsed.ok)
    return parsed.message === "must be greater than zero"
      ? refuse("zero", "Enter an amount greater than zero.")
      : refuse("invalid", `The amount ${parsed.message}.`);
  return { ok: true, value, minor: parsed.minor };
}
