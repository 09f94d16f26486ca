import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  apiKey,
  basic,
  bearer,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";

describe.each(STORES)("Checkout API on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(() => stack.close());

  it("refuses an amount over KNET's 10-character amount when a KNET setting is offered", async () => {
    const pgCode = `knet-max-${m.id.slice(4, 10)}`;
    const created = await api(stack, "POST", `/v1/admin/merchants/${m.id}/gateways`, {
      auth: bearer,
      body: {
        pg_code: pgCode,
        kind: "knet",
        currencies: ["KWD"],
        environment: "test",
        credentials: {
          tranportal_id: "tp-max-01",
          tranportal_password: "pw-max-01",
          resource_key: "M".repeat(16),
        },
      },
    });
    expect(created.status).toBe(201);
    const over = await createTransaction(stack, m, {
      pg_codes: [pgCode],
      amount: "1000000.000",
      currency_code: "KWD",
    });
    expect(over.status).toBe(422);
    expect(over.json.errors.amount).toEqual(["KNET takes at most 999999.999 KWD"]);
    const most = await createTransaction(stack, m, {
      pg_codes: [pgCode],
      amount: "999999.999",
      currency_code: "KWD",
    });
    expect(most.status).toBe(201);
  });

  it("creates a transaction with every field and returns the contract's shape", async () => {
    const r = await createTransaction(stack, m, {
      pg_codes: [m.pg.sandbox, m.pg.queued],
      amount: "86.000",
      order_no: `order-${Date.now()}`,
      customer_id: "cust-1",
      customer_email: "c@example.com",
      customer_phone: "+96550001111",
      customer_first_name: "Sara",
      customer_last_name: "Ali",
      redirect_url: "https://shop.example.com/return",
      webhook_url: "https://shop.example.com/hooks",
      language: "ar",
      expiration_time: "PT30M",
      include_sdk_setup_preload: true,
    });
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({
      type: "e_commerce",
      amount: "86.000",
      currency_code: "KWD",
      state: "created",
      operation: "purchase",
      language: "ar",
      pg_codes: [m.pg.sandbox, m.pg.queued],
      created_via: "api",
    });
    expect(r.json.session_id).toMatch(/^sess_[a-z2-7]+$/);
    expect(r.json.checkout_url).toBe(`${stack.url}/pay/${r.json.session_id}`);
    const expiresIn = Date.parse(r.json.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(29 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(30 * 60_000);
    const forms = r.json.payment_methods.map(
      (p: { pg_code: string; form_of_payment: string }) => `${p.pg_code}:${p.form_of_payment}`,
    );
    expect(forms).toEqual([
      `${m.pg.sandbox}:svc_pg`,
      `${m.pg.sandbox}:token_pay`,
      `${m.pg.sandbox}:wallet_a_pay`,
      `${m.pg.sandbox}:wallet_b_pay`,
      `${m.pg.queued}:svc_pg`,
      `${m.pg.queued}:redirect`,
    ]);
    expect(r.json.payment_methods[0]).toMatchObject({
      amount: "86.000",
      currency_code: "KWD",
      fee: "0.000",
      fee_description: "بدون رسوم",
      flow: "hosted_page",
      icon: "card",
    });
    // The preload is exactly what the SDK's details call returns.
    const details = await api(stack, "GET", `/v1/checkout/${r.json.session_id}`, {
      auth: apiKey(m.publicKey),
    });
    expect(details.status).toBe(200);
    expect({ ...r.json.sdk_setup_preload_payload, state: "pending" }).toEqual(details.json);
    expect(details.json.wallet_a).toEqual({
      merchant_identifier: expect.stringMatching(/^merchant\./),
      pg_code: m.pg.sandbox,
    });
  });

  it("leaves token_pay out without a customer and the preload out unless asked", async () => {
    const r = await createTransaction(stack, m);
    expect(r.status).toBe(201);
    expect(r.json.sdk_setup_preload_payload).toBeUndefined();
    expect(r.json.payment_methods.map((p: { form_of_payment: string }) => p.form_of_payment)).toEqual([
      "svc_pg",
      "wallet_a_pay",
      "wallet_b_pay",
    ]);
    expect(r.json.order_no).toBeNull();
  });

  it.each([
    ["KWD", "10.50", /exactly 3 decimals/],
    ["KWD", "10", /exactly 3 decimals/],
    ["USD", "10.5", /exactly 2 decimals/],
    ["USD", "10.500", /exactly 2 decimals/],
    ["JPY", "500.0", /no decimals/],
    ["USD", "0.00", /greater than zero/],
    ["USD", "-1.00", /positive decimal string/],
    ["USD", "1e3", /positive decimal string/],
    ["USD", 10.5, /must be a string/],
  ])("refuses %s amount %j naming the field", async (currency, amount, message) => {
    const r = await createTransaction(stack, m, { currency_code: currency, amount });
    expect(r.headers.get("content-type")).toMatch(/application\/problem\+json/);
    expect([400, 422]).toContain(r.status);
    expect(r.json.code).toBe("validation_failed");
    expect(r.json.errors.amount.join(" ")).toMatch(message);
  });

  it("accepts the exact precision of KWD, USD and JPY", async () => {
    for (const [currency, amount] of [
      ["KWD", "1.250"],
      ["USD", "10.50"],
      ["JPY", "500"],
    ] as const) {
      const r = await createTransaction(stack, m, { currency_code: currency, amount });
      expect(r.status, r.text).toBe(201);
      expect(r.json.amount).toBe(amount);
    }
  });

  it("refuses a bad currency, an unknown pg_code and a currency the gateway lacks", async () => {
    const bad = await createTransaction(stack, m, { currency_code: "XYZ" });
    expect(bad.status).toBe(422);
    expect(bad.json.errors.currency_code[0]).toMatch(/ISO 4217/);
    const lower = await createTransaction(stack, m, { currency_code: "kwd" });
    expect(lower.json.errors.currency_code).toBeDefined();
    const unknown = await createTransaction(stack, m, { pg_codes: [m.pg.sandbox, "nope"] });
    expect(unknown.status).toBe(422);
    expect(unknown.json.code).toBe("unknown_pg_code");
    expect(unknown.json.errors.pg_codes[0]).toContain("nope");
    const gbp = await createTransaction(stack, m, { currency_code: "GBP", amount: "1.00" });
    expect(gbp.status).toBe(422);
    expect(gbp.json.code).toBe("currency_not_supported");
    expect(gbp.json.errors.currency_code).toBeDefined();
  });

  it("refuses a duplicate order_no with 409 and writes nothing", async () => {
    const orderNo = `dup-${Date.now()}`;
    expect((await createTransaction(stack, m, { order_no: orderNo })).status).toBe(201);
    const again = await createTransaction(stack, m, { order_no: orderNo, amount: "99.000" });
    expect(again.status).toBe(409);
    expect(again.json.code).toBe("duplicate_order_no");
    expect(again.json.errors.order_no).toBeDefined();
    const rows = await stack.db.query(
      "select amount_minor from transactions where merchant_id = $1 and order_no = $2",
      [m.id, orderNo],
    );
    expect(rows).toEqual([{ amount_minor: 10500 }]);
  });

  it.each([
    ["order_no", 129],
    ["customer_id", 129],
    ["customer_email", 255],
    ["customer_first_name", 101],
    ["redirect_url", 2049],
  ])("refuses an over-long %s (%i chars)", async (field, length) => {
    const r = await createTransaction(stack, m, { [field]: "x".repeat(length) });
    expect(r.status).toBe(422);
    expect(r.json.errors[field][0]).toMatch(/at most/);
  });

  it("refuses unknown fields, a bad type, bad urls, bad expiration and missing fields", async () => {
    const r = await api(stack, "POST", "/v1/checkout", {
      auth: apiKey(m.privateKey),
      body: { type: "shop", amount: "1.000", colour: "red", redirect_url: 5 },
    });
    expect(r.status).toBe(422);
    expect(Object.keys(r.json.errors).sort()).toEqual([
      "colour",
      "currency_code",
      "pg_codes",
      "redirect_url",
      "type",
    ]);
    expect(r.json.errors.type[0]).toMatch(/must be one of/);
    expect(r.json.errors.colour[0]).toMatch(/not a known field/);
    const url = await createTransaction(stack, m, { redirect_url: "javascript:alert(1)" });
    expect(url.json.errors.redirect_url[0]).toMatch(/http/);
    // A password in a URL would be shown back (the delivery log, the customer's address bar).
    const secrets = await createTransaction(stack, m, {
      redirect_url: "https://user:hunter2pw@shop.example.com/return",
      webhook_url: "https://user:hunter2pw@hooks.example.com/svc#frag",
    });
    expect(secrets.status).toBe(422);
    expect(secrets.json.errors.redirect_url).toEqual(["must not carry a user name or password"]);
    expect(secrets.json.errors.webhook_url[0]).toMatch(/must not carry credentials/);
    const fragment = await createTransaction(stack, m, { webhook_url: "https://hooks.example.com/svc#frag" });
    expect(fragment.json.errors.webhook_url).toEqual(["must not have a #fragment"]);
    const blank = await createTransaction(stack, m, { order_no: "   ", customer_first_name: " " });
    expect(blank.json.errors).toMatchObject({
      order_no: ["must not be blank; leave it out instead"],
      customer_first_name: ["must not be blank; leave it out instead"],
    });
    const exp = await createTransaction(stack, m, { expiration_time: "P99999D" });
    expect(exp.json.errors.expiration_time[0]).toMatch(/between 1 minute and 30 days/);
  });

  it("answers invalid JSON and wrong content types with problem+json", async () => {
    const r = await api(stack, "POST", "/v1/checkout", {
      auth: apiKey(m.privateKey),
      body: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe("invalid_json");
    const text = await api(stack, "POST", "/v1/checkout", {
      auth: apiKey(m.privateKey),
      body: "hello",
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(415);
    expect(text.json.code).toBe("unsupported_media_type");
  });

  it("refuses a public key, no key, a wrong key and a user without payment.create", async () => {
    const pub = await api(stack, "POST", "/v1/checkout", { auth: apiKey(m.publicKey), body: {} });
    expect(pub.status).toBe(403);
    expect(pub.json.code).toBe("private_key_required");
    expect(pub.json.detail).toMatch(/private key/);
    const none = await api(stack, "POST", "/v1/checkout", { body: {} });
    expect(none.status).toBe(401);
    const wrong = await api(stack, "POST", "/v1/checkout", {
      auth: apiKey(`sk_${"a".repeat(52)}`),
      body: {},
    });
    expect(wrong.status).toBe(401);
    const viewer = { username: `viewer-${m.id.slice(4, 12)}`, password: "viewer-password-1" };
    const created = await api(stack, "POST", `/v1/admin/merchants/${m.id}/users`, {
      auth: bearer,
      body: { ...viewer, email: "v@example.com", permissions: ["payment.view"] },
    });
    expect(created.status).toBe(201);
    const denied = await createTransactionAs(basic(viewer));
    expect(denied.status).toBe(403);
    expect(denied.json.code).toBe("permission_denied");
    expect(denied.json.detail).toContain("payment.create");
    const allowed = await createTransactionAs(basic(m.admin));
    expect(allowed.status).toBe(201);
  });

  async function createTransactionAs(auth: string) {
    return api(stack, "POST", "/v1/checkout", {
      auth,
      body: { type: "e_commerce", pg_codes: [m.pg.sandbox], amount: "1.000", currency_code: "KWD" },
    });
  }

  it("replays an Idempotency-Key and refuses its reuse with another body", async () => {
    const key = `idem-${Date.now()}`;
    const body = { type: "e_commerce", pg_codes: [m.pg.sandbox], amount: "5.000", currency_code: "KWD" };
    const first = await api(stack, "POST", "/v1/checkout", {
      auth: apiKey(m.privateKey),
      body,
      headers: { "idempotency-key": key },
    });
    const second = await api(stack, "POST", "/v1/checkout", {
      auth: apiKey(m.privateKey),
      body,
      headers: { "idempotency-key": key },
    });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.json).toEqual(first.json);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    const tracking = await api(stack, "POST", "/v1/checkout", {
      auth: apiKey(m.privateKey),
      body,
      headers: { "tracking-key": key },
    });
    expect(tracking.json.session_id).toBe(first.json.session_id);
    // The same request with the trailing slash the router also serves is the same request.
    const slashed = await api(stack, "POST", "/v1/checkout/", {
      auth: apiKey(m.privateKey),
      body,
      headers: { "idempotency-key": key },
    });
    expect([slashed.status, slashed.json.session_id]).toEqual([201, first.json.session_id]);
    const reused = await api(stack, "POST", "/v1/checkout", {
      auth: apiKey(m.privateKey),
      body: { ...body, amount: "6.000" },
      headers: { "idempotency-key": key },
    });
    expect(reused.status).toBe(422);
    expect(reused.json.code).toBe("idempotency_key_reused");
    const count = await stack.db.query(
      "select count(*)::int as n from transactions where merchant_id = $1 and amount_minor = 5000",
      [m.id],
    );
    expect(count[0]).toEqual({ n: 1 });
  });

  it("an Idempotency-Key whose request was refused (a KWD amount with two decimals, an unknown pg_code) creates with the corrected body", async () => {
    const key = `idem-fixed-${Date.now()}`;
    const send = (body: Record<string, unknown>) =>
      api(stack, "POST", "/v1/checkout", {
        auth: apiKey(m.privateKey),
        body,
        headers: { "idempotency-key": key },
      });
    const body = { type: "e_commerce", pg_codes: [m.pg.sandbox], amount: "7.250", currency_code: "KWD" };
    expect((await send({ ...body, amount: "7.25" })).status).toBe(422);
    expect((await send({ ...body, pg_codes: ["no-such-gateway"] })).status).toBe(422);
    const created = await send(body);
    expect(created.status).toBe(201);
    const again = await send(body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json.session_id).toBe(created.json.session_id);
  });

  it("keeps merchants apart: another merchant's session is 404", async () => {
    const other = await createMerchant(stack);
    const mine = await createTransaction(stack, m);
    for (const [method, path, auth] of [
      ["GET", `/v1/checkout/${mine.json.session_id}`, apiKey(other.publicKey)],
      ["GET", `/v1/payments/${mine.json.session_id}`, apiKey(other.privateKey)],
      ["GET", `/v1/payments/${mine.json.session_id}`, basic(other.admin)],
    ] as const) {
      const r = await api(stack, method, path, { auth });
      expect(r.status, path).toBe(404);
      expect(r.json.code).toBe("not_found");
    }
    const pay = await api(stack, "POST", `/v1/checkout/${mine.json.session_id}/payments`, {
      auth: apiKey(other.publicKey),
      body: { form_of_payment: "wallet_b_pay", pg_code: m.pg.sandbox, mobile_number: "96551234567" },
    });
    expect(pay.status).toBe(404);
    // A pg_code of another merchant is unknown to this one.
    const foreign = await createTransaction(stack, other, { pg_codes: [m.pg.sandbox] });
    expect(foreign.json.code).toBe("unknown_pg_code");
  });

  it("expires a session after expiration_time and refuses payment on it", async () => {
    const r = await createTransaction(stack, m, { expiration_time: 120 });
    stack.advance(121_000);
    try {
      const status = await api(stack, "GET", `/v1/payments/${r.json.session_id}`, {
        auth: apiKey(m.privateKey),
      });
      expect(status.json.state).toBe("expired");
      const pay = await api(stack, "POST", `/v1/checkout/${r.json.session_id}/payments`, {
        auth: apiKey(m.publicKey),
        body: { form_of_payment: "wallet_b_pay", pg_code: m.pg.sandbox, mobile_number: "96551234567" },
      });
      expect(pay.status).toBe(410);
      expect(pay.json.code).toBe("session_expired");
    } finally {
      stack.advance(-121_000);
    }
  });
});
