// HMAC-SHA256 for Node, Bun and Deno: what `#mac` (package.json "imports") resolves to under the
// "node" condition. Only this file and mac-web.ts differ between the two builds, so each root
// entry carries one HMAC path. Imports nothing of the library's own (types aside); uses Node's
// `Buffer` global, which Bun and Deno have too.
import crypto from "node:crypto";
import type { Mac } from "./hmac.js";

/**
 * The inner hash's input, reused: every HMAC on this path is synchronous. 64 KiB, allocated on
 * first use; a longer message gets a buffer of its own. A Buffer, whose `write` encodes a string
 * as UTF-8 in place (a lone surrogate as U+FFFD, like TextEncoder) and returns the bytes written,
 * with no view to allocate.
 */
let scratch: Buffer | undefined;

/** HMAC-SHA256 with `key`, synchronous. */
export function createMac(key: Uint8Array): Mac {
  // The one-shot `hash` (Node ≥ 20.12, Bun, Deno), read here so that a runtime without it
  // (Node 18) gets createHmac: the same bytes, about half the speed. So does a key longer than
  // SHA-256's 64-byte block, which HMAC would hash first (svc's secrets are 32 bytes).
  // @types/node leaves out `latin1`, which `hash` takes like every digest encoding.
  const hash = crypto.hash as unknown as
    ((algorithm: "sha256", data: Uint8Array, encoding: "base64" | "hex" | "latin1") => string) | undefined;
  if (!hash || key.length > 64)
    return (data, encoding, prefix = "") =>
      crypto.createHmac("sha256", key).update(prefix).update(data).digest(encoding);
  // HMAC (RFC 2104) on `hash`: SHA-256(opad + SHA-256(ipad + message)), the padded keys computed
  // once per key. `createHmac` costs about twice as much for a 1 KB body: most of it is setting
  // up the key and a stream object on every call.
  const ipad = new Uint8Array(64);
  // opad, then the inner digest: the outer hash's whole input.
  const outer = Buffer.alloc(96);
  for (let i = 0; i < 64; i++) {
    ipad[i] = key[i]! ^ 0x36;
    outer[i] = key[i]! ^ 0x5c;
  }
  return (data, encoding, prefix = "") => {
    // ipad, then the message as UTF-8 (at most 3 bytes per UTF-16 unit).
    const size = 64 + 3 * (prefix.length + data.length);
    const buf = size > 65536 ? Buffer.allocUnsafe(size) : (scratch ??= Buffer.allocUnsafe(65536));
    buf.set(ipad);
    let end = 64 + buf.write(prefix, 64);
    if (typeof data === "string") end += buf.write(data, end);
    else {
      buf.set(data, end);
      end += data.length;
    }
    // The inner digest as `latin1` (one character per byte), copied after opad.
    outer.write(hash("sha256", buf.subarray(0, end), "latin1"), 64, "latin1");
    return hash("sha256", outer, encoding);
  };
}
