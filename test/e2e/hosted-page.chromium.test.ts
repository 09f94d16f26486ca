/**
 * The hosted card page in real Chromium: a customer types a card and pays; the page is in the
 * transaction's language; axe finds no violations in light and dark, English and Arabic.
 */
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "../support/browser.js";
import { api, apiKey, createMerchant, createTransaction, type TestMerchant } from "../support/merchant.js";
import { type Stack, startStack } from "../support/stack.js";

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const FUTURE_EXPIRY = `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, "0")}`;

describe("hosted card page in Chromium", () => {
  let stack: Stack;
  let m: TestMerchant;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let auditor: Awaited<ReturnType<typeof launchBrowser>>;
  beforeAll(async () => {
    stack = await startStack("pglite");
    m = await createMerchant(stack);
    browser = await launchBrowser();
    auditor = await launchBrowser({ bypassCSP: true });
  });
  afterAll(async () => {
    await browser?.close();
    await auditor?.close();
    await stack?.close();
  });

  it("a card payment typed by keyboard makes the transaction paid", async () => {
    const tx = (await createTransaction(stack, m, { amount: "25.750", order_no: "ORD-KEYBOARD" })).json;
    const page = await browser.context.newPage();
    await page.goto(tx.checkout_url);
    await expect(page.locator("h1").textContent()).resolves.toBe("Pay by card");
    await page.getByLabel("Card number").focus();
    await page.keyboard.type("4242 4242 4242 4242");
    await page.keyboard.press("Tab");
    await page.keyboard.type(FUTURE_EXPIRY);
    await page.keyboard.press("Tab");
    await page.keyboard.type("123");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Sara Ali");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    // The post redirects back to this same URL (so waiting for the URL returns at once): wait for
    // the form's page to go, then read the result page.
    await page.locator("#card-form").waitFor({ state: "detached" });
    expect(page.url()).toBe(`${stack.url}/pay/${tx.session_id}`);
    expect(await page.locator("h1").textContent()).toBe("Payment successful");
    // The result says which payment it was, as the form did: the amount and the order.
    expect(await page.locator("dd.total").textContent()).toBe("25.750 KWD");
    expect(await page.locator("dd").nth(1).textContent()).toBe("ORD-KEYBOARD");
    const status = await api(stack, "GET", `/v1/payments/${tx.session_id}`, { auth: apiKey(m.privateKey) });
    expect(status.json).toMatchObject({
      state: "paid",
      form_of_payment: "svc_pg",
      captured_amount: "25.750",
    });
    await page.close();
  });

  it("a declined card shows the failure page", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const page = await browser.context.newPage();
    await page.goto(tx.checkout_url);
    await page.getByLabel("Card number").fill("4000 0000 0000 0002");
    await page.getByLabel("Expiry (MM/YY)").fill(FUTURE_EXPIRY);
    await page.getByLabel("Security code (CVC)").fill("123");
    await page.getByRole("button", { name: /Pay/ }).click();
    // The post redirects back to this same URL (so waiting for the URL returns at once): wait for
    // the form's page to go, then read the result page.
    await page.locator("#card-form").waitFor({ state: "detached" });
    expect(page.url()).toBe(`${stack.url}/pay/${tx.session_id}`);
    expect(await page.locator("h1").textContent()).toBe("Payment failed");
    await page.close();
  });

  for (const language of ["en", "ar"] as const) {
    for (const colorScheme of ["light", "dark"] as const) {
      it(`has no axe violations in ${language}, ${colorScheme}, with and without field errors`, async () => {
        const tx = (await createTransaction(stack, m, { language, customer_id: "c1" })).json;
        const page = await auditor.context.newPage();
        await page.emulateMedia({ colorScheme });
        await page.goto(tx.checkout_url);
        expect(await page.getAttribute("html", "dir")).toBe(language === "ar" ? "rtl" : "ltr");
        for (const phase of ["form", "errors"]) {
          if (phase === "errors") await page.locator("button[type=submit]").click();
          await page.addScriptTag({ path: axePath });
          const violations = await page.evaluate(async () => {
            const result = await (
              window as unknown as {
                axe: { run(): Promise<{ violations: { id: string; nodes: unknown[] }[] }> };
              }
            ).axe.run();
            return result.violations.map((v) => `${v.id} (${v.nodes.length})`);
          });
          expect(violations, `${language} ${colorScheme} ${phase}`).toEqual([]);
        }
        await page.close();
      });
    }
  }
});
