/**
 * Identifiers are random, prefixed by what they name (`sess_…`, `ref_…`), so an id in a log line
 * or a support ticket says what it is. 16 random bytes in base32 (lowercase, no padding).
 */
const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

// Random bytes are drawn from the CSPRNG 4 KiB at a time and each handed out once: one
// getRandomValues call costs ~4 µs whatever its size, and a refund takes two to four ids.
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolAt = POOL_BYTES;

export function randomToken(bytes = 16): string {
  let buf = pool;
  let start = 0;
  if (bytes > POOL_BYTES / 16) {
    buf = new Uint8Array(bytes);
    globalThis.crypto.getRandomValues(buf);
  } else {
    if (poolAt + bytes > POOL_BYTES) {
      globalThis.crypto.getRandomValues(pool);
      poolAt = 0;
    }
    start = poolAt;
    poolAt += bytes;
  }
  let out = "";
  let bits = 0;
  let value = 0;
  for (let i = start; i < start + bytes; i++) {
    value = (value << 8) | buf[i]!;
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
