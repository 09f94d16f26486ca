/**
 * Property: bad input is never a 500 and never leaks an internal. More than 5,000 generated
 * requests per store across every endpoint family — the private API, the public SDK API, the
 * operator API, the dashboard's forms and filters (signed in, with the CSRF token), the hosted
 * card page, and gateway notifications signed and unsigned — with hostile values: NUL and other
 * control characters, lone surrogates, long strings, deep and wide JSON, wrong types, years 0000
 * and 10000, odd content types and path segments. Every answer must be < 500 and must not show a
 * stack frame, an error class, SQL or a file path. Requests go through `app.inject` (the whole
 * HTTP stack, no socket), so thousands fit in a few seconds per family.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  sandboxSettingSecret,
  signSandboxPayload,
} from "../../packages/service/src/gateways/sandbox/signature.js";
import { signedIn } from "../support/dashboard.js";
import { bearer, createMerchant, createTransaction, type TestMerchant } from "../support/merchant.js";
import { paidParent } from "../support/payments.js";
import { GATEWAY_SECRET, type Stack, startStack } from "../support/stack.js";
import { STORES } from "../support/stores.js";

/** Runs per family; 11 families, so 5,500 requests per store. */
const RUNS = 500;
const SEED = 20261124;

const LEAKS = [
  /\bat [\w.<>]+ \(?[^)\s]*:\d+:\d+/, // a stack frame
  /\b(TypeError|ReferenceError|RangeError|SyntaxError: Unexpected|AssertionError)\b/,
  /node_modules|\/work\/|\/home\/|\/root\/|\.ts:\d+/,
  /syntax error at or near|violates [a-z ]*constraint|invalid input syntax|relation "|column "|unterminated|invalid byte sequence|unsupported Unicode escape/i,
];

const SPECIAL = [
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfffy",
  "\u0007",
  "\u001b[31m",
  "\u007f",
  "0000-01-01",
  "10000-01-01",
  "0000-01-01T00:00:00Z",
  "+010000-01-01T00:00:00Z",
  "9999-12-31T23:59:59Z",
  // The last day: a dashboard "to" filter ends it at 10000-01-01, which PGlite could not take.
  "9999-12-31",
  "-1",
  "0",
  "1e309",
  "NaN",
  "null",
  "true",
  "<script>alert(1)</script>",
  "' or 1=1 --",
  "%00",
  "../../etc/passwd",
  "٠١٢٫٣",
  "10.5000000001",
  "99999999999999999999999",
  "sess_aaaaaaaaaaaaaaaaaaaaaaaaaa",
  "a".repeat(5000),
];

const hostileString = fc.oneof(
  { arbitrary: fc.constantFrom(...SPECIAL), weight: 3 },
  { arbitrary: fc.string({ maxLength: 30 }), weight: 1 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 30 }), weight: 2 },
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: hostileString, weight: 4 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.double({ noNaN: true }), weight: 1 },
  { arbitrary: fc.constantFrom(null, true, false, [], {}), weight: 1 },
  { arbitrary: fc.array(hostileString, { maxLength: 3 }), weight: 1 },
  { arbitrary: fc.dictionary(hostileString, hostileString, { maxKeys: 3 }), weight: 1 },
);

const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
const wide = (keys: number) => `{${Array.from({ length: keys }, (_, i) => `"f${i}":${i}`).join(",")}}`;

/** A JSON body: a valid one with fields replaced, removed and added, or something else altogether. */
function jsonBody(valid: Record<string, unknown>): fc.Arbitrary<string> {
  const keys = Object.keys(valid);
  const mutated = fc
    .record({
      replace: keys.length
        ? fc.dictionary(fc.constantFrom(...keys), hostileValue, { maxKeys: 3 })
        : fc.constant({}),
      drop: fc.subarray(keys, { maxLength: Math.min(2, keys.length) }),
      extra: fc.dictionary(hostileString, hostileValue, { maxKeys: 2 }),
    })
    .map(({ replace, drop, extra }) => {
      const body: Record<string, unknown> = { ...valid, ...replace, ...extra };
      for (const k of drop) delete body[k];
      return JSON.stringify(body);
    });
  return fc.oneof(
    { arbitrary: mutated, weight: 8 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), weight: 1 },
    { arbitrary: hostileString, weight: 1 },
    { arbitrary: fc.constantFrom(deep(20_000), deep(40), wide(5_000), wide(92_000), '{"a":', ""), weight: 1 },
  );
}

