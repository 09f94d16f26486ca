/**
 * Identifiers are random, prefixed by what they name (`sess_…`, `ref_…`), so an id in a log line
 * or a support ticket says what it is. 16 random bytes in base32 (lowercase, no padding).
 */
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

export function randomToken(bytes = 16): string {
  const buf = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(buf);
  let out = "";
  let bits = 0;
  let value = 0;
  for (const byte of buf) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

export type IdPrefix =
  | "mer"
  | "we"
  | "sess"
  | "ref"
  | "usr"
  | "gws"
  | "key"
  | "msg"
  | "dlv"
  | "att"
  | "otp"
  | "tok"
  | "pay"
  | "evt"
  | "err"
  | "dsc"
  | "gmsg";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomToken()}`;
}
