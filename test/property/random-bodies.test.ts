/**
 * Property: whatever body arrives at any endpoint, the service answers < 500, errors are
 * problem+json with a stable code, and a refused request leaves every table as it was.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  apiKey,
  bearer,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../support/merchant.js";
import { type Stack, startStack } from "../support/stack.js";
import { STORES } from "../support/stores.js";

const TABLES = [
  "merchants",
  "api_keys",
  "users",
  "gateway_settings",
  "transactions",
  "payment_attempts",
  "saved_cards",
  "sdk_error_reports",
  "webhook_secrets",
];
const RUNS = 40;

/** A valid body with some fields replaced by random values, some removed and some added. */
function mutated(valid: Record<string, unknown>) {
  const keys = Object.keys(valid);
  return fc
    .record({
      replace: fc.dictionary(fc.constantFrom(...keys), fc.anything({ maxDepth: 2 }), { maxKeys: 3 }),
      drop: fc.subarray(keys, { maxLength: Math.min(2, keys.length) }),
      extra: fc.dictionary(fc.string({ maxLength: 8 }), fc.anything({ maxDepth: 1 }), { maxKeys: 2 }),
    })
    .map(({ replace, drop, extra }) => {
      const body: Record<string, unknown> = { ...valid, ...replace, ...extra };
      for (const k of drop) delete body[k];
      return body;
    });
}

const anyBody = (valid: Record<string, unknown>) =>
  fc.oneof(
    { arbitrary: mutated(valid), weight: 3 },
    { arbitrary: fc.anything({ maxDepth: 3 }), weight: 1 },
    { arbitrary: fc.string({ maxLength: 50 }).map((s) => ({ raw: s })), weight: 1 },
  );

describe.each(STORES)("random bodies on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let sessionId: string;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
    sessionId = (await createTransaction(stack, m)).json.session_id;
  });
  afterAll(() => stack.close());

  async function counts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const t of TABLES)
      out[t] = (await stack.db.query<{ n: number }>(`select count(*)::int as n from ${t}`))[0]!.n;
    return out;
  }

  async function send(method: string, path: string, auth: string, body: unknown) {
    const raw =
      body !== null && typeof body === "object" && "raw" in body && Object.keys(body).length === 1
        ? String((body as { raw: string }).raw)
        : JSON.stringify(body);
    return api(stack, method, path, {
      auth,
      body: raw ?? "null",
      headers: { "content-type": "application/json" },
    });
  }

  const endpoints: {
    name: string;
    path: () => string;
    auth: () => string;
    valid: () => Record<string, unknown>;
  }[] = [
    {
      name: "POST /v1/checkout",
      path: () => "/v1/checkout",
      auth: () => apiKey(m.privateKey),
      valid: () => ({
        type: "e_commerce",
        pg_codes: [m.pg.sandbox],
        amount: "1.000",
        currency_code: "KWD",
        order_no: "o",
        language: "en",
        expiration_time: "PT1H",
      }),
    },
    {
      name: "POST payments",
      path: () => `/v1/checkout/${sessionId}/payments`,
      auth: () => apiKey(m.publicKey),
      valid: () => ({ form_of_payment: "wallet_b_pay", pg_code: m.pg.sandbox, mobile_number: "96550000000" }),
    },
    {
      name: "POST payments/otp",
      path: () => `/v1/checkout/${sessionId}/payments/otp`,
      auth: () => apiKey(m.publicKey),
      valid: () => ({ otp_reference: "pay_x", otp: "123456" }),
    },
    {
      name: "POST /v1/sdk/errors",
      path: () => "/v1/sdk/errors",
      auth: () => apiKey(m.publicKey),
      valid: () => ({ message: "m", session_id: sessionId, details: { a: 1 } }),
    },
    {
      name: "POST admin merchants",
      path: () => "/v1/admin/merchants",
      auth: () => bearer,
      valid: () => ({ root_domain: "x.example.com", name: "n" }),
    },
    {
      name: "POST admin users",
      path: () => `/v1/admin/merchants/${m.id}/users`,
      auth: () => bearer,
      valid: () => ({
        username: "u",
        email: "u@example.com",
        password: "long-password-1",
        permissions: ["payment.view"],
      }),
    },
    {
      name: "POST admin gateways",
      path: () => `/v1/admin/merchants/${m.id}/gateways`,
      auth: () => bearer,
      valid: () => ({ pg_code: "g", kind: "sandbox", currencies: ["USD"] }),
    },
    {
      name: "POST admin keys",
      path: () => `/v1/admin/merchants/${m.id}/keys`,
      auth: () => bearer,
      valid: () => ({ kind: "public" }),
    },
  ];

  for (const endpoint of endpoints) {
    it(`${endpoint.name}: never a 500, refusals write nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(anyBody(endpoint.valid()), async (body) => {
          const before = await counts();
          const r = await send("POST", endpoint.path(), endpoint.auth(), body);
          expect(r.status, `${r.status} ${r.text}`).toBeLessThan(500);
          if (r.status >= 400) {
            expect(r.headers.get("content-type")).toMatch(/application\/problem\+json/);
            expect(r.json.code).toMatch(/^[a-z_]+$/);
            expect(typeof r.json.detail).toBe("string");
            expect(await counts()).toEqual(before);
          }
        }),
        { numRuns: RUNS },
      );
    });
  }

  it("GET endpoints with random ids and queries: never a 500", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 80 }), async (id) => {
        const enc = encodeURIComponent(id) || "x";
        for (const [path, auth] of [
          [`/v1/checkout/${enc}`, apiKey(m.publicKey)],
          [`/v1/payments/${enc}`, apiKey(m.privateKey)],
          [`/v1/payments?order_no=${enc}`, apiKey(m.privateKey)],
          [`/v1/admin/merchants/${enc}`, bearer],
          [`/pay/${enc}`, ""],
        ] as const) {
          const r = await api(stack, "GET", path, auth ? { auth } : {});
          expect(r.status, `${path} ${r.text.slice(0, 200)}`).toBeLessThan(500);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("the hosted page takes random form posts without a 500", async () => {
    const tx = (await createTransaction(stack, m)).json;
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom("number", "expiry", "cvc", "holder", "pg_code", "save_card", "other"),
          fc.string({ maxLength: 40 }),
        ),
        async (fields) => {
          const r = await fetch(`${stack.url}/pay/${tx.session_id}`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams(fields).toString(),
            redirect: "manual",
          });
          expect(r.status).toBeLessThan(500);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
