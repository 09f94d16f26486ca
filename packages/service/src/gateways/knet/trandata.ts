/**
 * KNET's `trandata`: the payment-initialisation request and KNET's response, encrypted with the
 * terminal's resource key as KNET's raw integration kit does it (K-064 v1.4, 3.5; the PHP kit's
 * `encryptAES`/`decrypt`): AES-128-CBC with key = IV = the 16 bytes of the resource key, PKCS#5
 * padding, the cipher text in hex. The vectors in trandata.test.ts were computed by that kit.
 *
 * CBC without a MAC proves nothing about who wrote a trandata (anyone can flip bits of a block
 * and keep valid padding with some luck), so a decrypted response is a claim to confirm with an
 * inquiry; `decryptTrandata` only refuses what is certainly not KNET's.
 */
import { createCipheriv, createDecipheriv } from "node:crypto";

/** The length of a terminal resource key, in bytes (AES-128). */
export const KNET_RESOURCE_KEY_BYTES = 16;
/** The AES block, in bytes: a cipher text is a whole number of them. */
const AES_BLOCK_BYTES = 16;

/** Why a trandata was refused. */
export type KnetTrandataErrorCode = "not_hex" | "bad_length" | "bad_padding" | "not_knet_pairs";

/**
 * A trandata that is not KNET's: not hex, not whole AES blocks, bad padding (a wrong key or a
 * changed cipher text), or a plaintext that is not KNET's `name=value&…`. Its message never holds
 * the key or the plaintext.
 *
 * @example
 * try {
 *   decryptTrandata(form.get("trandata") ?? "", resourceKey);
 * } catch (error) {
 *   if (error instanceof KnetTrandataError) return reply(401, error.code);
 *   throw error;
 * }
 */
export class KnetTrandataError extends Error {
  declare readonly code: KnetTrandataErrorCode;

  constructor(code: KnetTrandataErrorCode, message: string) {
    super(message);
    this.name = "KnetTrandataError";
    this.code = code;
  }
}

/**
 * A key of the wrong length is svc's configuration, not KNET's data: a plain RangeError, so that
 * a caller treating KnetTrandataError as "not from KNET" does not blame the sender for it.
 */
function keyBytes(resourceKey: string): Buffer {
  const key = Buffer.from(resourceKey, "utf8");
  if (key.length !== KNET_RESOURCE_KEY_BYTES)
    throw new RangeError(
      `A KNET terminal resource key is ${KNET_RESOURCE_KEY_BYTES} bytes; this one is ${key.length}. Copy the terminal's resource key from KNET again.`,
    );
  return key;
}

/**
 * Encrypts a plain `name=value&…` string as KNET's trandata (lowercase hex).
 *
 * @example
 * const trandata = encryptTrandata(paymentInitPlain(fields), terminal.resourceKey);
 * // "48300266ae21d9cb…"
 */
export function encryptTrandata(plain: string, resourceKey: string): string {
  const key = keyBytes(resourceKey);
  const cipher = createCipheriv("aes-128-cbc", key, key);
  return Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]).toString("hex");
}

/** C0 and C1 controls and DEL: none is in anything KNET writes (udf fields refuse CR/LF). */
const CONTROL = /\p{Cc}/u;
/** The first pair's name: KNET's names are ASCII letters and digits (`paymentid`, `ErrorText`). */
const FIRST_PAIR = /^[A-Za-z][A-Za-z0-9_]*=/;

/**
 * Decrypts KNET's trandata (hex of either case; surrounding whitespace is ignored, as the kit's
 * `trim`) back to its plain `name=value&…` string.
 *
 * Only the first pair's form is checked: later values are written unencoded and may hold an
 * `&` of their own (a URL), so a stricter check could refuse KNET's genuine data. A wrong key
 * almost always fails the padding or the UTF-8 and control-character checks first.
 *
 * @example
 * const plain = decryptTrandata(form.get("trandata") ?? "", terminal.resourceKey);
 * // "paymentid=8962225231041180&result=CAPTURED&…"
 */
export function decryptTrandata(hex: string, resourceKey: string): string {
  const key = keyBytes(resourceKey);
  const text = hex.trim();
  if (!/^[0-9a-fA-F]*$/.test(text))
    throw new KnetTrandataError("not_hex", "The KNET trandata is not hexadecimal.");
  if (text.length === 0 || text.length % (2 * AES_BLOCK_BYTES) !== 0)
    throw new KnetTrandataError(
      "bad_length",
      `The KNET trandata is ${text.length} hex digits, not a whole number of ${AES_BLOCK_BYTES}-byte AES blocks: it was cut or changed on the way.`,
    );
  let bytes: Buffer;
  try {
    const decipher = createDecipheriv("aes-128-cbc", key, key);
    bytes = Buffer.concat([decipher.update(Buffer.from(text, "hex")), decipher.final()]);
  } catch {
    throw new KnetTrandataError(
      "bad_padding",
      "The KNET trandata does not decrypt with this resource key (bad padding): another terminal's key, or a changed cipher text.",
    );
  }
  let plain: string;
  try {
    plain = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw notPairs("is not UTF-8 text");
  }
  if (CONTROL.test(plain)) throw notPairs("holds control characters");
  if (!FIRST_PAIR.test(plain)) throw notPairs("does not begin with a name=value pair");
  return plain;
}

const notPairs = (what: string) =>
  new KnetTrandataError(
    "not_knet_pairs",
    `The KNET trandata decrypts, but its plaintext ${what}: a wrong resource key, or a changed cipher text.`,
  );
