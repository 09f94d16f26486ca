// HMAC-SHA256 on Web Crypto for browsers and workers: what `#mac` (package.json "imports")
// resolves to without the "node" condition. See mac-node.ts for Node, Bun and Deno.
import { toBase64, toHex } from "./encoding.js";
import { fail } from "./errors.js";
import type { Mac } from "./hmac.js";

/** HMAC-SHA256 with `key`, asynchronous (`subtle.sign`). */
export function createMac(key: Uint8Array): Mac {
  // Kept once imported; a failed import is not kept, so the next call tries again.
  let cryptoKey: CryptoKey | undefined;
  return async (data, encoding, prefix = "") => {
    // crypto.subtle exists only in secure contexts: a page served over http: (not localhost) has
    // `crypto` without it.
    const subtle =
      globalThis.crypto?.subtle ||
      fail("crypto_unavailable", "No Web Crypto (crypto.subtle): serve the page over https.");
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
