/**
 * Every form of payment through the SDK in Chromium, against the real service and sandbox
 * gateway, from a merchant page on another origin: success and failure, exact callback data.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CheckoutEnv, callback, choose, option } from "./support/checkout-env.js";

let env: CheckoutEnv;
beforeAll(async () => {
  env = await CheckoutEnv.start();
});
afterAll(() => env?.close());

const gatewayInfo = (pgCode: string, pgName: string, response: Record<string, unknown> = {}) => ({
  pg_code: pgCode,
  pg_name: pgName,
  pg_response: expect.objectContaining(response),
});

describe("walletBPay", () => {
  it("number then code 123456 → successCallback with the contract's data", async () => {
    const { page, tx } = await env.mount();
    await choose(page, "wallet_b_pay");
    const wallet = option(page, "wallet_b_pay");
    await wallet.locator("input[name=mobile_number]").fill("96551234567");
    await wallet.getByRole("button", { name: "Send code" }).click();
    await wallet.locator("input[name=otp]").fill("123456");
    await wallet.getByRole("button", { name: "Pay 10.500 KWD" }).click();
    expect(await callback(page)).toEqual([
      "success",
      {
        status: "success",
        message: "Payment successful",
        form_of_payment: "wallet_b_pay",
        session_id: tx.session_id,
        order_no: tx.order_no,
        payment_gateway_info: gatewayInfo(env.merchant.pg.sandbox, "sandbox", { is_sandbox: true }),
      },
    ]);
    expect(await env.state(tx.session_id)).toBe("paid");
    await expect.poll(() => page.locator(".svc-checkout").getAttribute("data-outcome")).toBe("success");
    await page.close();
  });

  it("a number ending 0000 is declined → cancelCallback; a wrong code first asks again", async () => {
    const { page, tx } = await env.mount({ tx: { customer_phone: "+96551230000" } });
    await choose(page, "wallet_b_pay");
    const wallet = option(page, "wallet_b_pay");
    expect(await wallet.locator("input[name=mobile_number]").inputValue()).toBe("+96551230000");
    await wallet.getByRole("button", { name: "Send code" }).click();
    await wallet.locator("input[name=otp]").fill("000000");
    await wallet.getByRole("button", { name: "Pay 10.500 KWD" }).click();
    await wallet.getByText("The code is not correct. Try again.").waitFor();
    await wallet.locator("input[name=otp]").fill("123456");
    await wallet.getByRole("button", { name: "Pay 10.500 KWD" }).click();
    expect(await callback(page)).toEqual([
      "cancel",
      {
        status: "canceled",
        message: "The payment was declined",
        form_of_payment: "wallet_b_pay",
        session_id: tx.session_id,
        order_no: tx.order_no,
        payment_gateway_info: gatewayInfo(env.merchant.pg.sandbox, "sandbox", { result: "DECLINED" }),
      },
    ]);
    // The outcome screen replaces the options: what happened, and the way forward.
    const outcome = page.locator(".svc-checkout .out.declined");
    await outcome.waitFor();
    expect(await outcome.textContent()).toContain("start again with a new checkout");
    expect(await wallet.isVisible()).toBe(false);
    await page.close();
  });
});

describe("walletAPay (a device wallet faked in the page)", () => {
  it("supported with cards: the wallet's token pays → successCallback", async () => {
    const { page, tx } = await env.mount({ wallet: "supported" });
    await choose(page, "wallet_a_pay");
    await option(page, "wallet_a_pay").getByRole("button", { name: "Pay with device wallet" }).click();
    expect(await callback(page)).toEqual([
      "success",
      {
        status: "success",
        message: "Payment successful",
        form_of_payment: "wallet_a_pay",
        session_id: tx.session_id,
        order_no: tx.order_no,
        payment_gateway_info: gatewayInfo(env.merchant.pg.sandbox, "sandbox", { is_sandbox: true }),
      },
    ]);
    const wallet = await page.evaluate(
      () => (window as unknown as { __walletA: Record<string, unknown> }).__walletA,
    );
    expect(wallet).toMatchObject({
      completed: true,
      request: { currencyCode: "KWD", total: { label: tx.order_no, amount: "10.500" } },
    });
    await page.close();
  });

  it("a declined token → cancelCallback, and the sheet is told it failed", async () => {
    const { page, tx } = await env.mount({ wallet: "supported" });
    await page.evaluate(() => {
      (window as unknown as { __walletA: { token: string } }).__walletA.token = "decline";
    });
    await choose(page, "wallet_a_pay");
    await option(page, "wallet_a_pay").getByRole("button", { name: "Pay with device wallet" }).click();
    expect(await callback(page)).toEqual([
      "cancel",
      {
        status: "canceled",
        message: "The payment was declined",
        form_of_payment: "wallet_a_pay",
        session_id: tx.session_id,
        order_no: tx.order_no,
        payment_gateway_info: gatewayInfo(env.merchant.pg.sandbox, "sandbox", { result: "DECLINED" }),
      },
    ]);
    expect(
      await page.evaluate(
        () => (window as unknown as { __walletA: { completed: boolean } }).__walletA.completed,
      ),
    ).toBe(false);
    await page.close();
  });

  it("no cards: a Setup button opens the wallet's setup, then the pay button shows", async () => {
    const { page } = await env.mount({ wallet: "nocards" });
    await choose(page, "wallet_a_pay");
    const wallet = option(page, "wallet_a_pay");
    await wallet.getByText("Add a card to your device wallet to pay with it.").waitFor();
    expect(await wallet.getByRole("button", { name: "Pay with device wallet" }).count()).toBe(0);
    await wallet.getByRole("button", { name: "Set up device wallet" }).click();
    await wallet.getByRole("button", { name: "Pay with device wallet" }).waitFor();
    expect(
      await page.evaluate(
        () => (window as unknown as { __walletA: { setupOpened: number } }).__walletA.setupOpened,
      ),
    ).toBe(1);
    await page.close();
  });

  it("unsupported: one line, no button and nothing to select", async () => {
    const { page } = await env.mount({ wallet: "unsupported" });
    const wallet = option(page, "wallet_a_pay");
    expect(await wallet.textContent()).toBe("Device wallet: not supported on this device.");
    expect(await wallet.getAttribute("data-wallet-status")).toBe("unsupported");
    expect(await wallet.locator("button, input").count()).toBe(0);
    await page.close();
  });
});

async function payOnCardPage(page: import("playwright-core").Page, number: string, save = false) {
  const popupOpened = page.waitForEvent("popup");
  await choose(page, "svc_pg");
  await option(page, "svc_pg").getByRole("button", { name: "Continue to card payment" }).click();
  const popup = await popupOpened;
  await popup.waitForURL(/\/pay\/sess_/);
  await popup.locator("input[name=number]").fill(number);
  await popup.locator("input[name=expiry]").fill("12/39");
  await popup.locator("input[name=cvc]").fill("123");
  if (save) await popup.locator("input[name=save_card]").check();
  await popup.locator("form button[type=submit]").click();
  return popup;
}

describe("svcPG (the hosted card page in a window of its own)", () => {
  it("4242… → successCallback, and the window closes", async () => {
    const { page, tx } = await env.mount();
    const popup = await payOnCardPage(page, "4242 4242 4242 4242");
    expect(await callback(page)).toEqual([
      "success",
      {
        status: "success",
        message: "Payment successful",
        form_of_payment: "svc_pg",
        session_id: tx.session_id,
        order_no: tx.order_no,
        payment_gateway_info: gatewayInfo(env.merchant.pg.sandbox, "sandbox", { is_sandbox: true }),
      },
    ]);
    await expect.poll(() => popup.isClosed()).toBe(true);
    await page.close();
  });

  it("4000 0000 0000 0002 → cancelCallback", async () => {
    const { page, tx } = await env.mount();
    await payOnCardPage(page, "4000 0000 0000 0002");
    expect(await callback(page)).toEqual([
      "cancel",
      {
        status: "canceled",
        message: "The payment was declined",
        form_of_payment: "svc_pg",
        session_id: tx.session_id,
        order_no: tx.order_no,
        payment_gateway_info: gatewayInfo(env.merchant.pg.sandbox, "sandbox"),
      },
    ]);
    expect(await env.state(tx.session_id)).toBe("failed");
    await page.close();
  });
});

describe("svcPG with a card challenge", () => {
  it("4000 0000 0000 3220: the challenge page in the same window, then success with challenge_occurred", async () => {
    const { page, tx } = await env.mount();
    const popup = await payOnCardPage(page, "4000 0000 0000 3220");
    await popup.waitForURL((url) => url.href.startsWith(env.stack.gatewayUrl));
    await popup.locator("button[name=action][value=approve]").click();
    expect(await callback(page)).toEqual([
      "success",
      {
        status: "success",
        message: "Payment successful",
        form_of_payment: "svc_pg",
        session_id: tx.session_id,
        order_no: tx.order_no,
        challenge_occurred: true,
        payment_gateway_info: gatewayInfo(env.merchant.pg.sandbox, "sandbox", { is_sandbox: true }),
      },
    ]);
    await page.close();
  });
});

describe("tokenPay (saved cards of the customer)", () => {
  it("a card saved on the card page pays the next checkout → successCallback", async () => {
    const customer = { customer_id: `cust-${Date.now()}` };
    const first = await env.mount({ tx: customer });
    await payOnCardPage(first.page, "4242 4242 4242 4242", true);
    expect((await callback(first.page))[0]).toBe("success");
    await first.page.close();

    const { page, tx } = await env.mount({ tx: customer });
    // The saved card is the first option, already selected: one button pays.
    expect(await page.locator(".op").first().getAttribute("data-form-of-payment")).toBe("token_pay");
    expect(await page.locator(".op").first().locator(".t").textContent()).toBe("VISA ending 4242");
    await option(page, "token_pay").getByRole("button", { name: "Pay 10.500 KWD" }).click();
    expect(await callback(page)).toEqual([
      "success",
      {
        status: "success",
        message: "Payment successful",
        form_of_payment: "token_pay",
        session_id: tx.session_id,
        order_no: tx.order_no,
        payment_gateway_info: gatewayInfo(env.merchant.pg.sandbox, "sandbox", { is_sandbox: true }),
      },
    ]);
    expect(await env.state(tx.session_id)).toBe("paid");
    await page.close();
  });

  it("a session that can no longer pay → errorCallback with the service's message", async () => {
    const customer = { customer_id: `cust-${Date.now()}` };
    const first = await env.mount({ tx: customer });
    await payOnCardPage(first.page, "4242 4242 4242 4242", true);
    await callback(first.page);
    await first.page.close();
    const { page, tx } = await env.mount({ tx: customer });
    // The session is paid elsewhere (another tab) while this view still shows it as payable.
    const other = await env.browser.context.newPage();
    await other.goto(`${env.stack.url}/pay/${tx.session_id}`);
    await other.locator("input[name=number]").fill("4242424242424242");
    await other.locator("input[name=expiry]").fill("12/39");
    await other.locator("input[name=cvc]").fill("123");
    await other.locator("form button[type=submit]").click();
    await expect.poll(() => env.state(tx.session_id)).toBe("paid");
    await option(page, "token_pay").getByRole("button", { name: "Pay 10.500 KWD" }).click();
    expect(await callback(page)).toEqual([
      "error",
      {
        status: "error",
        message:
          "This transaction is paid and takes no further payment. Create a new checkout session to pay again.",
        form_of_payment: "token_pay",
        session_id: tx.session_id,
        order_no: tx.order_no,
      },
    ]);
    await other.close();
    await page.close();
  });
});

describe("redirect (national debit gateway page)", () => {
  async function onGatewayPage(action: "approve" | "decline") {
    const mounted = await env.mount({ tx: { pg_codes: [env.merchant.pg.ndebit] } });
    const popupOpened = mounted.page.waitForEvent("popup");
    await choose(mounted.page, "redirect");
    await option(mounted.page, "redirect").getByRole("button", { name: "Continue to payment page" }).click();
    const popup = await popupOpened;
    await popup.waitForURL((url) => url.href.startsWith(env.stack.gatewayUrl));
    await popup.locator(`button[name=action][value=${action}]`).click();
    return mounted;
  }

  it("Approve → successCallback", async () => {
    const { page, tx } = await onGatewayPage("approve");
    expect(await callback(page)).toEqual([
      "success",
      {
        status: "success",
        message: "Payment successful",
        form_of_payment: "redirect",
        session_id: tx.session_id,
        order_no: tx.order_no,
        payment_gateway_info: gatewayInfo(env.merchant.pg.ndebit, "ndebit"),
      },
    ]);
    await page.close();
  });

  it("Decline → cancelCallback with the gateway's pg_response; the popup helper shows pg_response", async () => {
    const { page, tx } = await onGatewayPage("decline");
    const [name, data] = await callback(page);
    expect([name, data]).toEqual([
      "cancel",
      {
        status: "canceled",
        message: "The payment was declined",
        form_of_payment: "redirect",
        session_id: tx.session_id,
        order_no: tx.order_no,
        payment_gateway_info: gatewayInfo(env.merchant.pg.ndebit, "ndebit", { result: "NOT CAPTURED" }),
      },
    ]);
    await page.evaluate((d) => {
      const sdk = (
        window as unknown as { SvcCheckout: { Checkout: { cancelPopupHandler(): (d: unknown) => void } } }
      ).SvcCheckout;
      sdk.Checkout.cancelPopupHandler()(d);
    }, data);
    const dialog = page.locator("dialog[open]");
    await dialog.waitFor();
    // A receipt: pg_response as translated label/value rows, never raw JSON.
    const rows = await dialog.locator("dt").allTextContents();
    expect(rows).toEqual(expect.arrayContaining(["Result", "Authorization code", "Test payment"]));
    expect(await dialog.locator("dd").allTextContents()).toContain("NOT CAPTURED");
    expect(await dialog.textContent()).not.toContain("{");
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator("dialog").count()).toBe(0);
    await page.close();
  });
});

describe("coming back to a finished session", () => {
  it("a view built for a session paid meanwhile (the whole page went to the card page) reports the outcome", async () => {
    const first = await env.mount();
    const popup = await payOnCardPage(first.page, "4242 4242 4242 4242");
    await callback(first.page);
    await first.page.close();
    expect(popup.isClosed()).toBe(true);
    const { page, tx, requests } = await env.mount({ existing: first.tx, preload: false });
    expect(await callback(page)).toEqual([
      "success",
      {
        status: "success",
        message: "Payment successful",
        form_of_payment: "svc_pg",
        session_id: tx.session_id,
        order_no: tx.order_no,
        payment_gateway_info: gatewayInfo(env.merchant.pg.sandbox, "sandbox", { is_sandbox: true }),
      },
    ]);
    expect(requests.filter((r) => r.url().includes("/payments") && r.method() === "POST")).toHaveLength(0);
    expect(await page.locator("[data-form-of-payment]").count()).toBe(0);
    expect(await page.locator(".svc-checkout .out.success").textContent()).toContain("Payment successful");
    await page.close();
  });
});

describe("a network blip", () => {
  it("a payment call that fails to connect is sent again with the same Idempotency-Key, and pays once", async () => {
    const { page, tx } = await env.mount();
    const keys: string[] = [];
    let dropped = false;
    await page.route(`**/v1/checkout/${tx.session_id}/payments`, async (route) => {
      keys.push(route.request().headers()["idempotency-key"] ?? "");
      // The first try never reaches the service, as when the connection drops.
      if (!dropped) {
        dropped = true;
        return route.abort("connectionreset");
      }
      return route.continue();
    });
    await choose(page, "wallet_b_pay");
    const wallet = option(page, "wallet_b_pay");
    await wallet.locator("input[name=mobile_number]").fill("96551234567");
    await wallet.getByRole("button", { name: "Send code" }).click();
    await wallet.locator("input[name=otp]").fill("123456");
    await wallet.getByRole("button", { name: "Pay 10.500 KWD" }).click();
    expect((await callback(page))[0]).toBe("success");
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{32,36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(await env.state(tx.session_id)).toBe("paid");
    await page.close();
  });
});
