// Byte/text helpers on Web APIs only (TextDecoder, btoa), so the library runs unchanged in
// Node, Deno, Bun, browsers and edge workers. Only the Web Crypto path and key generation use
// the base64/hex encoders; node:crypto encodes its digests natively.

// fatal: a body that is not UTF-8 cannot be the JSON the service sent.
export const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

/** Standard base64 with padding, as in the `webhook-signature` header. */
export function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

/** Lowercase hex, as in the payload's `signature` field. */
export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => (b + 256).toString(16).slice(1)).join("");
}

/**
 * Compares two strings in time that depends only on their lengths, never on where they differ,
 * so an attacker cannot find a valid signature one character at a time.
 */
export function timingSafeEqual(a: string, b: string): boolean {
  // Strings of different lengths start unequal and are still walked (past its end, `a` gives NaN,
  // which `^` reads as 0): one loop, no early return.
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return !diff;
}