/** Percent-encodes `s` as its UTF-8 bytes (a lone surrogate becomes U+FFFD, as a browser sends it). */
const pct = (s: string) =>
  Array.from(Buffer.from(s, "utf8"), (b) =>
    /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b))
      ? String.fromCharCode(b)
      : `%${b.toString(16).padStart(2, "0")}`,
  ).join("");

/** Percent sequences no valid UTF-8 text makes: overlong NUL, a surrogate's bytes, stray bytes. */
const BAD_PERCENT = ["%00", "%C0%80", "%ED%A0%80", "%FF", "%E2%82", "%", "%zz", "%2e%2e%2f"];

/** A path segment: a valid id, or a hostile string as a client would put it in a URL. */
const segment = (valid: string) =>
  fc.oneof(
    { arbitrary: fc.constant(valid), weight: 2 },
    { arbitrary: hostileString.map(pct), weight: 3 },
    { arbitrary: fc.constantFrom(...BAD_PERCENT), weight: 1 },
  );

/** A query string over `names`, with hostile values (some names left out, some unknown added). */
const queryOf = (names: string[]) =>
  fc
    .dictionary(
      fc.oneof(fc.constantFrom(...names), hostileString).map(pct),
      fc.oneof(
        { arbitrary: hostileString.map(pct), weight: 5 },
        { arbitrary: fc.constantFrom(...BAD_PERCENT), weight: 1 },
      ),
      { maxKeys: 4 },
    )
    .map((q) =>
      Object.entries(q)
        .map(([k, v]) => `${k}=${v}`)
        .join("&"),
    );

const contentType = fc.oneof(
  { arbitrary: fc.constant("application/json"), weight: 8 },
  {
    arbitrary: fc.constantFrom(
      "application/x-www-form-urlencoded",
      "text/plain",
      "multipart/form-data; boundary=x",
      "application/json; charset=latin1",
      "",
    ),
    weight: 1,
  },
);

/** A form body: the valid fields with hostile values in some of them, plus strangers. */
function formBody(valid: Record<string, string>): fc.Arbitrary<string> {
  const keys = Object.keys(valid);
  return fc
    .record({
      replace: fc.dictionary(fc.constantFrom(...keys), hostileString, { maxKeys: 3 }),
      extra: fc.dictionary(hostileString, hostileString, { maxKeys: 2 }),
    })
    .map(({ replace, extra }) => {
      const body = new URLSearchParams();
      for (const [k, v] of Object.entries({ ...valid, ...replace, ...extra })) body.append(k, v);
      return body.toString();
    });
}

