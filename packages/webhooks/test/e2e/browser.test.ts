// The library in real Chromium: bundled like a merchant's app would, served over HTTP, verifying
// a webhook signed in Node. In the browser there is no node:crypto, so this is the Web Crypto path.
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { build } from "esbuild";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTestHeaders, signWebhook } from "../../src/signing.js";
import { operationPayload, SECRET } from "../fixtures.js";

const CHROMIUM = "/usr/bin/chromium";
let server: http.Server;
let context: BrowserContext;
let profileDir: string;
let origin: string;
/** The same server under a name that is not loopback: an insecure context, without crypto.subtle. */
let insecureOrigin: string;

beforeAll(async () => {
  // Both entries, as an app that verifies and signs would import them.
  const bundle = await build({
    stdin: {
      contents: 'export * from "./index.js"; export * from "./signing.js";',
      resolveDir: path.join(import.meta.dirname, "../../src"),
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "browser",
    // "#mac" (package.json "imports") from the sources: the Web Crypto HMAC a browser build gets.
    conditions: ["svc-source"],
    write: false,
  });
  const script = bundle.outputFiles[0]!.text;
  server = http.createServer((req, res) => {
    if (req.url === "/webhooks.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    } else {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(
          '<!doctype html><script type="module">import * as lib from "/webhooks.js"; window.lib = lib;</script>',
        );
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;
  insecureOrigin = `http://shop.test:${port}`;
  profileDir = await mkdtemp(path.join(os.tmpdir(), "webhooks-chromium-"));
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--host-resolver-rules=MAP shop.test 127.0.0.1",
    ],
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  if (profileDir) await rm(profileDir, { recursive: true, force: true });
}, 30_000);

// Timeouts are set here, not in vitest.config.ts, so they also hold when run from the repo root.
describe("in Chromium", { timeout: 60_000 }, () => {
  it("verifies a webhook signed in Node, rejects a tampered one, and signs identically", async () => {
    const { body, headers, payload } = await generateTestHeaders(operationPayload(), SECRET);
    const page = await context.newPage();
    await page.goto(origin);
    // The module is loaded by the page itself: vitest would rewrite an import() written here.
    await page.waitForFunction(() => "lib" in window);
    const outcome = await page.evaluate(
      async ({ body, headers, secret }) => {
        const lib = (
          window as unknown as {
            lib: typeof import("../../src/index.js") & typeof import("../../src/signing.js");
          }
        ).lib;
        const event = await lib.verifyWebhook(body, new Headers(headers), secret);
        const tampered = await lib.verifyWebhook(body.replace("REF-7Q2K9", "REF-0000"), headers, secret).then(
          () => "accepted",
          (err: { code: string }) => err.code,
        );
        const signature = await lib.signWebhook({
          id: "msg_x",
          timestamp: 1_800_000_000,
          body,
          secrets: secret,
        });
        return {
          event,
          tampered,
          signature,
          hasProcess: typeof (globalThis as { process?: unknown }).process,
        };
      },
      { body, headers, secret: SECRET },
    );
    expect(outcome.hasProcess).toBe("undefined");
    expect(outcome.event).toMatchObject({ type: "operation", id: headers["webhook-id"], payload });
    expect(outcome.tampered).toBe("signature_mismatch");
    expect(outcome.signature).toBe(
      await signWebhook({ id: "msg_x", timestamp: 1_800_000_000, body, secrets: SECRET }),
    );
  });

  it("on a page served over http: (no crypto.subtle), refuses with crypto_unavailable, not a TypeError", async () => {
    const { body, headers } = await generateTestHeaders(operationPayload(), SECRET);
    const page = await context.newPage();
    await page.goto(insecureOrigin);
    await page.waitForFunction(() => "lib" in window);
    const outcome = await page.evaluate(
      async ({ body, headers, secret }) => {
        const lib = (window as unknown as { lib: typeof import("../../src/index.js") }).lib;
        const error = await lib.verifyWebhook(body, headers, secret).then(
          () => undefined,
          (err: Error & { code?: string }) => ({
            name: err.name,
            code: err.code,
            message: err.message,
            ours: lib.isWebhookVerificationError(err),
          }),
        );
        return { secure: isSecureContext, subtle: typeof crypto.subtle, error };
      },
      { body, headers, secret: SECRET },
    );
    expect(outcome).toMatchObject({ secure: false, subtle: "undefined" });
    expect(outcome.error).toMatchObject({
      name: "WebhookVerificationError",
      code: "crypto_unavailable",
      ours: true,
    });
    expect(outcome.error?.message).toMatch(/serve the page over https/);
  });
});
