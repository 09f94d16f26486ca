/**
 * The checkout SDK: size of what a checkout page downloads (the single-file script and its
 * reporter chunk, minified, brotli and gzip; the popup chunk, loaded only when a popup is shown,
 * apart), and the time from script start to the options rendered with setupPreload, in headless
 * Chromium (median of several fresh page loads). The hosted card page: its HTML with the inline
 * CSS and script, compressed, as the real service renders it.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { launchBrowser } from "../test/support/browser.js";
import { createMerchant, createTransaction } from "../test/support/merchant.js";
import { startStack } from "../test/support/stack.js";
import type { BenchResult } from "./run.js";

const RENDER_RUNS = 15;
const RENDER_ROUNDS = 3;
const SIZE_TARGET_BROTLI_BYTES = 12 * 1024;
const CARD_PAGE_TARGET_BYTES = 20 * 1024;
const FIRST_RENDER_TARGET_MS = 50;

const PRELOAD = {
  session_id: "sess_bench",
  order_no: "bench-1",
  amount: "10.500",
  currency_code: "KWD",
  state: "created",
  operation: "purchase",
  type: "e_commerce",
  language: "en",
  customer_id: "cust",
  customer_phone: "+96550000000",
  expires_at: "2099-01-01T00:00:00.000Z",
  payment_methods: ["svc_pg", "token_pay", "wallet_a_pay", "wallet_b_pay"].map((form) => ({
    pg_code: "sandbox",
    name: form,
    form_of_payment: form,
    amount: "10.500",
    currency_code: "KWD",
    fee: "0.000",
    fee_description: "No fee",
    icon: "card",
    flow: "otp",
  })),
  cards: [{ token: "tok_1", brand: "visa", last4: "4242", expiry: "12/39", pg_code: "sandbox" }],
  wallet_a: { merchant_identifier: "merchant.bench", pg_code: "sandbox" },
};

/** The hosted card page as the real service renders it: one HTML response with its CSS and script inline. */
async function cardPageSize(
  brotli: (b: Buffer) => number,
  gzip: (b: Buffer) => number,
): Promise<BenchResult[]> {
  const stack = await startStack("pglite");
  try {
    const merchant = await createMerchant(stack);
    const tx = (
      await createTransaction(stack, merchant, { customer_id: "bench-customer", order_no: "bench-1" })
    ).json as { session_id: string };
    const html = Buffer.from(await (await fetch(`${stack.url}/pay/${tx.session_id}`)).text());
    if (!html.includes("<script")) throw new Error("the card page has no script: nothing to measure");
    return [
      {
        name: "checkout.card_page_brotli_bytes",
        value: brotli(html),
        unit: "B",
        target: `≤ ${CARD_PAGE_TARGET_BYTES} (HTML + CSS + JS)`,
      },
      { name: "checkout.card_page_gzip_bytes", value: gzip(html), unit: "B" },
    ];
  } finally {
    await stack.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default async function checkoutBench(): Promise<BenchResult[]> {
  const outdir = mkdtempSync(path.join(os.tmpdir(), "svc-sdk-bench-"));
  try {
    const build = pathToFileURL(path.resolve(import.meta.dirname, "../packages/checkout/build.mjs")).href;
    const { buildSdk } = (await import(build)) as {
      buildSdk(o: { esm: boolean; outdir: string }): Promise<string>;
    };
    await buildSdk({ esm: false, outdir });
    const main = readFileSync(path.join(outdir, "svc-checkout.js"));
    const reporter = readFileSync(path.join(outdir, "svc-checkout-reporter.js"));
    const popup = readFileSync(path.join(outdir, "svc-checkout-popup.js"));
    const brotli = (b: Buffer) =>
      brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
    const gzip = (b: Buffer) => gzipSync(b, { level: 9 }).length;

    const server = http.createServer((req, res) => {
      if (req.url === "/svc-checkout.js") {
        // "Script start": the first statement of the SDK script; the loopback fetch is measured apart.
        res
          .writeHead(200, { "content-type": "text/javascript", "cache-control": "no-store" })
          .end(`window.__ts=performance.now();${main}`);
        return;
      }
      res.writeHead(200, { "content-type": "text/html", "cache-control": "no-store" }).end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bench</title></head><body><div id="checkout"></div>
<script>window.__t0=performance.now()</script><script src="/svc-checkout.js"></script>
<script>SvcCheckout.init({selector:"#checkout",merchantId:"127.0.0.1:1",apiKey:"pk_bench",sessionId:"sess_bench",
setupPreload:${JSON.stringify(PRELOAD)},delegate:{successCallback(){},cancelCallback(){},errorCallback(){}}});
var host=document.querySelector(".svc-checkout");host.getBoundingClientRect();
window.__options=host.shadowRoot.querySelectorAll("[data-form-of-payment]").length;
var now=performance.now();window.__ms=now-window.__ts;window.__fetchMs=now-window.__t0;</script></body></html>`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    // Three rounds, each in a fresh browser (its first load only warms it up), 15 page loads
    // each; the figure is the median of the rounds' medians: one busy moment on a shared machine
    // moves one round, not the figure.
    const times: number[] = [];
    const withFetch: number[] = [];
    try {
      for (let round = 0; round < RENDER_ROUNDS; round++) {
        const browser = await launchBrowser();
        const roundTimes: number[] = [];
        const roundWithFetch: number[] = [];
        try {
          for (let i = 0; i < RENDER_RUNS + 1; i++) {
            const page = await browser.context.newPage();
            await page.goto(url);
            const { ms, fetchMs, options } = await page.evaluate(() => {
              const w = window as unknown as { __ms: number; __fetchMs: number; __options: number };
              return { ms: w.__ms, fetchMs: w.__fetchMs, options: w.__options };
            });
            if (options !== 4) throw new Error(`expected 4 options rendered, got ${options}`);
            if (i > 0) {
              roundTimes.push(ms);
              roundWithFetch.push(fetchMs);
            }
            await page.close();
          }
        } finally {
          await browser.close();
        }
        times.push(median(roundTimes));
        withFetch.push(median(roundWithFetch));
        console.error(`  checkout first render, round ${round + 1}: ${median(roundTimes).toFixed(1)} ms`);
      }
    } finally {
      server.close();
    }
    return [
      {
        name: "checkout.size_brotli_bytes",
        value: brotli(main) + brotli(reporter),
        unit: "B",
        target: `≤ ${SIZE_TARGET_BROTLI_BYTES} (script + reporter chunk)`,
      },
      { name: "checkout.size_gzip_bytes", value: gzip(main) + gzip(reporter), unit: "B" },
      { name: "checkout.size_minified_bytes", value: main.length + reporter.length, unit: "B" },
      { name: "checkout.reporter_brotli_bytes", value: brotli(reporter), unit: "B" },
      {
        name: "checkout.popup_brotli_bytes",
        value: brotli(popup),
        unit: "B",
        target: "loaded only when a popup is shown",
      },
      ...(await cardPageSize(brotli, gzip)),
      {
        name: "checkout.first_render_ms",
        value: Math.round(median(times) * 10) / 10,
        unit: "ms",
        target: `≤ ${FIRST_RENDER_TARGET_MS} (median of ${RENDER_ROUNDS} rounds × ${RENDER_RUNS} loads, setupPreload)`,
      },
      {
        name: "checkout.first_render_with_fetch_ms",
        value: Math.round(median(withFetch) * 10) / 10,
        unit: "ms",
        target: "script tag reached → rendered, loopback fetch included",
      },
    ];
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
