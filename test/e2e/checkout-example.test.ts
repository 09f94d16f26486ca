/**
 * The example shop of `svc dev` (/example/): seeded like `svc dev` seeds its demo merchant, then
 * a newcomer's first payment in Chromium, with the script-tag integration the page shows.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { seedDemoMerchant, writeCredentials } from "../../packages/service/src/dev/seed.js";
import { type Browser, launchBrowser } from "../support/browser.js";
import { type Stack, startStack } from "../support/stack.js";

let stack: Stack;
let browser: Browser;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-example-"));
  stack = await startStack("pglite", { config: { dataDir, exampleShop: true } });
  await writeCredentials(dataDir, await seedDemoMerchant(stack.service.app, stack.config, undefined));
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it("the example shop creates a transaction and a newcomer pays with the mobile wallet", async () => {
  const page = await browser.context.newPage();
  const violations: string[] = [];
  page.on("console", (m) => violations.push(m.text()));
  await page.goto(`${stack.url}/example/`);
  const forms = await page
    .locator("[data-form-of-payment]")
    .evaluateAll((els) => els.map((e) => e.getAttribute("data-form-of-payment")));
  expect(forms.sort()).toEqual(["redirect", "svc_pg", "wallet_a_pay", "wallet_b_pay"]);
  await page.locator('.op[data-form-of-payment="wallet_b_pay"] label.oh').click();
  const wallet = page.locator('[data-form-of-payment="wallet_b_pay"]');
  await wallet.locator("input[name=mobile_number]").fill("96551234567");
  await wallet.getByRole("button", { name: "Send code" }).click();
  await wallet.locator("input[name=otp]").fill("123456");
  await wallet.getByRole("button", { name: "Pay 10.500 KWD" }).click();
  await page.waitForFunction(() =>
    document.getElementById("result")?.textContent?.startsWith("successCallback"),
  );
  const shown = JSON.parse((await page.locator("#result").textContent())!.replace("successCallback\n", ""));
  expect(shown).toMatchObject({
    status: "success",
    form_of_payment: "wallet_b_pay",
    message: "Payment successful",
  });
  expect(violations).toEqual([]);
  await page.close();
});

it("the Arabic example is right-to-left with the transaction's texts in Arabic", async () => {
  const page = await browser.context.newPage();
  await page.goto(`${stack.url}/example/?lang=ar`);
  expect(await page.locator("html").getAttribute("dir")).toBe("rtl");
  const title = await page.locator('[data-form-of-payment="wallet_b_pay"] .t').textContent();
  expect(title).toBe("محفظة الجوال");
  // The SDK follows the (English) browser, as on a merchant's site: the page says so.
  expect(await page.locator("#language-note").textContent()).toContain("صفحة الدفع أدناه بالإنجليزية");
  await page.close();
});

it("an Arabic browser without ?lang gets an Arabic transaction; the switch reaches the minified view; the SDK tag carries its integrity", async () => {
  const arabic = await launchBrowser({ locale: "ar-KW" });
  try {
    const page = await arabic.context.newPage();
    await page.goto(`${stack.url}/example/`);
    expect(await page.locator("html").getAttribute("lang")).toBe("ar");
    // The shop, the transaction and the SDK all follow the browser: nothing to explain.
    expect(await page.locator("#language-note").count()).toBe(0);
    // The backend texts (option names) are Arabic too: the transaction was created in Arabic.
    expect(await page.locator('[data-form-of-payment="wallet_b_pay"] .t').textContent()).toBe("محفظة الجوال");
    const tag = page.locator("script[integrity]");
    expect(await tag.getAttribute("src")).toMatch(/^\/sdk\/[0-9a-f]{16}\/svc-checkout\.js$/);
    expect(await tag.getAttribute("integrity")).toMatch(/^sha384-/);
    await page.getByRole("link", { name: "محفظة الجوال (عرض مصغّر)" }).click();
    await page.waitForURL(/forms=walletBPay/);
    // The layout is known once the view has its options (it is busy until then).
    await page.locator(".svc-checkout[aria-busy=false]").waitFor();
    expect(await page.locator(".svc-checkout").getAttribute("data-layout")).toBe("minified");
    const border = await page
      .locator(".svc-checkout")
      .evaluate((h) => getComputedStyle(h.shadowRoot!.querySelector(".o")!).borderTopWidth);
    expect(border).toBe("0px");
    await page.close();
  } finally {
    await arabic.close();
  }
});
