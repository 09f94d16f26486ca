import { createMac } from "#mac";
import { fail } from "./errors.js";

/**
 * HMAC-SHA256 of `prefix` + `data` (strings are UTF-8) with one secret's key, already imported,
 * as base64 (the header) or hex (the payload field). A string from node:crypto (mac-node.ts), a
 * promise from Web Crypto (mac-web.ts); see `run` in verify.ts.
 */
export type Mac = (data: string | Uint8Array, encoding: "base64" | "hex", prefix?: string) => MacResult;
export type MacResult = string | Promise<string>;

const BAD_SECRET = "Pass the endpoint's whsec_ secret (or a list), without quotes or spaces.";

// Importing a key costs more than using it; a receiver uses one or two secrets for its whole
// life, so keep them. Bounded in case a caller passes per-request secrets.
const cache = new Map<string, Mac>();

// This build's HMAC: node:crypto under the "node" condition (Node, Bun, Deno), Web Crypto
// otherwise (browsers, workers); see "imports" in package.json.
let make = createMac;

/** For tests only: HMACs from `factory` (the other build's `createMac`), or this build's own. */
export function useMac(factory: (key: Uint8Array) => Mac = createMac): void {
  make = factory;
  cache.clear();
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
      // Once per secret (cached below), so the short form: Uint8Array.from iterating the string.
      key = Uint8Array.from(atob(secret.replace(/^whsec_/, "")), (c) => c.charCodeAt(0));
    } catch {
      // not a string, or not base64
    }
    if (!key?.length) fail("invalid_secret", BAD_SECRET);
    if (cache.size >= 64) cache.clear();
    cache.set(secret, (mac = make(key)));
  }
  return mac;
}

/** Normalises `secrets` to a non-empty list. */
export function secretList(secrets: string | readonly string[]): readonly string[] {
  const list = typeof secrets === "string" ? [secrets] : secrets;
  return Array.isArray(list) && list.length ? list : fail("invalid_secret", BAD_SECRET);
}
