import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  apiKey,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";

describe.each(STORES)("SDK payments on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(() => stack.close());

  const pay = (sessionId: string, body: Record<string, unknown>) =>
    api(stack, "POST", `/v1/checkout/${sessionId}/payments`, { auth: apiKey(m.publicKey), body });
  const otp = (sessionId: string, otpReference: string, code: string) =>
    api(stack, "POST", `/v1/checkout/${sessionId}/payments/otp`, {
      auth: apiKey(m.publicKey),
      body: { otp_reference: otpReference, otp: code },
    });
  const status = async (sessionId: string) =>
    (await api(stack, "GET", `/v1/payments/${sessionId}`, { auth: apiKey(m.privateKey) })).json;

  it("wallet_b_pay: mobile number, then OTP 123456 → paid, with the callback data of the contract", async () => {
    const tx = (await createTransaction(stack, m, { order_no: `wb-${Date.now()}` })).json;
    const first = await pay(tx.session_id, {
      form_of_payment: "wallet_b_pay",
      pg_code: m.pg.sandbox,
      mobile_number: "96551234567",
    });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      status: "otp_required",
      form_of_payment: "wallet_b_pay",
      session_id: tx.session_id,
    });
    expect((await status(tx.session_id)).state).toBe("attempted");
    const done = await otp(tx.session_id, first.json.otp_reference, "123456");
    expect(done.status).toBe(200);
    expect(done.json).toEqual({
      status: "success",
      message: "Payment successful",
      form_of_payment: "wallet_b_pay",
      session_id: tx.session_id,
      order_no: tx.order_no,
      payment_gateway_info: {
        pg_code: m.pg.sandbox,
        pg_name: "sandbox",
        pg_response: expect.objectContaining({ is_sandbox: true }),
      },
    });
    const paid = await status(tx.session_id);
    expect(paid).toMatchObject({
      state: "paid",
      form_of_payment: "wallet_b_pay",
      pg_code: m.pg.sandbox,
      captured_amount: "10.500",
      refundable_amount: "10.500",
      transactions: [],
    });
  });

  it("wallet_b_pay: a wrong code can be retried; the third wrong code fails the payment", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const first = await pay(tx.session_id, {
      form_of_payment: "wallet_b_pay",
      pg_code: m.pg.sandbox,
      mobile_number: "96551234567",
    });
    const wrong = await otp(tx.session_id, first.json.otp_reference, "000000");
    expect(wrong.status).toBe(422);
    expect(wrong.json.code).toBe("invalid_otp");
    expect((await status(tx.session_id)).state).toBe("attempted");
    await otp(tx.session_id, first.json.otp_reference, "000000");
    const third = await otp(tx.session_id, first.json.otp_reference, "000000");
    expect(third.json).toMatchObject({ status: "canceled", message: "The payment was declined" });
    expect((await status(tx.session_id)).state).toBe("failed");
  });

  it("wallet_b_pay: a number ending in 0000 is declined after the code", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const first = await pay(tx.session_id, {
      form_of_payment: "wallet_b_pay",
      pg_code: m.pg.sandbox,
      mobile_number: "96551230000",
    });
    const done = await otp(tx.session_id, first.json.otp_reference, "123456");
    expect(done.json).toMatchObject({ status: "canceled", payment_gateway_info: { pg_name: "sandbox" } });
    expect((await status(tx.session_id)).state).toBe("failed");
  });

  it("wallet_a_pay: a payment token pays; 'decline' is declined", async () => {
    const ok = (await createTransaction(stack, m)).json;
    const r = await pay(ok.session_id, {
      form_of_payment: "wallet_a_pay",
      pg_code: m.pg.sandbox,
      payment_token: "tok-from-device",
    });
    expect(r.json).toMatchObject({ status: "success", form_of_payment: "wallet_a_pay" });
    expect((await status(ok.session_id)).state).toBe("paid");
    const bad = (await createTransaction(stack, m)).json;
    const d = await pay(bad.session_id, {
      form_of_payment: "wallet_a_pay",
      pg_code: m.pg.sandbox,
      payment_token: "decline",
    });
    expect(d.json.status).toBe("canceled");
    expect((await status(bad.session_id)).state).toBe("failed");
  });

  it("an authorize gateway setting makes the payment authorized", async () => {
    const tx = (await createTransaction(stack, m, { pg_codes: [m.pg.authorize] })).json;
    expect(tx.operation).toBe("authorize");
    const r = await pay(tx.session_id, {
      form_of_payment: "wallet_a_pay",
      pg_code: m.pg.authorize,
      payment_token: "t",
    });
    expect(r.json.status).toBe("success");
    expect(await status(tx.session_id)).toMatchObject({
      state: "authorized",
      captured_amount: "0.000",
      capturable_amount: "10.500",
    });
  });

  it("redirect (ndebit): gateway page, decline → failed with the gateway's pg_response", async () => {
    const tx = (await createTransaction(stack, m, { pg_codes: [m.pg.ndebit] })).json;
    const r = await pay(tx.session_id, { form_of_payment: "redirect", pg_code: m.pg.ndebit });
    expect(r.json).toMatchObject({ status: "redirect", form_of_payment: "redirect" });
    expect(r.json.redirect_url.startsWith(stack.gatewayUrl)).toBe(true);
    const page = await fetch(r.json.redirect_url);
    const html = await page.text();
    expect(html).toContain('<form method="post"');
    expect(html).toContain('name="action" value="decline"');
    const submitted = await fetch(r.json.redirect_url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "action=decline",
      redirect: "manual",
    });
    expect(submitted.status).toBe(303);
    const back = submitted.headers.get("location")!;
    expect(back.startsWith(`${stack.url}/pay/${tx.session_id}/return`)).toBe(true);
    const returned = await fetch(back, { redirect: "manual" });
    expect(returned.status).toBe(200);
    expect(await returned.text()).toContain("Payment failed");
    const s = await status(tx.session_id);
    expect(s.state).toBe("failed");
    expect(s.pg_response).toMatchObject({ result: "NOT CAPTURED" });
  });

  it("payments/result: pending while on the gateway page, then the cancel callback data with pg_response", async () => {
    const tx = (await createTransaction(stack, m, { pg_codes: [m.pg.ndebit], order_no: `nd-${Date.now()}` }))
      .json;
    const result = () =>
      api(stack, "GET", `/v1/checkout/${tx.session_id}/payments/result`, { auth: apiKey(m.publicKey) });
    expect((await result()).json).toEqual({ status: "pending", state: "created", session_id: tx.session_id });
    const r = await pay(tx.session_id, { form_of_payment: "redirect", pg_code: m.pg.ndebit });
    expect((await result()).json).toMatchObject({ status: "pending", state: "attempted" });
    const submitted = await fetch(r.json.redirect_url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "action=decline",
      redirect: "manual",
    });
    await fetch(submitted.headers.get("location")!, { redirect: "manual" });
    const final = await result();
    expect(final.headers.get("access-control-allow-origin")).toBe("*");
    expect(final.json).toEqual({
      status: "canceled",
      message: "The payment was declined",
      form_of_payment: "redirect",
      session_id: tx.session_id,
      order_no: tx.order_no,
      payment_gateway_info: {
        pg_code: m.pg.ndebit,
        pg_name: "ndebit",
        pg_response: expect.objectContaining({ result: "NOT CAPTURED" }),
      },
    });
  });

  it.each([
    ["queued", "approve", "paid", "Payment successful"],
    ["ndebit", "cancel", "canceled", "Payment cancelled"],
  ] as const)("redirect (%s): %s on the gateway page → %s", async (gateway, action, state, heading) => {
    const pgCode = m.pg[gateway];
    const tx = (await createTransaction(stack, m, { pg_codes: [pgCode] })).json;
    const r = await pay(tx.session_id, { form_of_payment: "redirect", pg_code: pgCode });
    const submitted = await fetch(r.json.redirect_url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `action=${action}`,
      redirect: "manual",
    });
    const returned = await fetch(submitted.headers.get("location")!, { redirect: "manual" });
    expect(await returned.text()).toContain(heading);
    expect((await status(tx.session_id)).state).toBe(state);
  });

  it("replays a payment call with the same Idempotency-Key instead of paying twice", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const body = { form_of_payment: "wallet_a_pay", pg_code: m.pg.sandbox, payment_token: "t" };
    const headers = { "idempotency-key": `pay-${tx.session_id}` };
    const first = await api(stack, "POST", `/v1/checkout/${tx.session_id}/payments`, {
      auth: apiKey(m.publicKey),
      body,
      headers,
    });
    const second = await api(stack, "POST", `/v1/checkout/${tx.session_id}/payments`, {
      auth: apiKey(m.publicKey),
      body,
      headers,
    });
    expect(first.json.status).toBe("success");
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
  });

  it("token_pay refuses a token that is not the customer's", async () => {
    const tx = (await createTransaction(stack, m, { customer_id: "cust-x" })).json;
    const r = await pay(tx.session_id, {
      form_of_payment: "token_pay",
      pg_code: m.pg.sandbox,
      token: "tok_nope",
    });
    expect(r.status).toBe(422);
    expect(r.json.code).toBe("invalid_token");
    expect((await status(tx.session_id)).state).toBe("created");
    // No token at all is a missing field, said so.
    const none = await pay(tx.session_id, { form_of_payment: "token_pay", pg_code: m.pg.sandbox });
    expect(none.status).toBe(422);
    expect(none.json.errors).toEqual({ token: ["is required for token_pay"] });
  });

  it("refuses a form of payment the gateway lacks and a second payment on a paid session", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const wrong = await pay(tx.session_id, { form_of_payment: "redirect", pg_code: m.pg.sandbox });
    expect(wrong.status).toBe(422);
    expect(wrong.json.code).toBe("form_of_payment_not_available");
    await pay(tx.session_id, { form_of_payment: "wallet_a_pay", pg_code: m.pg.sandbox, payment_token: "t" });
    const again = await pay(tx.session_id, {
      form_of_payment: "wallet_a_pay",
      pg_code: m.pg.sandbox,
      payment_token: "t",
    });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("invalid_state");
  });

  it("svc_pg sends the customer to the card page only for a gateway the transaction offers that takes cards there", async () => {
    const tx = (await createTransaction(stack, m, { pg_codes: [m.pg.sandbox, m.pg.ndebit] })).json;
    const card = await pay(tx.session_id, { form_of_payment: "svc_pg", pg_code: m.pg.sandbox });
    expect(card.status).toBe(200);
    expect(card.json.redirect_url).toContain(`/pay/${tx.session_id}?pg_code=`);
    // A pg_code the transaction does not offer, and one whose gateway has no card page: both led
    // to a page that does not exist.
    for (const [pgCode, field] of [
      ["doesnotexist", "pg_code"],
      [m.pg.ndebit, "form_of_payment"],
    ] as const) {
      const r = await pay(tx.session_id, { form_of_payment: "svc_pg", pg_code: pgCode });
      expect(r.status).toBe(422);
      expect(r.json.code).toBe("form_of_payment_not_available");
      expect(Object.keys(r.json.errors)).toEqual([field]);
    }
  });
});
