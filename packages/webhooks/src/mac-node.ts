// HMAC-SHA256 for Node, Bun and Deno: what `#mac` (package.json "imports") resolves to under the
// "node" condition. Only this file and mac-web.ts differ between the two builds, so each root
// entry carries one HMAC path. Imports nothing of the library's own (types aside).
import crypto from "node:crypto";
import type { Mac } from "./hmac.js";

/** A `latin1` digest (one character per byte) as bytes, into `bytes` at `at`. */
const put = (binary: string, bytes: Uint8Array, at = 0) => {
  for (let i = 0; i < binary.length; i++) bytes[at + i] = binary.charCodeAt(i);
  return bytes;
};

const utf8Encoder = new TextEncoder();
/** The inner hash's input, reused: every HMAC on this path is synchronous. At most 64 KiB. */
let scratch = new Uint8Array(0);

/** HMAC-SHA256 with `key`, synchronous. */
export function createMac(key: Uint8Array): Mac {
  // The one-shot `hash` (Node ≥ 20.12, Bun, Deno), read here so that a runtime without it
  // (Node 18) gets createHmac: the same bytes, about half the speed.
  // @types/node leaves out `latin1`, which `hash` takes like every digest encoding.
  const hash = crypto.hash as unknown as
    ((algorithm: "sha256", data: Uint8Array, encoding: "base64" | "hex" | "latin1") => string) | undefined;
  if (!hash)
    return (data, encoding, prefix = "") =>
      crypto.createHmac("sha256", key).update(prefix).update(data).digest(encoding);
  // HMAC (RFC 2104) on `hash`: SHA-256(opad + SHA-256(ipad + message)), the padded keys computed
  // once per key. `createHmac` costs about twice as much for a 1 KB body: most of it is setting
  // up the key and a stream object on every call. A key longer than SHA-256's 64-byte block is
  // hashed first, as HMAC does.
  if (key.length > 64) key = put(hash("sha256", key, "latin1"), new Uint8Array(32));
  const ipad = new Uint8Array(64);
  // opad, then the inner digest: the outer hash's whole input.
  const outer = new Uint8Array(96);
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
    put(hash("sha256", buf.subarray(0, end), "latin1"), outer, 64);
    return hash("sha256", outer, encoding);
  };
}
