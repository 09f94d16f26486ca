import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  apiKey,
  bearer,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { generateSecretsKey } from "../secrets/keyring.js";
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
  const cancel = (sessionId: string, lang?: string) =>
    fetch(`${stack.url}/pay/${sessionId}/cancel`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(lang ? { lang } : {}).toString(),
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
    expect(html).toContain("The long number on the front of the card");
    expect(html).not.toContain("16 digits");
    expect(html).not.toContain('role="alert"');
    expect((await status(en.session_id)).state).toBe("pending");
    const ar = (await createTransaction(stack, m, { language: "ar" })).json;
    const arHtml = await (await fetch(ar.checkout_url)).text();
    expect(arHtml).toContain('<html lang="ar" dir="rtl">');
    expect(arHtml).toContain("رقم البطاقة");
  });

  it("runs only its own script and style: the CSP's per-response nonce is on both, nothing inline else", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const nonces: string[] = [];
    for (let i = 0; i < 2; i++) {
      const page = await fetch(tx.checkout_url);
      const csp = page.headers.get("content-security-policy")!;
      const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
      expect(nonce).toBeDefined();
      expect(csp).toContain(`style-src 'nonce-${nonce}'`);
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).toContain("frame-ancestors 'none'");
      const html = await page.text();
      const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((s) => s[1]!.trim());
      expect(scripts).toEqual(['type="application/json" id="card-page-data"', `nonce="${nonce}"`]);
      expect([...html.matchAll(/<style([^>]*)>/g)].map((s) => s[1]!.trim())).toEqual([`nonce="${nonce}"`]);
      expect(html).not.toMatch(/ on[a-z]+=/); // no inline event handlers
      nonces.push(nonce!);
    }
    expect(nonces[0]).not.toBe(nonces[1]);
    // The whole page (HTML, CSS, script and its data) stays small: under 20 KB gzip, with errors too.
    const withErrors = await (await submit(tx.session_id, { number: "4242", expiry: "", cvc: "" })).text();
    expect(gzipSync(withErrors).length).toBeLessThan(20_000);
    // The message pages (no script) carry a nonce'd style too.
    const missing = await fetch(`${stack.url}/pay/sess_unknown`);
    const nonce = /style-src 'nonce-([^']+)'/.exec(missing.headers.get("content-security-policy")!)?.[1];
    expect(await missing.text()).toContain(`<style nonce="${nonce}">`);
  });

  it("shows the merchant's name and the amount on top", async () => {
    const tx = (await createTransaction(stack, m, { amount: "7.250", order_no: `o-${Date.now()}` })).json;
    const html = await (await fetch(tx.checkout_url)).text();
    expect(html).toContain(`Pay to <strong>${m.rootDomain}</strong>`);
    expect(html).toMatch(/Amount due<\/dt><dd class="total"><span dir="ltr">7\.250 KWD<\/span>/);
    expect(html).toContain(tx.order_no);
  });

  it.each([
    ["number", { number: "" }, "Enter the card number."],
    ["number", { number: "4242 4242 4242 424x" }, "Enter the card number with digits only."],
    ["number", { number: "4242 4242 42" }, "The card number is too short: check that you typed every digit."],
    [
      "number",
      { number: "4242 4242 4242 4242 4242" },
      "The card number is too long: check for extra digits.",
    ],
    ["number", { number: "4242 4242 4242 4241" }, "This card number has a typo: check the digits."],
    ["expiry", { expiry: "" }, "Enter the expiry date shown on the card."],
    ["expiry", { expiry: "12.30" }, "Enter the expiry date as MM/YY, for example 12/30."],
    ["expiry", { expiry: "13/30" }, "The expiry month must be from 01 to 12."],
    ["expiry", { expiry: "01/20" }, "This card has expired: use a card that is still valid."],
    ["expiry", { expiry: "0120" }, "This card has expired: use a card that is still valid."],
    ["cvc", { cvc: "12" }, "Enter the 3-digit security code from the back of the card."],
    [
      "cvc",
      { number: "3782 822463 10005", cvc: "123" },
      "Enter the 4-digit security code from the front of the card.",
    ],
    ["holder", { holder: "x".repeat(101) }, "The name is too long: use at most 100 characters."],
  ])(
    "without JavaScript, a mistake in %s: %j → 422 with its own message, linked from the summary",
    async (name, fields, text) => {
      const tx = (await createTransaction(stack, m)).json;
      const r = await submit(tx.session_id, { number: "4242 4242 4242 4242", ...fields });
      expect(r.status).toBe(422);
      const html = await r.text();
      const summary = /<div class="errors"([^>]*)>(.*?)<\/div>/s.exec(html);
      expect(summary?.[1]).toBe(' role="alert" tabindex="-1" id="error-summary" autofocus');
      expect(summary?.[2]).toContain(`<li><a href="#${name}">${text.replace(/'/g, "&#39;")}</a></li>`);
      // The summary is the form's first child; the field says the same and points at it.
      expect(html).toMatch(
        /<form method="post" action="\/pay\/[^"]+" id="card-form" novalidate><div class="errors"/,
      );
      expect(html).toMatch(
        new RegExp(
          `<input type="text" id="${name}" name="${name}"[^>]*aria-describedby="([a-z]+-hint )?${name}-error" aria-invalid="true"/>`,
        ),
      );
      expect(html).toContain(
        `<p class="field-error" id="${name}-error" aria-live="polite">${text.replace(/'/g, "&#39;")}</p>`,
      );
      expect(html).toContain("<title>Error: Pay by card</title>");
      expect((await status(tx.session_id)).state).toBe("pending");
    },
  );

  it("what the customer typed comes back as text: markup in a field is escaped, never run", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const hostile = '"><script>alert(1)</script><img src=x onerror=alert(2)>';
    const r = await submit(tx.session_id, { number: hostile, holder: hostile.slice(0, 60) });
    expect(r.status).toBe(422);
    const html = await r.text();
    expect(html).toContain('value="&quot;>&lt;script>alert(1)&lt;/script>&lt;img src=x onerror=alert(2)>"');
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img");
    // The page's own two scripts, no more.
    expect(html.match(/<script/g)).toHaveLength(2);
  });

  it("takes the expiry as MMYY, MM-YY or MM / YY and a 15-digit American Express card with a 4-digit code", async () => {
    const yy = FUTURE_EXPIRY.slice(3);
    for (const [number, expiry, cvc] of [
      ["4242424242424242", `12${yy}`, "123"],
      ["4242 4242 4242 4242", `12-${yy}`, "123"],
      ["3782 822463 10005", `12 / ${yy}`, "1234"],
    ]) {
      const tx = (await createTransaction(stack, m)).json;
      const r = await submit(tx.session_id, { number: number!, expiry: expiry!, cvc: cvc! });
      expect(r.status, `${number} ${expiry}`).toBe(303);
      expect(await status(tx.session_id)).toMatchObject({ state: "paid", form_of_payment: "svc_pg" });
    }
  });

  it("?lang=ar shows an English transaction's page in Arabic, keeps it through the post and the way back; other values are ignored", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const ar = await (await fetch(`${tx.checkout_url}?lang=ar`)).text();
    expect(ar).toContain('<html lang="ar" dir="rtl">');
    expect(ar).toContain('<input type="hidden" name="lang" value="ar"/>');
    const ignored = await (await fetch(`${tx.checkout_url}?lang=fr`)).text();
    expect(ignored).toContain('<html lang="en" dir="ltr">');
    expect(ignored).not.toContain('name="lang"');
    const wrong = await submit(tx.session_id, { number: "4242 4242 4242 4241", lang: "ar" });
    expect(wrong.status).toBe(422);
    const html = await wrong.text();
    expect(html).toContain('<html lang="ar" dir="rtl">');
    expect(html).toContain("في رقم البطاقة خطأ مطبعي: تحقق من الأرقام.");
    expect(html).toContain('<input type="hidden" name="lang" value="ar"/>');
    const paid = await submit(tx.session_id, { number: "4242 4242 4242 4242", lang: "ar" });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`/pay/${tx.session_id}?lang=ar`);
    const done = await (await fetch(`${stack.url}${paid.headers.get("location")}`)).text();
    expect(done).toContain("تم الدفع بنجاح");
    // An Arabic transaction opened with ?lang=en is English.
    const arTx = (await createTransaction(stack, m, { language: "ar" })).json;
    expect(await (await fetch(`${arTx.checkout_url}?lang=en`)).text()).toContain(
      '<html lang="en" dir="ltr">',
    );
  });

  it("cancel (a POST; a GET only shows the page): an open transaction becomes canceled and the customer returns with state=canceled", async () => {
    const tx = (
      await createTransaction(stack, m, {
        redirect_url: "https://shop.example.com/back?cart=7",
        order_no: `cancel-${Date.now()}`,
      })
    ).json;
    const html = await (await fetch(tx.checkout_url)).text();
    expect(html).toContain(
      `<form method="post" action="/pay/${tx.session_id}/cancel"><input type="submit" class="secondary" value="Cancel and return to the shop"/></form>`,
    );
    // A prefetcher or crawler following links cannot cancel: a GET is sent to the page.
    const get = await fetch(`${stack.url}/pay/${tx.session_id}/cancel?lang=ar`, { redirect: "manual" });
    expect([get.status, get.headers.get("location")]).toEqual([303, `/pay/${tx.session_id}?lang=ar`]);
    const head = await fetch(`${stack.url}/pay/${tx.session_id}/cancel`, {
      method: "HEAD",
      redirect: "manual",
    });
    expect([head.status, head.headers.get("location")]).toEqual([303, `/pay/${tx.session_id}`]);
    expect((await fetch(`${stack.url}/pay/not-a-session/cancel`)).status).toBe(404);
    expect((await status(tx.session_id)).state).toBe("pending");
    const r = await cancel(tx.session_id);
    expect(r.status).toBe(303);
    const back = new URL(r.headers.get("location")!);
    expect(back.origin + back.pathname).toBe("https://shop.example.com/back");
    expect(Object.fromEntries(back.searchParams)).toEqual({
      cart: "7",
      session_id: tx.session_id,
      state: "canceled",
    });
    expect(await status(tx.session_id)).toMatchObject({ state: "canceled", form_of_payment: "svc_pg" });
    // The SDK's poll gets the cancel callback data.
    const result = await api(stack, "GET", `/v1/checkout/${tx.session_id}/payments/result`, {
      auth: apiKey(m.publicKey),
    });
    expect(result.json).toEqual({
      status: "canceled",
      message: "Payment was cancelled.",
      form_of_payment: "svc_pg",
      session_id: tx.session_id,
      order_no: tx.order_no,
    });
    // The page shows the state; paying now is refused; canceling again changes nothing.
    expect(await (await fetch(tx.checkout_url)).text()).toContain("Payment cancelled");
    const pay = await submit(tx.session_id, { number: "4242 4242 4242 4242" });
    expect(pay.headers.get("location")).toBe(`/pay/${tx.session_id}`);
    expect((await cancel(tx.session_id)).status).toBe(303);
    expect((await status(tx.session_id)).state).toBe("canceled");
  });

  it("cancel without a redirect_url shows the canceled page, in the page's language", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const r = await cancel(tx.session_id, "ar");
    expect(r.status).toBe(303);
    expect(r.headers.get("location")).toBe(`/pay/${tx.session_id}?lang=ar`);
    const page = await fetch(`${stack.url}${r.headers.get("location")}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("تم إلغاء الدفع");
    expect(
      await fetch(`${stack.url}/pay/sess_unknown/cancel`, { method: "POST" }).then((x) => x.status),
    ).toBe(404);
  });

  it("cancel cannot undo a payment: a paid transaction stays paid, one at the gateway's challenge stays in progress", async () => {
    const paidTx = (await createTransaction(stack, m, { redirect_url: "https://shop.example.com/back" }))
      .json;
    expect((await submit(paidTx.session_id, { number: "4242424242424242" })).status).toBe(303);
    const r = await cancel(paidTx.session_id);
    expect(r.status).toBe(303);
    expect(new URL(r.headers.get("location")!).searchParams.get("state")).toBe("paid");
    expect((await status(paidTx.session_id)).state).toBe("paid");

    const challenged = (await createTransaction(stack, m)).json;
    expect((await submit(challenged.session_id, { number: "4000 0000 0000 3220" })).status).toBe(303);
    const during = await cancel(challenged.session_id);
    expect(during.headers.get("location")).toBe(`/pay/${challenged.session_id}`);
    expect((await status(challenged.session_id)).state).toBe("attempted");
  });

  it("cancel racing a payment: one of them wins, never both", async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const tx = (await createTransaction(stack, m)).json;
        await Promise.all([submit(tx.session_id, { number: "4242424242424242" }), cancel(tx.session_id)]);
        const payment = await status(tx.session_id);
        const result = await api(stack, "GET", `/v1/checkout/${tx.session_id}/payments/result`, {
          auth: apiKey(m.publicKey),
        });
        return { state: payment.state, captured: payment.captured_amount, callback: result.json.status };
      }),
    );
    for (const o of outcomes) {
      expect([
        { state: "paid", captured: "10.500", callback: "success" },
        { state: "canceled", captured: "0.000", callback: "canceled" },
      ]).toContainEqual(o);
    }
  });

  it("shows field errors in the page's language and keeps the session payable", async () => {
    const tx = (await createTransaction(stack, m, { language: "ar" })).json;
    const r = await submit(tx.session_id, { number: "4242 4242 4242 4241", expiry: "13/20", cvc: "1" });
    expect(r.status).toBe(422);
    const html = await r.text();
    expect(html).toContain('role="alert"');
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain("في رقم البطاقة خطأ مطبعي: تحقق من الأرقام.");
    expect(html).toContain("يجب أن يكون شهر الانتهاء من 01 إلى 12.");
    expect(html).toContain("أدخل رمز الأمان المكون من 3 أرقام من ظهر البطاقة.");
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

  it("a payment the service cannot make (the setting's credentials cannot be opened) shows the form again saying so, in the page's language", async () => {
    const pgCode = `stripe-sealed-${m.id.slice(4, 10)}`;
    const created = await api(stack, "POST", `/v1/admin/merchants/${m.id}/gateways`, {
      auth: bearer,
      body: {
        pg_code: pgCode,
        kind: "stripe",
        currencies: ["KWD"],
        api_base_url: "http://127.0.0.1:9",
        credentials: { secret_key: `sk_test_${"x".repeat(24)}`, webhook_secret: `whsec_${"y".repeat(32)}` },
      },
    });
    expect(created.status).toBe(201);
    // A service started with another SVC_SECRETS_KEY cannot open what this one sealed.
    const other = await startStack(store, { db: stack.db, config: { secretsKey: generateSecretsKey() } });
    try {
      for (const lang of ["en", "ar"]) {
        const tx = (await createTransaction(stack, m, { pg_codes: [pgCode] })).json;
        const r = await fetch(`${other.url}/pay/${tx.session_id}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            pg_code: pgCode,
            number: "4242 4242 4242 4242",
            expiry: FUTURE_EXPIRY,
            cvc: "123",
            lang,
          }).toString(),
          redirect: "manual",
        });
        expect(r.status).toBe(503);
        const page = await r.text();
        expect(page).toContain('role="alert"');
        expect(page).toContain(lang === "en" ? "<h2>The payment was not made</h2>" : "<h2>لم يتم الدفع</h2>");
        expect(page).toContain(
          lang === "en"
            ? "The payment could not be made just now, and nothing was charged."
            : "تعذّر إتمام الدفع الآن",
        );
        expect(page).not.toMatch(/SVC_SECRETS|sealed with/);
        expect((await status(tx.session_id)).state).toBe("pending");
      }
      // The browser SDK's call (the public key) gets the code, without the operator's words.
      const knetCode = `knet-sealed-${m.id.slice(4, 10)}`;
      const knet = await api(stack, "POST", `/v1/admin/merchants/${m.id}/gateways`, {
        auth: bearer,
        body: {
          pg_code: knetCode,
          kind: "knet",
          currencies: ["KWD"],
          api_base_url: "http://127.0.0.1:9",
          credentials: {
            tranportal_id: "tp-0001",
            tranportal_password: "pw-0001",
            resource_key: "K".repeat(16),
          },
        },
      });
      expect(knet.status).toBe(201);
      const tx = (await createTransaction(stack, m, { pg_codes: [knetCode] })).json;
      const sdk = await api(other, "POST", `/v1/checkout/${tx.session_id}/payments`, {
        auth: apiKey(m.publicKey),
        body: { form_of_payment: "redirect", pg_code: knetCode },
      });
      expect(sdk.status).toBe(503);
      expect(sdk.json.code).toBe("gateway_credentials_unavailable");
      expect(sdk.json.detail).toMatch(/^The merchant's payment setup cannot take this payment just now/);
      expect(sdk.text).not.toMatch(/SVC_SECRETS|sealed with/);
      // The merchant's own call still says what to fix.
      const own = await api(other, "POST", `/v1/checkout/${tx.session_id}/payments`, {
        auth: apiKey(m.privateKey),
        body: { form_of_payment: "redirect", pg_code: knetCode },
      });
      expect(own.json.code).toBe("gateway_credentials_unavailable");
      expect(own.json.detail).toMatch(/SVC_SECRETS/);
    } finally {
      await other.close();
    }
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

  it("?lang=ar on the card page carries through the challenge: the gateway's page and the way back are Arabic", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const r = await submit(tx.session_id, { number: "4000 0000 0000 3220", lang: "ar" });
    expect(r.status).toBe(303);
    const challengeUrl = r.headers.get("location")!;
    const challenge = await fetch(challengeUrl);
    const html = await challenge.text();
    expect(html).toContain('lang="ar"');
    const button = /<button[^>]*name="([^"]+)"[^>]*value="([^"]+)"/.exec(html)!;
    const done = await fetch(challengeUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `${button[1]}=${button[2]}`,
      redirect: "manual",
    });
    const returnUrl = done.headers.get("location")!;
    expect(new URL(returnUrl).searchParams.get("lang")).toBe("ar");
    const back = await fetch(returnUrl, { redirect: "manual" });
    const page = await back.text();
    expect(page).toContain('<html lang="ar" dir="rtl">');
    expect((await status(tx.session_id)).state).toBe("paid");
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
