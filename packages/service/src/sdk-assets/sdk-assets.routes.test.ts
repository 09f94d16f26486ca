/**
 * /sdk/: compressed by Accept-Encoding, an immutable versioned URL per build, and a manifest with
 * each file's Subresource Integrity hash — which matches the bytes served.
 */
import { createHash } from "node:crypto";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { chooseEncoding } from "./sdk-assets.routes.js";

describe("chooseEncoding", () => {
  it("prefers brotli, then gzip; q=0 refuses; nothing accepted → identity", () => {
    expect(chooseEncoding("gzip, deflate, br")).toBe("br");
    expect(chooseEncoding("gzip")).toBe("gzip");
    expect(chooseEncoding("br;q=0, gzip;q=0.5")).toBe("gzip");
    expect(chooseEncoding("*")).toBe("br");
    expect(chooseEncoding("br;q=0, gzip;q=0, *;q=0")).toBe("identity");
    expect(chooseEncoding(undefined)).toBe("identity");
    expect(chooseEncoding("identity")).toBe("identity");
  });
});

describe("/sdk/", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack("pglite");
  });
  afterAll(() => stack?.close());

  // undici's request never decompresses: the bytes on the wire are what is checked.
  const get = async (path: string, acceptEncoding?: string) => {
    const r = await request(`${stack.url}${path}`, {
      headers: acceptEncoding ? { "accept-encoding": acceptEncoding } : {},
    });
    return { status: r.statusCode, headers: r.headers, body: Buffer.from(await r.body.arrayBuffer()) };
  };
  const sri = (bytes: Buffer) => `sha384-${createHash("sha384").update(bytes).digest("base64")}`;

  it("the manifest names the build's immutable URLs and integrity hashes of the files served", async () => {
    const manifest = await get("/sdk/manifest.json");
    expect(manifest.status).toBe(200);
    const m = JSON.parse(manifest.body.toString()) as {
      version: string;
      files: Record<string, { path: string; integrity: string; bytes: number; brotli_bytes: number }>;
    };
    expect(m.version).toMatch(/^[0-9a-f]{16}$/);
    expect(Object.keys(m.files).sort()).toEqual([
      "svc-checkout-popup.js",
      "svc-checkout-reporter.js",
      "svc-checkout.js",
    ]);
    for (const [file, entry] of Object.entries(m.files)) {
      expect(entry.path).toBe(`/sdk/${m.version}/${file}`);
      const plain = await get(entry.path);
      expect(plain.status).toBe(200);
      expect(plain.headers["content-encoding"]).toBeUndefined();
      expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(sri(plain.body)).toBe(entry.integrity);
      expect(plain.body.length).toBe(entry.bytes);
      // The unversioned URL serves the same bytes, cached briefly.
      const latest = await get(`/sdk/${file}`);
      expect(latest.body.equals(plain.body)).toBe(true);
      expect(latest.headers["cache-control"]).toBe("public, max-age=300");
    }
  });

  it("brotli or gzip by Accept-Encoding, the same bytes once decoded, Vary set", async () => {
    const plain = await get("/sdk/svc-checkout.js");
    const br = await get("/sdk/svc-checkout.js", "gzip, deflate, br");
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toContain("accept-encoding");
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.body.length / 2);
    const gz = await get("/sdk/svc-checkout.js", "gzip");
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(br.headers["access-control-allow-origin"]).toBe("*");
  });

  it("another version's URL is a 404, never other bytes; unknown files are 404", async () => {
    expect((await get("/sdk/0000000000000000/svc-checkout.js")).status).toBe(404);
    expect((await get("/sdk/svc-checkout.min.js")).status).toBe(404);
    const m = JSON.parse((await get("/sdk/manifest.json")).body.toString()) as { version: string };
    expect((await get(`/sdk/${m.version}/other.js`)).status).toBe(404);
  });
});
