/**
 * The payment window's whole life, in Chromium against the real service and sandbox gateway:
 * every kind of window (the card page, the card challenge, the national debit bank page) closed
 * without a result leads to the "window closed" state; Reopen works; Choose another way gives
 * the options back while no payment started; a payment finished in a window closed right after
 * is still reported through successCallback.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CheckoutEnv, callback, choose, option } from "./support/checkout-env.js";

let env: CheckoutEnv;
beforeAll(async () => {
  env = await CheckoutEnv.start();
});
afterAll(() => env?.close());

const state = (page: Page) => page.locator(".svc-checkout").getAttribute("data-state");
const banner = (page: Page) => page.locator(".svc-checkout .bn");

async function openWindow(page: Page, form: "svc_pg" | "redirect"): Promise<Page> {
  await choose(page, form);
  const opened = page.waitForEvent("popup");
  const name = form === "svc_pg" ? "Continue to card payment" : "Continue to payment page";
  await option(page, form).getByRole("button", { name }).click();
  const popup = await opened;
  await popup.waitForLoadState();
  return popup;
}

async function fillCard(popup: Page, number: string) {
  await popup.waitForURL(/\/pay\/sess_/);
  await popup.locator("input[name=number]").fill(number);
  await popup.locator("input[name=expiry]").fill("12/39");
  await popup.locator("input[name=cvc]").fill("123");
  await popup.locator("#card-form button[type=submit]").click();
}

async function reopen(page: Page): Promise<Page> {
  const opened = page.waitForEvent("popup");
  await banner(page).getByRole("button", { name: "Reopen" }).click();
  const popup = await opened;
  await popup.waitForLoadState();
  return popup;
}

describe("the card page window", () => {
  it("waiting: a banner with progress sits at the top of the view, in sight", async () => {
    const { page } = await env.mount();
    await page.setViewportSize({ width: 1280, height: 900 });
    const popup = await openWindow(page, "svc_pg");
    await expect.poll(() => state(page), { timeout: 8000 }).toBe("waiting");
    expect(await banner(page).getByText("Waiting for your payment").isVisible()).toBe(true);
    const box = await banner(page).boundingBox();
    expect(box!.y + box!.height).toBeLessThan(900);
    // The banner is the first thing in the view, above the title and the options.
    expect(
      await page
        .locator(".svc-checkout")
        .evaluate((h) => h.shadowRoot!.querySelector(".r")!.firstElementChild!.className),
    ).toBe("bn");
    expect(
      await page.locator(".svc-checkout fieldset").evaluate((f) => (f as HTMLFieldSetElement).disabled),
    ).toBe(true);
    await popup.close();
    await page.close();
  });

  it("closed before paying: the view says so, Choose another way gives the options back", async () => {
    const { page } = await env.mount();
    const popup = await openWindow(page, "svc_pg");
    await popup.close();
    await expect.poll(() => state(page), { timeout: 8000 }).toBe("closed");
    expect(await banner(page).textContent()).toContain("The payment window was closed");
    await banner(page).getByRole("button", { name: "Choose another way" }).click();
    expect(await state(page)).toBe("options");
    expect(await banner(page).isVisible()).toBe(false);
    expect(
      await page.locator(".svc-checkout fieldset").evaluate((f) => (f as HTMLFieldSetElement).disabled),
    ).toBe(false);
    // Another way indeed: the mobile wallet pays.
    await choose(page, "wallet_b_pay");
    const wallet = option(page, "wallet_b_pay");
    await wallet.locator("input[name=mobile_number]").fill("96551234567");
    await wallet.getByRole("button", { name: "Send code" }).click();
    await wallet.locator("input[name=otp]").fill("123456");
    await wallet.getByRole("button", { name: "Pay 10.500 KWD" }).click();
    expect((await callback(page))[0]).toBe("success");
    await page.close();
  });

  it("closed, then Reopen: the card page again, and the payment is reported", async () => {
    const { page, tx } = await env.mount();
    const first = await openWindow(page, "svc_pg");
    await first.close();
    await expect.poll(() => state(page), { timeout: 8000 }).toBe("closed");
    const popup = await reopen(page);
    expect(await state(page)).toBe("waiting");
    await fillCard(popup, "4242 4242 4242 4242");
    expect(await callback(page)).toMatchObject([
      "success",
      { session_id: tx.session_id, form_of_payment: "svc_pg" },
    ]);
    await expect.poll(() => state(page), { timeout: 8000 }).toBe("success");
    await page.close();
  });
});

describe("the card challenge window", () => {
  it("closed on the challenge: bound to that payment (Reopen only), Reopen goes back to the challenge", async () => {
    const { page, tx } = await env.mount();
    const popup = await openWindow(page, "svc_pg");
    await fillCard(popup, "4000 0000 0000 3220");
    await popup.waitForURL((url) => url.href.startsWith(env.stack.gatewayUrl));
    await popup.close();
    await expect.poll(() => state(page), { timeout: 8000 }).toBe("closed");
    expect(await banner(page).getByRole("button", { name: "Choose another way" }).count()).toBe(0);
    expect(await banner(page).textContent()).toContain("Your payment was started there");
    const again = await reopen(page);
    await again.waitForURL((url) => url.href.startsWith(env.stack.gatewayUrl));
    await again.locator("button[name=action][value=approve]").click();
    expect(await callback(page)).toMatchObject([
      "success",
      { session_id: tx.session_id, challenge_occurred: true },
    ]);
    await page.close();
  });
});

describe("the national debit bank page window", () => {
  const ndebit = () => ({ tx: { pg_codes: [env.merchant.pg.ndebit] } });

  it("closed without acting, Reopen, Approve → successCallback", async () => {
    const { page, tx } = await env.mount(ndebit());
    const popup = await openWindow(page, "redirect");
    await popup.waitForURL((url) => url.href.startsWith(env.stack.gatewayUrl));
    await popup.close();
    await expect.poll(() => state(page), { timeout: 8000 }).toBe("closed");
    // The bank page started a payment: the checkout stays bound to it.
    expect(await banner(page).getByRole("button", { name: "Choose another way" }).count()).toBe(0);
    const again = await reopen(page);
    await again.waitForURL((url) => url.href.startsWith(env.stack.gatewayUrl));
    await again.locator("button[name=action][value=approve]").click();
    expect(await callback(page)).toMatchObject([
      "success",
      { session_id: tx.session_id, form_of_payment: "redirect" },
    ]);
    await page.close();
  });

  it("approved, and the window closed before it came back to svc: still reported through successCallback", async () => {
    const { page, tx } = await env.mount(ndebit());
    const popup = await openWindow(page, "redirect");
    await popup.waitForURL((url) => url.href.startsWith(env.stack.gatewayUrl));
    // The window never reaches svc's return page: the customer closed it at once.
    await popup.route("**/pay/*/return", (route) => route.abort());
    await popup.locator("button[name=action][value=approve]").click();
    await popup.close();
    expect(await callback(page)).toMatchObject(["success", { session_id: tx.session_id }]);
    expect(await env.state(tx.session_id)).toBe("paid");
    await page.close();
  });
});
