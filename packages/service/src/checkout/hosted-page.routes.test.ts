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

const FUTURE_EXPIRY = `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, "0")}`;

describe.each(STORES)("hosted card page on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(() => stack.close());

  const submit = (sessionId: string, fields: Record<string, string>) =>
    fetch(`${stack.url}/pay/${sessionId}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        pg_code: m.pg.sandbox,
        expiry: FUTURE_EXPIRY,
        cvc: "123",
        ...fields,
      }).toString(),
      redirect: "manual",
    });
  const status = async (sessionId: string) =>
    (await api(stack, "GET", `/v1/payments/${sessionId}`, { auth: apiKey(m.privateKey) })).json;

  it("renders an accessible form in English and in Arabic right-to-left, and opening it makes the session pending", async () => {
    const en = (await createTransaction(stack, m)).json;
    const page = await fetch(en.checkout_url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain('<html lang="en" dir="ltr">');
    expect(html).toContain('<label for="number">Card number</label>');
    expect(html).toContain('autocomplete="cc-number" dir="ltr"');
    expect(html).not.toContain("<script");
    expect((await status(en.session_id)).state).toBe("pending");
    const ar = (await createTransaction(stack, m, { language: "ar" })).json;
    const arHtml = await (await fetch(ar.checkout_url)).text();
    expect(arHtml).toContain('<html lang="ar" dir="rtl">');
    expect(arHtml).toContain("رقم البطاقة");
  });

  it("shows field errors in the page's language and keeps the session payable", async () => {
    const tx = (await createTransaction(stack, m, { language: "ar" })).json;
    const r = await submit(tx.session_id, { number: "4242 4242 4242 4241", expiry: "13/20", cvc: "1" });
    expect(r.status).toBe(422);
    const html = await r.text();
    expect(html).toContain('role="alert"');
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain("أدخل رقم البطاقة");
    expect(html).toContain('value="4242 4242 4242 4241"');
    expect((await status(tx.session_id)).state).toBe("pending");
  });

  it("4242… pays, redirects to the merchant's redirect_url and saves the card for token_pay", async () => {
    const customer = `cust-${Date.now()}`;
    const tx = (
      await createTransaction(stack, m, {
        customer_id: customer,
        redirect_url: "https://shop.example.com/done?x=1",
      })
    ).json;
    const r = await submit(tx.session_id, {
      number: "4242 4242 4242 4242",
      holder: "Sara Ali",
      save_card: "1",
    });
    expect(r.status).toBe(303);
    const location = new URL(r.headers.get("location")!);
    expect(location.origin + location.pathname).toBe("https://shop.example.com/done");
    expect(Object.fromEntries(location.searchParams)).toEqual({
      x: "1",
      session_id: tx.session_id,
      state: "paid",
    });
    expect(await status(tx.session_id)).toMatchObject({
      state: "paid",
      form_of_payment: "svc_pg",
      challenge_occurred: false,
    });
    // The saved card appears for the same customer's next checkout and pays with token_pay.
    const next = (await createTransaction(stack, m, { customer_id: customer })).json;
    const details = await api(stack, "GET", `/v1/checkout/${next.session_id}`, { auth: apiKey(m.publicKey) });
    expect(details.json.cards).toEqual([
      {
        token: expect.stringMatching(/^tok_/),
        brand: "visa",
        last4: "4242",
        expiry: FUTURE_EXPIRY,
        pg_code: m.pg.sandbox,
      },
    ]);
    const paid = await api(stack, "POST", `/v1/checkout/${next.session_id}/payments`, {
      auth: apiKey(m.publicKey),
      body: { form_of_payment: "token_pay", pg_code: m.pg.sandbox, token: details.json.cards[0].token },
    });
    expect(paid.json).toMatchObject({ status: "success", form_of_payment: "token_pay" });
    // Another customer does not see it.
    const stranger = (await createTransaction(stack, m, { customer_id: "someone-else" })).json;
    expect(
      (await api(stack, "GET", `/v1/checkout/${stranger.session_id}`, { auth: apiKey(m.publicKey) })).json
        .cards,
    ).toEqual([]);
  });

  it("4000 0000 0000 0002 is declined: the page says so and the payment is failed", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const r = await submit(tx.session_id, { number: "4000000000000002" });
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe(`/pay/${tx.session_id}`);
    const page = await fetch(`${stack.url}/pay/${tx.session_id}`);
    expect(await page.text()).toContain("Payment failed");
    expect((await status(tx.session_id)).state).toBe("failed");
  });

  it("4000 0000 0000 3220 goes through the challenge and is paid with challenge_occurred", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const r = await submit(tx.session_id, { number: "4000 0000 0000 3220" });
    expect(r.status).toBe(303);
    const challengeUrl = r.headers.get("location")!;
    expect(challengeUrl.startsWith(stack.gatewayUrl)).toBe(true);
    expect((await status(tx.session_id)).state).toBe("attempted");
    const challenge = await fetch(challengeUrl);
    expect(challenge.status).toBe(200);
    const html = await challenge.text();
    const button = /<button[^>]*name="([^"]+)"[^>]*value="([^"]+)"/.exec(html);
    expect(button).not.toBeNull();
    const done = await fetch(challengeUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `${button![1]}=${button![2]}`,
      redirect: "manual",
    });
    expect(done.status).toBe(303);
    const back = await fetch(done.headers.get("location")!, { redirect: "manual" });
    expect(await back.text()).toContain("Payment successful");
    expect(await status(tx.session_id)).toMatchObject({ state: "paid", challenge_occurred: true });
  });

  it("a paid, expired or unknown session shows a page, never a form", async () => {
    expect((await fetch(`${stack.url}/pay/sess_unknown`)).status).toBe(404);
    expect((await fetch(`${stack.url}/pay/not-an-id`)).status).toBe(404);
    const tx = (await createTransaction(stack, m, { expiration_time: 60 })).json;
    stack.advance(61_000);
    try {
      const page = await fetch(tx.checkout_url);
      expect(page.status).toBe(410);
      expect(await page.text()).toContain("Checkout expired");
      const post = await submit(tx.session_id, { number: "4242424242424242" });
      expect(post.status).toBe(303);
    } finally {
      stack.advance(-61_000);
    }
    expect((await status(tx.session_id)).state).toBe("expired");
  });
});
