// Byte/text helpers on Web APIs only (TextEncoder, atob), so the library runs unchanged in
// Node, Deno, Bun, browsers and edge workers.

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export const utf8Encoder = new TextEncoder();
// fatal: a body that is not UTF-8 cannot be the JSON the service sent.
export const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

/** Standard base64 with padding, as in the `webhook-signature` header. */
export function toBase64(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += B64[n >> 18]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + B64[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest > 0) {
    const n = (bytes[i]! << 16) | (rest === 2 ? bytes[i + 1]! << 8 : 0);
    out += B64[n >> 18]! + B64[(n >> 12) & 63]! + (rest === 2 ? B64[(n >> 6) & 63]! : "=") + "=";
  }
  return out;
}

/** Decodes standard base64; returns undefined when `text` is not base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

/** Lowercase hex, as in the payload's `signature` field. */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]!]!;
  return out;
}

/**
 * Compares two strings in time that depends only on their lengths, never on where they differ,
 * so an attacker cannot find a valid signature one character at a time.
 */
export function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
