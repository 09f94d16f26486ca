import { fromBase64, utf8Encoder } from "./encoding.js";
import { WebhookVerificationError } from "./errors.js";

/** Data to authenticate, as parts concatenated in order; strings are UTF-8. */
export type HmacInput = ReadonlyArray<string | Uint8Array>;
/** HMAC-SHA256 with one secret's key, already imported. */
export type Hmac = (parts: HmacInput) => Uint8Array | Promise<Uint8Array>;

interface NodeHmac {
  update(data: string | Uint8Array): NodeHmac;
  digest(): Uint8Array;
}
interface NodeCryptoSubset {
  createHmac(algorithm: "sha256", key: Uint8Array): NodeHmac;
}

const SECRET_PREFIX = "whsec_";
// Importing a key costs more than using it; a receiver uses one or two secrets for its whole
// life, so keep them. Bounded in case a caller passes per-request secrets.
const MAX_CACHED_SECRETS = 64;
const cache = new Map<string, Hmac>();

/**
 * Node ≥ 20.16, Bun and Deno expose node:crypto through `process.getBuiltinModule` without a
 * static import (which would break browsers and bundlers). Its synchronous HMAC is ~6× faster
 * than Web Crypto's `subtle.sign` for a 1 KB body in Node, because subtle.sign pays for a
 * thread-pool round trip and a promise per call. Everywhere else, Web Crypto.
 */
function nodeCrypto(): NodeCryptoSubset | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const mod = typeof proc?.getBuiltinModule === "function" ? proc.getBuiltinModule("node:crypto") : undefined;
  return mod && typeof (mod as NodeCryptoSubset).createHmac === "function"
    ? (mod as NodeCryptoSubset)
    : undefined;
}

let useNodeCrypto = nodeCrypto() !== undefined;

/** For tests only: force the Web Crypto path (true) or the default choice (false). */
export function forceWebCrypto(force: boolean): void {
  useNodeCrypto = !force && nodeCrypto() !== undefined;
  cache.clear();
}

/**
 * Decodes a signing secret: `whsec_` + base64, or bare base64 as standardwebhooks accepts.
 * Throws `invalid_secret` with a hint, because a wrong secret otherwise shows up only as
 * mysterious signature mismatches.
 */
export function decodeSecret(secret: string): Uint8Array {
  if (typeof secret !== "string" || secret.length === 0) {
    throw new WebhookVerificationError(
      "invalid_secret",
      "The webhook signing secret is empty or not a string. Pass the endpoint's secret (whsec_…) " +
        "from your configuration, e.g. process.env.WEBHOOK_SECRET.",
    );
  }
  const base64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = fromBase64(base64);
  if (!key || key.length === 0) {
    throw new WebhookVerificationError(
      "invalid_secret",
      "The webhook signing secret is not valid: expected whsec_ followed by base64. Copy it again " +
        "from the dashboard without quotes or whitespace.",
    );
  }
  return key;
}

function concat(parts: HmacInput): Uint8Array {
  const chunks = parts.map((p) => (typeof p === "string" ? utf8Encoder.encode(p) : p));
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

function createHmac(key: Uint8Array): Hmac {
  const node = useNodeCrypto ? nodeCrypto() : undefined;
  if (node) {
    return (parts) => {
      const h = node.createHmac("sha256", key);
      for (const p of parts) h.update(p);
      return h.digest();
    };
  }
  const cryptoKey = crypto.subtle.importKey(
    "raw",
    key as BufferSource,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return async (parts) =>
    new Uint8Array(await crypto.subtle.sign("HMAC", await cryptoKey, concat(parts) as BufferSource));
}

/** The cached HMAC function for `secret`, importing its key on first use. */
export function hmacFor(secret: string): Hmac {
  let hmac = cache.get(secret);
  if (!hmac) {
    hmac = createHmac(decodeSecret(secret));
    if (cache.size >= MAX_CACHED_SECRETS) cache.clear();
    cache.set(secret, hmac);
  }
  return hmac;
}

/** Normalises `secrets` to a non-empty list. */
export function secretList(secrets: string | readonly string[]): readonly string[] {
  const list = typeof secrets === "string" ? [secrets] : secrets;
  if (!Array.isArray(list) || list.length === 0) {
    throw new WebhookVerificationError(
      "invalid_secret",
      "No webhook signing secret given. Pass the endpoint's secret (whsec_…), or an array of " +
        "secrets while rotating.",
    );
  }
  return list;
}
