/**
 * The browser view's ends that depend on the loaded session, in Chromium against the real service
 * (test/e2e's environment): every checkout ends in exactly one callback — an expired session, a
 * payment already in progress, an unknown state and a `formsOfPayment` that leaves no option end
 * in `errorCallback` with the customer's words on screen — and the status live region does not
 * keep saying "Loading payment options…" once they are shown.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, launchBrowser } from "../../../test/support/browser.js";
import { CheckoutEnv, type Mounted } from "../../../test/e2e/support/checkout-env.js";

let env: CheckoutEnv;
let arabic: Browser;
beforeAll(async () => {
  env = await CheckoutEnv.start();
  arabic = await launchBrowser({ locale: "ar-KW" });
});
afterAll(async () => {
  await arabic?.close();
  await env?.close();
});

const view = (page: Page) => page.locator(".svc-checkout");
const calls = (page: Page) =>
  page.evaluate(() => (window as unknown as { __calls: [string, Record<string, unknown>][] }).__calls);

/** The view ends on its error screen, and the delegate heard of it exactly once. */
async function endsInError(page: Page) {
  await expect.poll(() => view(page).getAttribute("data-state")).toBe("error");
  await expect.poll(() => calls(page).then((c) => c.length), { timeout: 5000 }).toBe(1);
  await page.waitForTimeout(200);
  const all = await calls(page);
  expect(all).toHaveLength(1);
  return {
    callback: all[0]![0],
    data: all[0]![1],
    outcome: await view(page).getAttribute("data-outcome"),
    shown: (await view(page).locator(".out").textContent()) ?? "",
  };
}

describe("a session that cannot list options ends in errorCallback", () => {
  it("an expired session (GET /v1/checkout/{id} says expired)", async () => {
    const tx = await env.transaction({ expiration_time: 60 });
    // Its time is up, as 70 s later.
    await env.stack.db.query(
      "update transactions set expires_at = now() - interval '10 seconds' where session_id = $1",
      [tx.session_id],
    );
    const { page } = await env.mount({ existing: tx, preload: false });
    const end = await endsInError(page);
    expect(end).toMatchObject({
      callback: "error",
      outcome: "error",
      data: {
        status: "error",
        form_of_payment: "svc_pg",
        session_id: tx.session_id,
        order_no: tx.order_no,
        message:
          "The checkout session's state is expired, so it takes no payment: create a new one with POST /v1/checkout.",
      },
    });
    expect(end.shown).toBe(
      "Payment could not be completedThis checkout has expired.Return to the shop to start a new checkout.",
    );
    expect(await env.state(tx.session_id)).toBe("expired");
    await page.close();
  });

  it("formsOfPayment [tokenPay] without a saved card: nothing to show", async () => {
    const { page, tx } = await env.mount({ formsOfPayment: ["tokenPay"] });
    const end = await endsInError(page);
    expect(end).toMatchObject({
      callback: "error",
      data: { status: "error", form_of_payment: "token_pay", session_id: tx.session_id },
    });
    expect(String(end.data.message)).toMatch(/^No form of payment to show: formsOfPayment/);
    expect(end.shown).toContain("No payment option is available for this checkout.");
    await page.close();
  });

  it("a payment already in progress, and a state the SDK does not know", async () => {
    const tx = await env.transaction();
    await env.stack.db.query("update transactions set state = 'attempted' where session_id = $1", [
      tx.session_id,
    ]);
    const attempted = await env.mount({ existing: tx, preload: false });
    const inProgress = await endsInError(attempted.page);
    expect(inProgress).toMatchObject({ callback: "error", data: { session_id: tx.session_id } });
    expect(String(inProgress.data.message)).toContain("state is attempted");
    expect(inProgress.shown).toContain("A payment for this checkout is already in progress.");
    await attempted.page.close();

    const fresh = await env.transaction();
    const preload = { ...(fresh.sdk_setup_preload_payload as object), state: "on_hold" };
    const unknown = await env.mount({ existing: { ...fresh, sdk_setup_preload_payload: preload } });
    const other = await endsInError(unknown.page);
    expect(String(other.data.message)).toContain("state is on_hold");
    expect(other.shown).toContain("This checkout has already ended.");
    await unknown.page.close();
  });

  it("in Arabic: the customer's words in Arabic, the developer's message unchanged", async () => {
    const { page } = await env.mount({
      browser: arabic,
      formsOfPayment: ["tokenPay"],
      tx: { language: "ar" },
    });
    const end = await endsInError(page);
    expect(end.shown).toContain("لا توجد وسيلة دفع متاحة لعملية الدفع هذه.");
    expect(String(end.data.message)).toMatch(/^No form of payment to show/);
    await page.close();
  });
});

describe("the status live region", () => {
  const status = (m: Mounted) => m.page.locator(".svc-checkout [role=status]").textContent();

  it("says the options are loading while they load, and nothing stale once they are shown", async () => {
    const tx = await env.transaction();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const mounted = await env.mount({
      existing: tx,
      preload: false,
      waitReady: false,
      beforeGoto: (p) =>
        p.route(`**/v1/checkout/${tx.session_id}`, async (route) => {
          await held;
          await route.continue();
        }),
    });
    await expect.poll(() => status(mounted)).toBe("Loading payment options…");
    release();
    await expect.poll(() => view(mounted.page).getAttribute("data-state")).toBe("options");
    expect(await view(mounted.page).getAttribute("aria-busy")).toBe("false");
    expect(await status(mounted)).toBe("");
    await mounted.page.close();
  });
});
