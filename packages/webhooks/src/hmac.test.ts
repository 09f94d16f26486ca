// The node:crypto path computes HMAC-SHA256 itself (RFC 2104 on the one-shot `hash`): it must
// give createHmac's bytes for every key length, message shape and size.
import crypto, { createHmac, randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { macFor } from "./hmac.js";
import { createMac } from "./mac-node.js";
import { forceWebCrypto } from "../test/web-crypto.js";

/** A secret as receivers configure it, for `key`: `whsec_` + base64, or bare base64. */
const secretOf = (key: Buffer, bare = false) => (bare ? "" : "whsec_") + key.toString("base64");

const sample = (length: number) =>
  Array.from({ length }, (_, i) => ["a", "é", "中", "😀", "\ud800"][i % 5]!.repeat(1 + (i % 3))).join("");

describe("HMAC on the node:crypto path", () => {
  afterAll(() => forceWebCrypto(false));

  it("is synchronous and equals createHmac for keys of 1 to 150 bytes (longer than a block: hashed)", () => {
    for (let length = 1; length <= 150; length++) {
      const key = randomBytes(length);
      const mac = macFor(secretOf(key, length % 2 === 0));
      const body = randomBytes(length * 7);
      const expected = createHmac("sha256", key).update("msg_1.1700000000.").update(body);
      expect(mac(body, "base64", "msg_1.1700000000."), `key of ${length} bytes`).toBe(
        expected.digest("base64"),
      );
    }
  });

  it("encodes strings as UTF-8 (a lone surrogate as U+FFFD, like createHmac) and takes bytes as they are", () => {
    const key = randomBytes(32);
    const mac = macFor(secretOf(key));
    for (const text of ["", "{}", sample(10), sample(1000)]) {
      for (const prefix of ["", "msg_é😀.1.", sample(7)]) {
        const expected = (data: string | Uint8Array) =>
          createHmac("sha256", key).update(prefix).update(data).digest("hex");
        expect(mac(text, "hex", prefix)).toBe(expected(text));
        const bytes = new TextEncoder().encode(text);
        expect(mac(bytes, "hex", prefix)).toBe(expected(bytes));
        expect(mac(bytes.subarray(1), "base64", prefix)).toBe(
          createHmac("sha256", key).update(prefix).update(bytes.subarray(1)).digest("base64"),
        );
      }
    }
  });

  it("gives the same bytes after a message larger than the reused buffer, and after a short one", () => {
    const key = randomBytes(32);
    const mac = macFor(secretOf(key));
    const expected = (data: string) => createHmac("sha256", key).update(data).digest("hex");
    for (const text of [
      "short",
      sample(40_000),
      "x",
      "é".repeat(70_000),
      sample(3),
      "y".repeat(1 << 20),
      "z",
    ])
      expect(mac(text, "hex")).toBe(expected(text));
  });

  it("gives the Web Crypto path's bytes", async () => {
    const secrets = [randomBytes(32), randomBytes(100)].map((key) => secretOf(key));
    const body = new TextEncoder().encode(sample(300));
    const fast = secrets.map((s) => macFor(s)(body, "base64", "msg_1.2.") as string);
    forceWebCrypto(true);
    expect(await Promise.all(secrets.map((s) => macFor(s)(body, "base64", "msg_1.2.")))).toEqual(fast);
  });
});

describe("HMAC where node:crypto has no one-shot hash (Node 18)", () => {
  it("falls back to createHmac: the same bytes", () => {
    const hash = crypto.hash;
    const key = randomBytes(100);
    const fast = createMac(key);
    // @ts-expect-error: what Node 18's node:crypto lacks.
    delete crypto.hash;
    try {
      const mac = createMac(key);
      for (const text of ["", sample(10), sample(1000)])
        for (const encoding of ["hex", "base64"] as const)
          expect(mac(text, encoding, "msg_1.2.")).toBe(fast(text, encoding, "msg_1.2."));
    } finally {
      crypto.hash = hash;
    }
  });
});
