/** Identifiers shaped like Stripe's: a resource prefix and random base62 characters. */
import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Stripe's object ids carry 24 characters after the prefix (e.g. pi_3PgafyB7WZ01zgkW…). */
const ID_CHARS = 24;
/** Request ids are shorter: req_ and 14 characters. */
const REQUEST_ID_CHARS = 14;

function base62(length: number): string {
  const bytes = randomBytes(length);
  let out = "";
  for (const byte of bytes) out += BASE62[byte % 62];
  return out;
}

/**
 * A new id with Stripe's prefix for the resource.
 *
 * @example
 * newId("pi"); // "pi_3a9Xk…" (24 characters after the underscore)
 */
export function newId(prefix: string): string {
  return `${prefix}_${base62(ID_CHARS)}`;
}

export function newRequestId(): string {
  return `req_${base62(REQUEST_ID_CHARS)}`;
}

/** A PaymentIntent's client secret: its id, `_secret_`, and 25 random characters, as Stripe's. */
export function newClientSecret(paymentIntentId: string): string {
  return `${paymentIntentId}_secret_${base62(25)}`;
}

/** Refund receipt numbers look like `1234-5678`. */
export function newReceiptNumber(): string {
  const digits = (n: number) => Array.from({ length: n }, () => String(randomBytes(1)[0]! % 10)).join("");
  return `${digits(4)}-${digits(4)}`;
}
