/**
 * Every form of payment through the SDK in Chromium, against the real service and sandbox
 * gateway, from a merchant page on another origin: success and failure, exact callback data.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CheckoutEnv, callback, option } from "./support/checkout-env.js";

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
    const wallet = option(page, "wallet_b_pay");
    await wallet.locator("input[name=mobile_number]").fill("96551234567");
    await wallet.getByRole("button", { name: "Send code" }).click();
    await wallet.locator("input[name=otp]").fill("123456");
    await wallet.getByRole("button", { name: "Pay" }).click();
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
    const wallet = option(page, "wallet_b_pay");
    expect(await wallet.locator("input[name=mobile_number]").inputValue()).toBe("+96551230000");
    await wallet.getByRole("button", { name: "Send code" }).click();
    await wallet.locator("input[name=otp]").fill("000000");
    await wallet.getByRole("button", { name: "Pay" }).click();
    await wallet.getByText("The code is not correct. Try again.").waitFor();
    await wallet.locator("input[name=otp]").fill("123456");
    await wallet.getByRole("button", { name: "Pay" }).click();
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
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("start again with a new checkout");
    expect(await wallet.getByRole("button", { name: "Pay" }).isDisabled()).toBe(true);
    await page.close();
  });
});
