/**
 * The sandbox's card rules. Test numbers pick the outcome; anything else that passes Luhn and is
 * not expired is approved, so hand-typed test cards behave like a forgiving real acquirer.
 */
import { createHmac } from "node:crypto";
import type { PgResponse } from "../adapter.js";
import { HttpError } from "./http.js";
import type { WireSavedCard } from "./wire.js";

export const CARD_APPROVED = "4242424242424242";
export const CARD_DECLINED = "4000000000000002";
export const CARD_CHALLENGE = "4000000000003220";

export type CardDecision = "approved" | "declined" | "challenge";

export interface CardOutcome {
  decision: CardDecision;
  pgResponse: PgResponse;
  card: WireSavedCard;
  save: boolean;
}

export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

function brandOf(digits: string): string {
  if (digits.startsWith("4")) return "visa";
  if (/^(5[1-5]|2[2-7])/.test(digits)) return "mastercard";
  if (/^3[47]/.test(digits)) return "amex";
  return "card";
}

/** The card's fingerprint, as gateways give one: a keyed hash, so the number cannot be found from it. */
export function cardFingerprint(key: Buffer, digits: string): string {
  return `fp_${createHmac("sha256", key).update(digits).digest("base64url").slice(0, 27)}`;
}

/** Expiry years may be two digits ("27") or four ("2027"). */
function fullYear(year: number): number {
  return year < 100 ? 2000 + year : year;
}

/** A card is valid through the last day of its expiry month (UTC). */
export function isExpired(month: number, year: number, now: Date): boolean {
  const firstDayAfterExpiry = Date.UTC(fullYear(year), month, 1);
  return now.getTime() >= firstDayAfterExpiry;
}

/**
 * Decides a card payment. Wrong JSON types are a 400 (a bug in the caller); wrong card data is a
 * decline with a pg_response saying why (a customer's typo).
 */
export function evaluateCard(
  instrument: Record<string, unknown>,
  now: Date,
  fingerprintKey?: Buffer,
): CardOutcome {
  const { number, expiry_month: month, expiry_year: year, cvc, save } = instrument;
  if (typeof number !== "string" || typeof cvc !== "string") {
    throw new HttpError(400, "invalid_request", "instrument.number and instrument.cvc must be strings");
  }
  if (!Number.isInteger(month) || !Number.isInteger(year)) {
    throw new HttpError(
      400,
      "invalid_request",
      "instrument.expiry_month and instrument.expiry_year must be integers",
    );
  }
  if (save !== undefined && typeof save !== "boolean") {
    throw new HttpError(400, "invalid_request", "instrument.save must be a boolean");
  }
  const digits = number.replace(/[\s-]/g, "");
  const expiryMonth = month as number;
  const expiryYear = year as number;
  const card: WireSavedCard = {
    gateway_token: "",
    brand: brandOf(digits),
    last4: digits.slice(-4),
    expiry: `${String(expiryMonth).padStart(2, "0")}/${String(fullYear(expiryYear) % 100).padStart(2, "0")}`,
    ...(fingerprintKey ? { fingerprint: cardFingerprint(fingerprintKey, digits) } : {}),
  };
  const decline = (result: string, reason: string): CardOutcome => ({
    decision: "declined",
    pgResponse: { result, reason, is_sandbox: true },
    card,
    save: false,
  });
  if (!/^\d{12,19}$/.test(digits) || !passesLuhn(digits)) {
    return decline("INVALID CARD", "the card number fails the Luhn check");
  }
  if (expiryMonth < 1 || expiryMonth > 12)
    return decline("INVALID EXPIRY", "the expiry month must be 1 to 12");
  if (isExpired(expiryMonth, expiryYear, now))
    return decline("EXPIRED CARD", "the card is past its expiry date");
  if (!/^\d{3,4}$/.test(cvc)) return decline("INVALID CVC", "the security code must be 3 or 4 digits");
  if (digits === CARD_DECLINED) return decline("DECLINED", "the issuer declined the card (test card)");
  const decision: CardDecision = digits === CARD_CHALLENGE ? "challenge" : "approved";
  const pgResponse = {
    result: decision === "approved" ? "APPROVED" : "CHALLENGE REQUIRED",
    is_sandbox: true,
  };
  return { decision, pgResponse, card, save: save === true };
}
