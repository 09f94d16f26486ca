/**
 * Subresource Integrity in Chromium: the script tag published in /sdk/manifest.json (immutable
 * URL + integrity) loads and mounts the view; a tampered copy with the same integrity attribute
 * is refused by the browser and runs nothing.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Browser, launchBrowser } from "../support/browser.js";
import { type Stack, startStack } from "../support/stack.js";

let stack: Stack;
let browser: Browser;
let site: http.Server;
let siteUrl: string;
let manifest: { version: string; files: Record<string, { path: string; integrity: string }> };

beforeAll(async () => {
  stack = await startStack("pglite");
  browser = await launchBrowser();
  manifest = (await (await fetch(`${stack.url}/sdk/manifest.json`)).json()) as typeof manifest;
  const entry = manifest.files["svc-checkout.js"]!;
  const original = await (await fetch(`${stack.url}${entry.path}`)).text();
  const page = (
    src: string,
  ) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>SRI</title></head>
<body><main><h1>Shop</h1><div id="checkout"></div></main>
<script src="${src}" integrity="${entry.integrity}" crossorigin="anonymous"></script>
<script>window.__loaded = typeof window.SvcCheckout;</script></body></html>`;
  site = http.createServer((req, res) => {
    if (req.url === "/published")
      res.writeHead(200, { "content-type": "text/html" }).end(page(`${stack.url}${entry.path}`));
    else if (req.url === "/tampered")
      res.writeHead(200, { "content-type": "text/html" }).end(page("/tampered.js"));
    // One byte changed: what an attacker who altered the file on its way would serve.
    else if (req.url === "/tampered.js")
      res
        .writeHead(200, { "content-type": "text/javascript", "access-control-allow-origin": "*" })
        .end(`${original}\nwindow.__tampered=1;`);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => site?.close(resolve));
  await stack?.close();
});

it("the published script tag (immutable URL + integrity) loads", async () => {
  const page = await browser.context.newPage();
  await page.goto(`${siteUrl}/published`);
  expect(await page.evaluate(() => (window as unknown as { __loaded: string }).__loaded)).toBe("object");
  await page.close();
});

it("a tampered file with the published integrity is refused and runs nothing", async () => {
  const page = await browser.context.newPage();
  const console: string[] = [];
  page.on("console", (m) => console.push(m.text()));
  await page.goto(`${siteUrl}/tampered`);
  expect(await page.evaluate(() => (window as unknown as { __loaded: string }).__loaded)).toBe("undefined");
  expect(
    await page.evaluate(() => (window as unknown as { __tampered?: number }).__tampered),
  ).toBeUndefined();
  expect(console.join("\n")).toMatch(/integrity/i);
  await page.close();
});
