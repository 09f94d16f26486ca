/**
 * Checks the hosted page's card fields before anything reaches a gateway, with one specific
 * message per mistake. The page's enhancement script gets the same rules (the brand prefixes,
 * the expiry patterns) from {@link clientRules}, so it judges a field as the server will.
 */
import type { TextKey } from "./i18n.js";

export type CardField = "number" | "expiry" | "cvc" | "holder";
export type CardErrors = Partial<Record<CardField, TextKey>>;
export type CardBrand = "visa" | "mastercard" | "amex" | "mada" | "card";

interface BrandRule {
  brand: Exclude<CardBrand, "card">;
  /** Matched against the leading digits. */
  prefix: RegExp;
  /** How the digits are grouped as typed. */
  groups: number[];
  /** Length of the security code. */
  cvc: number;
}

const STANDARD_GROUPS = [4, 4, 4, 4, 3];

/** First match wins: mada-only BINs before Visa and Mastercard (co-badged mada cards show those). */
const BRAND_RULES: BrandRule[] = [
  { brand: "amex", prefix: /^3[47]/, groups: [4, 6, 5], cvc: 4 },
  {
    brand: "mada",
    prefix: /^(58884[5-9]|58885[01]|604906|636120|9682(0[1-9]|1[01]))/,
    groups: STANDARD_GROUPS,
    cvc: 3,
  },
  { brand: "visa", prefix: /^4/, groups: STANDARD_GROUPS, cvc: 3 },
  {
    brand: "mastercard",
    prefix: /^(5[1-5]|222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)/,
    groups: STANDARD_GROUPS,
    cvc: 3,
  },
];

export const MIN_CARD_DIGITS = 12;
export const MAX_CARD_DIGITS = 19;
export const MAX_HOLDER_LENGTH = 100;

/** `MM/YY`, `MM / YY`, `MM-YY`, `M/YY` and the same with a four-digit year. */
const EXPIRY_SEPARATED = /^\s*([0-9]{1,2})\s*[/-]\s*([0-9]{2}|[0-9]{4})\s*$/;
/** `MMYY` or `MMYYYY`: a phone's numeric keypad has no "/". */
const EXPIRY_DIGITS = /^\s*([0-9]{2})\s?([0-9]{2}|[0-9]{4})\s*$/;

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function brandOf(digits: string): CardBrand {
  return BRAND_RULES.find((r) => r.prefix.test(digits))?.brand ?? "card";
}

function cvcLength(digits: string): number {
  return BRAND_RULES.find((r) => r.prefix.test(digits))?.cvc ?? 3;
}

/** Spaces and dashes are how people copy a card number; anything else is a mistake. */
export function cardDigits(raw: string): string {
  return raw.replace(/[\s-]/g, "");
}

export function checkNumber(raw: string): TextKey | undefined {
  const digits = cardDigits(raw);
  if (digits === "") return "err_number_required";
  if (!/^[0-9]+$/.test(digits)) return "err_number_digits";
  if (digits.length < MIN_CARD_DIGITS) return "err_number_short";
  if (digits.length > MAX_CARD_DIGITS) return "err_number_long";
  if (!luhnValid(digits)) return "err_number_luhn";
  return undefined;
}

/** The expiry as month and four-digit year; a card is valid through the last day of its month (UTC). */
export function parseExpiry(
  raw: string,
  now: Date,
): { ok: true; month: number; year: number } | { ok: false; error: TextKey } {
  if (raw.trim() === "") return { ok: false, error: "err_expiry_required" };
  const match = EXPIRY_SEPARATED.exec(raw) ?? EXPIRY_DIGITS.exec(raw);
  if (!match) return { ok: false, error: "err_expiry_format" };
  const month = Number(match[1]);
  const year = match[2]!.length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  if (month < 1 || month > 12) return { ok: false, error: "err_expiry_month" };
  if (year < 2000 || year > 2099) return { ok: false, error: "err_expiry_format" };
  if (Date.UTC(year, month, 1) <= now.getTime()) return { ok: false, error: "err_expiry_past" };
  return { ok: true, month, year };
}

/** 3 digits, or 4 when the card number is an American Express one. */
export function checkCvc(raw: string, numberRaw: string): TextKey | undefined {
  const length = cvcLength(cardDigits(numberRaw));
  if (new RegExp(`^[0-9]{${length}}$`).test(raw.trim())) return undefined;
  return length === 4 ? "err_cvc_amex" : "err_cvc";
}

export function checkHolder(raw: string): TextKey | undefined {
  return raw.trim().length > MAX_HOLDER_LENGTH ? "err_holder" : undefined;
}

export interface ParsedCard {
  number: string;
  expiryMonth: number;
  expiryYear: number;
  cvc: string;
  holder?: string;
}

export function parseCardForm(
  form: Record<string, string>,
  now: Date,
): { ok: true; card: ParsedCard } | { ok: false; errors: CardErrors } {
  const errors: CardErrors = {};
  const numberError = checkNumber(form.number ?? "");
  if (numberError) errors.number = numberError;
  const expiry = parseExpiry(form.expiry ?? "", now);
  if (!expiry.ok) errors.expiry = expiry.error;
  const cvcError = checkCvc(form.cvc ?? "", form.number ?? "");
  if (cvcError) errors.cvc = cvcError;
  const holderError = checkHolder(form.holder ?? "");
  if (holderError) errors.holder = holderError;
  if (!expiry.ok || Object.keys(errors).length > 0) return { ok: false, errors };
  const holder = (form.holder ?? "").trim();
  return {
    ok: true,
    card: {
      number: cardDigits(form.number ?? ""),
      expiryMonth: expiry.month,
      expiryYear: expiry.year,
      cvc: (form.cvc ?? "").trim(),
      ...(holder ? { holder } : {}),
    },
  };
}

/** The rules the page's script applies as the customer types, as JSON (regular expressions as sources). */
export function clientRules() {
  return {
    brands: BRAND_RULES.map((r) => ({
      brand: r.brand,
      prefix: r.prefix.source,
      groups: r.groups,
      cvc: r.cvc,
    })),
    groups: STANDARD_GROUPS,
    minDigits: MIN_CARD_DIGITS,
    maxDigits: MAX_CARD_DIGITS,
    maxHolder: MAX_HOLDER_LENGTH,
    expirySeparated: EXPIRY_SEPARATED.source,
    expiryDigits: EXPIRY_DIGITS.source,
  };
}
