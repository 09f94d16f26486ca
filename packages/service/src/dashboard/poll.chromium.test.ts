/**
 * The payment page's refresh of a queued operation in real headless Chromium: while the refund is
 * queued the child transactions are fetched again every two seconds; once the session has ended,
 * that fetch is sent to sign-in, and the page reloads to sign in instead of showing the sign-in
 * form inside the table's place.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, launchBrowser } from "../../../../test/support/browser.js";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";

describe.each(STORES)("the queued operation's refresh on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    // The gateway's notifications wait ten minutes: the refund stays queued through the test.
    stack = await startStack(store, { notificationRetryDelaysMs: [600_000] });
    m = await createMerchant(stack);
    browser = await launchBrowser();
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it("reloads to sign in when the session ends while it polls", async () => {
    const parent = await paidParent(stack, m, "queued", { amount: "4.000" });
    const refund = await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
    });
    expect(refund.status).toBe(202);
    await page.goto(`${stack.url}/dashboard/sign-in`);
    await page.fill("#f-username", m.admin.username);
    await page.fill("#f-password", m.admin.password);
    await Promise.all([page.waitForURL(/\/dashboard\/overview/), page.click("main button[type=submit]")]);
    const paymentPage = `${stack.url}/dashboard/payments/${parent.session_id}`;
    await page.goto(paymentPage);
    expect(await page.locator("#children [data-pending]").count()).toBe(1);
    // A refresh while signed in keeps the table (the refund is still queued).
    const refreshed = page.waitForResponse((r) => r.url().endsWith("/transactions"));
    expect((await refreshed).status()).toBe(200);
    // 31 minutes without a request: the next refresh meets a signed-out session.
    stack.advance(31 * 60_000);
    await page.waitForURL(/\/dashboard\/sign-in\?next=/, { timeout: 10_000 });
    expect(new URL(page.url()).searchParams.get("next")).toBe(`/dashboard/payments/${parent.session_id}`);
    expect(await page.locator("#f-username").count()).toBe(1);
    expect(await page.locator("#children").count()).toBe(0);
  });
});