describe.each(STORES)("fuzzed requests to every endpoint family on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let sessionId: string;
  let paidSessionId: string;
  let cookie: string;
  let csrf: string;
  let sent = 0;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
    sessionId = (await createTransaction(stack, m)).json.session_id;
    paidSessionId = (await paidParent(stack, m)).session_id;
    const client = await signedIn(stack, m.admin);
    await client.get("/dashboard/payments");
    cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    csrf = client.csrf;
  });
  afterAll(async () => {
    console.log(`fuzz on ${store}: ${sent} requests`);
    await stack?.close();
  });

  async function expectNoFault(request: {
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
    url: string;
    headers?: Record<string, string>;
    payload?: string;
  }) {
    sent += 1;
    const response = await stack.service.app.inject({
      method: request.method,
      url: request.url,
      headers: request.headers ?? {},
      ...(request.payload !== undefined ? { payload: request.payload } : {}),
    });
    const what = `${request.method} ${request.url.slice(0, 200)} ${JSON.stringify(request.payload?.slice(0, 300))}`;
    expect(response.statusCode, `${what} → ${response.body.slice(0, 500)}`).toBeLessThan(500);
    for (const leak of LEAKS) expect(response.body, `${what} leaked`).not.toMatch(leak);
  }

  const run = <T extends unknown[]>(property: fc.IAsyncProperty<T>) =>
    fc.assert(property, { numRuns: RUNS, seed: SEED, endOnFailure: true });

  it("the private API: checkout, payment status, operations", async () => {
    const validCheckout = {
      type: "e_commerce",
      pg_codes: [m.pg.sandbox],
      amount: "10.500",
      currency_code: "KWD",
      order_no: "fuzz-1",
      customer_first_name: "Ada",
      expiration_time: 3600,
    };
    const validOperation = { operation: "refund", session_id: paidSessionId, amount: "0.001" };
    await run(
      fc.asyncProperty(
        fc.oneof(
          fc.tuple(fc.constant("POST /v1/checkout"), jsonBody(validCheckout), contentType),
          fc.tuple(fc.constant("POST /v1/operations"), jsonBody(validOperation), contentType),
          fc.tuple(
            segment(paidSessionId).map((s) => `GET /v1/payments/${s}`),
            fc.constant(""),
            fc.constant(""),
          ),
          fc.tuple(
            queryOf(["order_no"]).map((q) => `GET /v1/payments?${q}`),
            fc.constant(""),
            fc.constant(""),
          ),
        ),
        async ([route, body, type]) => {
          const [method, url] = route.split(" ") as ["GET" | "POST", string];
          await expectNoFault({
            method,
            url,
            headers: { authorization: `Api-Key ${m.privateKey}`, ...(type ? { "content-type": type } : {}) },
            ...(method === "POST" ? { payload: body } : {}),
          });
        },
      ),
    );
  });

  it("the private API: webhook settings, messages, replay, discrepancies", async () => {
    await run(
      fc.asyncProperty(
        fc.oneof(
          fc.tuple(
            fc.constant("PUT /v1/webhooks/config"),
            jsonBody({
              enabled: true,
              operations_webhook_url: "https://shop.example/ops",
              timeout_seconds: 5,
            }),
          ),
          fc.tuple(
            fc.constant("PUT /v1/webhooks/plugins/e_commerce"),
            jsonBody({ webhook_url: "https://shop.example/pay", enabled: true }),
          ),
          fc.tuple(
            fc.constant("POST /v1/webhooks/replay"),
            jsonBody({ status: "failed", since: "2026-01-01T00:00:00Z" }),
          ),
          fc.tuple(
            queryOf(["status", "session_id", "since", "until", "limit"]).map(
              (q) => `GET /v1/webhooks/messages?${q}`,
            ),
            fc.constant(""),
          ),
          fc.tuple(
            segment("msg_x").map((s) => `GET /v1/webhooks/messages/${s}`),
            fc.constant(""),
          ),
          fc.tuple(
            segment("msg_x").map((s) => `POST /v1/webhooks/messages/${s}/replay`),
            fc.constant("{}"),
          ),
          fc.tuple(
            queryOf(["status", "session_id", "limit"]).map((q) => `GET /v1/discrepancies?${q}`),
            fc.constant(""),
          ),
          fc.tuple(
            segment("dsc_x").map((s) => `POST /v1/discrepancies/${s}/resolve`),
            jsonBody({ note: "done" }),
          ),
        ),
        async ([route, body]) => {
          const [method, url] = route.split(" ") as ["GET" | "POST" | "PUT", string];
          await expectNoFault({
            method,
            url,
            headers: { authorization: `Api-Key ${m.privateKey}`, "content-type": "application/json" },
            ...(method === "GET" ? {} : { payload: body }),
          });
        },
      ),
    );
  });

  it("the public SDK API: details, payments, OTP, result, SDK errors", async () => {
    await run(
      fc.asyncProperty(
        fc.oneof(
          fc.tuple(
            segment(sessionId).map((s) => `POST /v1/checkout/${s}/payments`),
            jsonBody({
              form_of_payment: "wallet_b_pay",
              pg_code: m.pg.sandbox,
              mobile_number: "96550001234",
            }),
          ),
          fc.tuple(
            segment(sessionId).map((s) => `POST /v1/checkout/${s}/payments/otp`),
            jsonBody({ otp_reference: "pay_x", otp: "123456" }),
          ),
          fc.tuple(
            segment(sessionId).map((s) => `GET /v1/checkout/${s}`),
            fc.constant(""),
          ),
          fc.tuple(
            segment(sessionId).map((s) => `GET /v1/checkout/${s}/payments/result`),
            fc.constant(""),
          ),
          fc.tuple(
            fc.constant("POST /v1/sdk/errors"),
            jsonBody({ message: "boom", session_id: sessionId, details: { a: 1 } }),
          ),
        ),
        async ([route, body]) => {
          const [method, url] = route.split(" ") as ["GET" | "POST", string];
          await expectNoFault({
            method,
            url,
            headers: { authorization: `Api-Key ${m.publicKey}`, "content-type": "application/json" },
            ...(method === "POST" ? { payload: body } : {}),
          });
        },
      ),
    );
  });

  it("the operator API", async () => {
    await run(
      fc.asyncProperty(
        fc.oneof(
          fc.tuple(
            fc.constant("POST /v1/admin/merchants"),
            jsonBody({ root_domain: "shop.example.com", name: "Shop" }),
          ),
          fc.tuple(
            segment(m.id).map((s) => `POST /v1/admin/merchants/${s}/users`),
            jsonBody({
              username: "u",
              password: "a-long-password",
              email: "u@example.com",
              permissions: ["payment.view"],
            }),
          ),
          fc.tuple(
            segment(m.id).map((s) => `POST /v1/admin/merchants/${s}/gateways`),
            jsonBody({ pg_code: "pg", kind: "sandbox", operation: "purchase", currencies: ["KWD"] }),
          ),
          fc.tuple(
            segment(m.id).map((s) => `GET /v1/admin/merchants/${s}`),
            fc.constant(""),
          ),
        ),
        async ([route, body]) => {
          const [method, url] = route.split(" ") as ["GET" | "POST", string];
          await expectNoFault({
            method,
            url,
            headers: { authorization: bearer, "content-type": "application/json" },
            ...(method === "POST" ? { payload: body } : {}),
          });
        },
      ),
    );
  });

  const dashboardHeaders = () => ({
    cookie,
    origin: stack.url,
    "content-type": "application/x-www-form-urlencoded",
  });

  it("the dashboard's forms, signed in with the CSRF token", async () => {
    await run(
      fc.asyncProperty(
        fc.oneof(
          fc.tuple(
            fc.constant("/dashboard/payments/new"),
            formBody({
              _csrf: csrf,
              amount: "1.000",
              currency_code: "KWD",
              pg_codes: m.pg.sandbox,
              order_no: "x",
            }),
          ),
          fc.tuple(
            segment(paidSessionId).map((s) => `/dashboard/payments/${s}/refund`),
            formBody({
              _csrf: csrf,
              amount: "0.001",
              idempotency_key: "dash_0123456789abcdef0123456789abcdef",
            }),
          ),
          fc.tuple(
            fc.constant("/dashboard/webhooks/config"),
            formBody({
              _csrf: csrf,
              enabled: "on",
              operations_webhook_url: "https://shop.example/ops",
              timeout_seconds: "5",
            }),
          ),
          fc.tuple(fc.constant("/dashboard/keys"), formBody({ _csrf: csrf, kind: "private", label: "x" })),
          fc.tuple(fc.constant("/dashboard/sdk"), formBody({ _csrf: csrf, is_enabled: "on" })),
          fc.tuple(
            fc.constant("/dashboard/deliveries/replay"),
            formBody({ _csrf: csrf, from: "2026-01-01", until: "2026-01-02" }),
          ),
          fc.tuple(
            segment("dsc_x").map((s) => `/dashboard/discrepancies/${s}/resolve`),
            formBody({ _csrf: csrf, note: "n" }),
          ),
        ),
        async ([url, body]) => {
          await expectNoFault({ method: "POST", url, headers: dashboardHeaders(), payload: body });
        },
      ),
    );
  });

  it("the dashboard's pages and filters", async () => {
    await run(
      fc.asyncProperty(
        fc.oneof(
          queryOf(["q", "state", "pg_code", "from", "to", "page"]).map((q) => `/dashboard/payments?${q}`),
          queryOf(["status", "session_id", "from", "until"]).map((q) => `/dashboard/deliveries?${q}`),
          segment(paidSessionId).map((s) => `/dashboard/payments/${s}`),
          segment(paidSessionId).map((s) => `/dashboard/payments/${s}/transactions`),
          queryOf(["next"]).map((q) => `/dashboard/sign-in?${q}`),
          fc.constant("/dashboard/discrepancies"),
        ),
        async (url) => {
          await expectNoFault({ method: "GET", url, headers: { cookie } });
        },
      ),
    );
  });

  it("the sign-in form, signed out", async () => {
    await run(
      fc.asyncProperty(
        formBody({ username: "someone", password: "a-password", next: "/dashboard" }),
        async (body) => {
          await expectNoFault({
            method: "POST",
            url: "/dashboard/sign-in",
            headers: { origin: stack.url, "content-type": "application/x-www-form-urlencoded" },
            payload: body,
          });
        },
      ),
    );
  });

  it("the hosted card page", async () => {
    await run(
      fc.asyncProperty(
        segment(sessionId),
        formBody({
          number: "4000000000000002",
          expiry: "12/30",
          cvc: "123",
          holder: "A",
          pg_code: m.pg.sandbox,
        }),
        fc.boolean(),
        async (id, body, post) => {
          await expectNoFault(
            post
              ? {
                  method: "POST",
                  url: `/pay/${id}`,
                  headers: { "content-type": "application/x-www-form-urlencoded" },
                  payload: body,
                }
              : { method: "GET", url: `/pay/${id}?${body}` },
          );
        },
      ),
    );
  });

  const notificationBody = fc.oneof(
    jsonBody({
      type: "operation",
      notification_id: "ntf_x",
      created_at: "2026-11-24T00:00:00Z",
      operation: "refund",
      pg_reference: "pg_x",
      gateway_operation_id: "op_x",
      amount: "1.000",
      currency: "KWD",
      pg_response: {},
    }),
    jsonBody({
      type: "operation_result",
      notification_id: "ntf_y",
      reference_number: "ref_x",
      status: "success",
      pg_response: {},
    }),
    jsonBody({
      type: "payment_result",
      notification_id: "ntf_z",
      pg_reference: "pg_x",
      result: { status: "approved" },
    }),
  );

  it("gateway notifications, signed with the setting's secret", async () => {
    const secret = sandboxSettingSecret(GATEWAY_SECRET, m.pg.sandbox);
    await run(
      fc.asyncProperty(notificationBody, contentType, async (body, type) => {
        await expectNoFault({
          method: "POST",
          url: `/v1/gateways/${m.pg.sandbox}/notifications`,
          headers: { "content-type": type, "sandbox-signature": signSandboxPayload(secret, body) },
          payload: body,
        });
      }),
    );
  });

  it("gateway notifications, unsigned or signed wrong, to any pg_code", async () => {
    await run(
      fc.asyncProperty(
        notificationBody,
        segment(m.pg.sandbox),
        hostileString,
        async (body, pgCode, signature) => {
          await expectNoFault({
            method: "POST",
            url: `/v1/gateways/${pgCode}/notifications`,
            headers: {
              "content-type": "application/json",
              "sandbox-signature": signature.replace(/[^\x20-\x7e]/g, ""),
            },
            payload: body,
          });
        },
      ),
    );
  });

  it("credentials and headers: every auth scheme, with hostile values", async () => {
    // Every special value in every scheme first, then generated ones.
    for (const scheme of ["Api-Key", "Basic", "Bearer"])
      for (const special of SPECIAL) {
        const value = scheme === "Basic" ? Buffer.from(`${special}:${special}`).toString("base64") : special;
        await expectNoFault({
          method: "GET",
          url: "/v1/payments/sess_x",
          headers: { authorization: `${scheme} ${value}`.replace(/[^\x20-\x7e]/g, "") },
        });
      }
    await run(
      fc.asyncProperty(
        fc.constantFrom("Api-Key", "Basic", "Bearer", "Digest", ""),
        hostileString,
        fc.constantFrom("/v1/payments/sess_x", "/v1/checkout/sess_x", "/v1/admin/merchants", "/metrics"),
        async (scheme, credential, url) => {
          const value =
            scheme === "Basic" ? Buffer.from(`${credential}:${credential}`).toString("base64") : credential;
          await expectNoFault({
            method: "GET",
            url,
            headers: { authorization: `${scheme} ${value}`.replace(/[^\x20-\x7e]/g, "") },
          });
        },
      ),
    );
    expect(sent).toBeGreaterThanOrEqual(5_000);
  });
});
