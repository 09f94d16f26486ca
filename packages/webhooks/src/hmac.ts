import { toBase64, toHex } from "./encoding.js";
import { fail } from "./errors.js";

/**
 * HMAC-SHA256 of `prefix` + `data` (strings are UTF-8) with one secret's key, already imported,
 * as base64 (the header) or hex (the payload field). A string where the runtime's HMAC is
 * synchronous (node:crypto), a promise otherwise (Web Crypto); see `run` in verify.ts.
 */
export type Mac = (data: string | Uint8Array, encoding: "base64" | "hex", prefix?: string) => MacResult;
export type MacResult = string | Promise<string>;

interface NodeCryptoSubset {
  /** One-shot digest (Node ≥ 20.12, Bun, Deno). `latin1`: one character per byte. */
  hash(algorithm: "sha256", data: Uint8Array, encoding: "base64" | "hex" | "latin1"): string;
  webcrypto: Crypto;
}

const BAD_SECRET = "Pass the endpoint's whsec_ secret (or a list), without quotes or spaces.";
const NO_SUBTLE = "No Web Crypto (crypto.subtle): serve the page over https.";

// Importing a key costs more than using it; a receiver uses one or two secrets for its whole
// life, so keep them. Bounded in case a caller passes per-request secrets.
const cache = new Map<string, Mac>();

/**
 * Node ≥ 20.16, Bun and Deno expose node:crypto through `process.getBuiltinModule` without a
 * static import (which would break browsers and bundlers). Its synchronous hashing is several
 * times faster than Web Crypto's `subtle.sign` for a 1 KB body in Node, because subtle.sign pays
 * for a thread-pool round trip and a promise per call. Everywhere else, Web Crypto.
 */
function nodeCrypto(): NodeCryptoSubset | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const mod = proc?.getBuiltinModule?.("node:crypto") as NodeCryptoSubset | undefined;
  return mod?.hash && mod;
}

let node = nodeCrypto();

/** For tests only: force the Web Crypto path (true) or the default choice (false). */
export function forceWebCrypto(force: boolean): void {
  node = force ? undefined : nodeCrypto();
  cache.clear();
}

/**
 * Web Crypto: the global `crypto`, or, on Node 18 (no global `crypto` without a flag, and no
 * `process.getBuiltinModule`), node:crypto's `webcrypto`, imported on first use. The specifier
 * is computed so that bundlers targeting browsers neither resolve nor warn about it.
 */
export const webCrypto = (): Crypto | Promise<Crypto> =>
  globalThis.crypto ??
  import(/* webpackIgnore: true */ /* @vite-ignore */ ["node", "crypto"].join(":")).then(
    (m: NodeCryptoSubset) => m.webcrypto,
  );

/** A binary string's characters (`atob`'s output, a `latin1` digest) as bytes, into `bytes`. */
const bytesOf = (binary: string, bytes = new Uint8Array(binary.length)) => {
  // A loop: Uint8Array.from(binary, …) iterates the string and costs several µs.
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
};

const utf8Encoder = new TextEncoder();
/** The inner hash's input, reused: every HMAC on this path is synchronous. At most 64 KiB. */
let scratch = new Uint8Array(0);

function createMac(key: Uint8Array): Mac {
  const n = node;
  if (n) {
    // HMAC (RFC 2104) on node:crypto's one-shot `hash`: SHA-256(opad + SHA-256(ipad + message)),
    // the padded keys computed once per key. `createHmac` costs about twice as much for a 1 KB
    // body: most of it is setting up the key and a stream object on every call. A key longer
    // than SHA-256's 64-byte block is hashed first, as HMAC does.
    if (key.length > 64) key = bytesOf(n.hash("sha256", key, "latin1"));
    const ipad = new Uint8Array(64);
    // opad, then the inner digest: the outer hash's whole input.
    const outer = new Uint8Array(96);
    const inner = outer.subarray(64);
    for (let i = 0; i < 64; i++) {
      ipad[i] = key[i]! ^ 0x36;
      outer[i] = key[i]! ^ 0x5c;
    }
    return (data, encoding, prefix = "") => {
      // ipad, then the message as UTF-8 (at most 3 bytes per UTF-16 unit).
      const size = 64 + 3 * (prefix.length + data.length);
      const buf = scratch.length < size ? new Uint8Array(size) : scratch;
      if (size <= 65536) scratch = buf;
      buf.set(ipad);
      let end = 64 + utf8Encoder.encodeInto(prefix, buf.subarray(64)).written!;
      if (typeof data === "string") end += utf8Encoder.encodeInto(data, buf.subarray(end)).written!;
      else buf.set(data, (end += data.length) - data.length);
      bytesOf(n.hash("sha256", buf.subarray(0, end), "latin1"), inner);
      return n.hash("sha256", outer, encoding);
    };
  }
  // Kept once imported; a failed import is not kept, so the next call tries again.
  let cryptoKey: CryptoKey | undefined;
  return async (data, encoding, prefix = "") => {
    // crypto.subtle exists only in secure contexts: a page served over http: (not localhost) has
    // `crypto` without it.
    const subtle = (await webCrypto()).subtle || fail("crypto_unavailable", NO_SUBTLE);
    cryptoKey ??= await subtle.importKey(
      "raw",
      key as BufferSource,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    // A Blob concatenates the parts and encodes strings as UTF-8, like TextEncoder.
    const bytes = await new Blob([prefix, data as BlobPart]).arrayBuffer();
    return (encoding === "hex" ? toHex : toBase64)(
      new Uint8Array(await subtle.sign("HMAC", cryptoKey, bytes)),
    );
  };
}

/**
 * The cached HMAC function for `secret`, decoding and importing its key on first use only. The
 * secret is `whsec_` + base64, or bare base64 as standardwebhooks accepts; anything else throws
 * `invalid_secret` with a hint, because a wrong secret otherwise shows up only as mysterious
 * signature mismatches.
 */
export function macFor(secret: string): Mac {
  let mac = cache.get(secret);
  if (!mac) {
    let key: Uint8Array | undefined;
    try {
      key = bytesOf(atob(secret.replace(/^whsec_/, "")));
    } catch {
      // not a string, or not base64
    }
    if (!key?.length) fail("invalid_secret", BAD_SECRET);
    if (cache.size >= 64) cache.clear();
    cache.set(secret, (mac = createMac(key)));
  }
  return mac;
}

/** Normalises `secrets` to a non-empty list. */
export function secretList(secrets: string | readonly string[]): readonly string[] {
  const list = typeof secrets === "string" ? [secrets] : secrets;
  return Array.isArray(list) && list.length ? list : fail("invalid_secret", BAD_SECRET);
}
