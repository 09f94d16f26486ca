/**
 * The input rules every route shares (input-guard.ts), one finding of the hostile-client review
 * each: NUL and control characters, lone surrogates, deep and wide JSON, a form body to the API,
 * query integers, out-of-range dates, the size of a 422.
 */
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
import { inputProblem, MAX_DEPTH, textProblem } from "./input-guard.js";
import { MAX_REPORTED_FIELDS } from "./problem.js";

describe("textProblem and inputProblem", () => {
  it.each([
    ["a\u0000b", "NUL"],
    ["\u0007", "U+0007"],
    ["\u001b[31m", "U+001B"],
    ["\u007f", "U+007F"],
    ["\ud800", "unpaired surrogate"],
    ["x\udc00", "unpaired surrogate"],
  ])("%j is refused (%s)", (value, words) => {
    expect(textProblem(value)).toContain(words);
  });
  it.each(["plain", "tab\there", "lines\r\nand more", "😀 paired surrogates", "عربي", ""])(
    "%j is text",
    (value) => {
      expect(textProblem(value)).toBeUndefined();
    },
  );
  it("names the field, keys included, and bounds depth without recursion", () => {
    expect(inputProblem({ customer: { first_name: "a\u0000" } }, "body")?.[0]).toBe("customer.first_name");
    expect(inputProblem({ ["bad\u0000key"]: 1 }, "body")?.[1]).toContain("field name");
    let deep: unknown = [];
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(inputProblem(deep, "body")?.[1]).toContain(`deeper than ${MAX_DEPTH}`);
  });
});

describe.each(STORES)("input rules over HTTP on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(() => stack?.close());

  const expect422 = (
    r: { status: number; json: { code: string; errors: Record<string, string[]> } },
    field: string,
  ) => {
    expect(r.status).toBe(422);
    expect(r.json.code).toBe("validation_failed");
    expect(Object.keys(r.json.errors)).toContain(field);
  };

  it("a NUL in a body field, a path parameter or a query is a 422 naming it, and nothing is stored", async () => {
    const before = await stack.db.query("select session_id from transactions where merchant_id = $1", [m.id]);
    expect422(await createTransaction(stack, m, { order_no: "A-\u0000-1" }), "order_no");
    expect422(await createTransaction(stack, m, { customer_first_name: "\ud800" }), "customer_first_name");
    expect(
      await stack.db.query("select session_id from transactions where merchant_id = $1", [m.id]),
    ).toEqual(before);
    expect422(await api(stack, "GET", "/v1/payments/%00", { auth: apiKey(m.privateKey) }), "session_id");
    expect422(
      await api(stack, "GET", "/v1/payments?order_no=%00", { auth: apiKey(m.privateKey) }),
      "order_no",
    );
  });

  it("a JSON body is UTF-8, names each field once, holds no prototype keys, and a syntax error says where", async () => {
    const post = (body: Buffer | string, type = "application/json") =>
      fetch(`${stack.url}/v1/checkout`, {
        method: "POST",
        headers: { authorization: apiKey(m.privateKey), "content-type": type },
        body: typeof body === "string" ? body : new Uint8Array(body),
      }).then(async (r) => ({ status: r.status, json: await r.json() }));
    const valid = `{"type":"e_commerce","pg_codes":["${m.pg.sandbox}"],"amount":"10.500","currency_code":"KWD"`;
    const before = await stack.db.query(
      "select count(*)::int as n from transactions where merchant_id = $1",
      [m.id],
    );
    // Bytes that are not UTF-8 were stored as U+FFFD; now refused.
    const latin = await post(
      Buffer.concat([
        Buffer.from(`${valid},"customer_first_name":"A`),
        Buffer.from([0xff, 0xfe, 0xc3]),
        Buffer.from('B"}'),
      ]),
    );
    expect(latin).toMatchObject({ status: 400, json: { code: "invalid_json" } });
    expect(latin.json.detail).toMatch(/not valid UTF-8/);
    const declared = await post(`${valid}}`, "application/json; charset=latin1");
    expect(declared.status).toBe(415);
    expect(declared.json.detail).toMatch(/declared as latin1; send it as UTF-8/);
    // A field twice: which one counts is not the client's guess.
    const twice = await post(`{"amount":"-1",${valid.slice(1)}}`);
    expect(twice).toMatchObject({ status: 400, json: { code: "invalid_json" } });
    expect(twice.json.detail).toBe('The body names the field "amount" twice in one object; send it once.');
    const proto = await post(`${valid},"__proto__":{"admin":true}}`);
    expect(proto.status).toBe(400);
    expect(proto.json.detail).toMatch(/"__proto__"/);
    const broken = await post(`${valid},}`);
    expect(broken.status).toBe(400);
    expect(broken.json.detail).toMatch(/position \d+/);
    // Nothing was created by any of them; the same body, once each and UTF-8, is.
    expect(
      await stack.db.query("select count(*)::int as n from transactions where merchant_id = $1", [m.id]),
    ).toEqual(before);
    // A value holding `":` (the duplicate check's slow path) is no duplicate; a declared UTF-8 is fine.
    const quoted = await post(
      `${valid},"customer_first_name":"Ünal \\":x"}`,
      "application/json; charset=UTF-8",
    );
    expect(quoted.status).toBe(201);
  });

  it("92,000 unknown fields get a small 422, cheaply; deep JSON is refused before validation", async () => {
    const wide = `{${Array.from({ length: 92_000 }, (_, i) => `"f${i}":1`).join(",")}}`;
    expect(wide.length).toBeLessThan(1024 * 1024);
    const r = await api(stack, "POST", `/v1/checkout/sess_x/payments`, {
      auth: apiKey(m.publicKey),
      body: wide,
    });
    expect(r.status).toBe(422);
    expect(r.text.length).toBeLessThan(2_000);
    const deep = await api(stack, "POST", "/v1/checkout", {
      auth: apiKey(m.privateKey),
      body: `${"[".repeat(20_000)}${"]".repeat(20_000)}`,
    });
    expect(deep.status).toBe(422);
    expect(deep.json.detail).toContain("deeper than");
  });

  it(`a 422 reports at most ${MAX_REPORTED_FIELDS} fields and says how many more`, async () => {
    const body = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`unknown_${i}`, i]));
    const r = await api(stack, "POST", "/v1/checkout", { auth: apiKey(m.privateKey), body });
    expect(r.status).toBe(422);
    expect(Object.keys(r.json.errors)).toHaveLength(MAX_REPORTED_FIELDS);
    expect(r.json.errors_omitted).toBeGreaterThan(100);
    expect(r.json.detail).toMatch(/and \d+ more/);
  });

  it("the API takes JSON only: a form body is 415; the notification endpoint lets the gateway's adapter judge it (the sandbox's: 415)", async () => {
    const form = await api(stack, "POST", "/v1/checkout", {
      auth: apiKey(m.privateKey),
      body: "type=e_commerce&amount=1",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect(form.json.code).toBe("unsupported_media_type");
    const notification = await api(stack, "POST", `/v1/gateways/${m.pg.sandbox}/notifications`, {
      body: "type=operation",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(notification.status).toBe(415);
    expect(notification.json.detail).toContain("sandbox");
  });

  it("query integers are read as numbers; dates outside 1970–9999 are 422", async () => {
    const five = await api(stack, "GET", "/v1/webhooks/messages?limit=5", { auth: apiKey(m.privateKey) });
    expect(five.status).toBe(200);
    expect422(
      await api(stack, "GET", "/v1/webhooks/messages?limit=five", { auth: apiKey(m.privateKey) }),
      "limit",
    );
    for (const since of ["0000-01-01T00:00:00Z", "10000-01-01T00:00:00Z", "yesterday"])
      expect422(
        await api(stack, "GET", `/v1/webhooks/messages?since=${encodeURIComponent(since)}`, {
          auth: apiKey(m.privateKey),
        }),
        "since",
      );
  });

  it("every API endpoint refuses a query parameter it does not take, and one given twice is told to be given once", async () => {
    const auth = apiKey(m.privateKey);
    // Endpoints with query parameters name the ones they take.
    const misspelt = await api(stack, "GET", "/v1/payments?stat=paid", { auth });
    expect422(misspelt, "stat");
    expect(misspelt.json.errors.stat![0]).toMatch(/^is not a parameter of this endpoint \(order_no, state, /);
    // Endpoints without any refuse every one (before, these ignored it and answered 200).
    for (const path of ["/v1/webhooks/endpoints", "/v1/webhooks/config", "/v1/sdk/config"]) {
      const r = await api(stack, "GET", `${path}?status=failed`, { auth });
      expect422(r, "status");
      expect(r.json.errors.status).toEqual([
        "is not taken: this endpoint has no query parameters; remove it",
      ]);
    }
    // order_no answers one payment: a list filter beside it is refused, not ignored.
    const beside = await api(stack, "GET", "/v1/payments?order_no=o-1&state=paid&since=notadate", { auth });
    expect422(beside, "state");
    expect(Object.keys(beside.json.errors).sort()).toEqual(["since", "state"]);
    expect(beside.json.errors.state[0]).toContain("cannot be combined with order_no");
    // A query that is not valid percent-encoding is refused as such a path is, not read literally.
    for (const query of ["order_no=%ED%A0%80", "q=%FF", "q=%E0%A4%A"]) {
      const bad = await api(stack, "GET", `/v1/payments?${query}`, { auth });
      expect([bad.status, bad.json.code]).toEqual([400, "invalid_url"]);
      expect(bad.headers.get("x-request-id")).toMatch(/^req_/);
    }
    expect((await api(stack, "GET", "/v1/payments?q=%D8%B9%D8%B1%D8%A8%D9%8A+x%20y", { auth })).status).toBe(
      200,
    );
    const twice = await api(stack, "GET", "/v1/webhooks/messages?limit=5&limit=6", { auth });
    expect422(twice, "limit");
    expect(twice.json.errors.limit).toEqual(["is given more than once; give it once"]);
    // A parameter with a list of values is told the same, once, not also "must be one of".
    const states = await api(stack, "GET", "/v1/payments?state=paid&state=failed", { auth });
    expect422(states, "state");
    expect(states.json.errors).toEqual({ state: ["is given more than once; give it once"] });
    const word = await api(stack, "GET", "/v1/webhooks/messages?limit=five", { auth });
    expect(word.json.errors.limit).toEqual(["must be a whole number"]);
  });

  it("a value that may take several forms gets one message saying which, not one per form", async () => {
    const auth = apiKey(m.privateKey);
    const config = await api(stack, "PUT", "/v1/webhooks/config", {
      auth,
      body: { operations_webhook_url: 5 },
    });
    expect422(config, "operations_webhook_url");
    expect(config.json.errors.operations_webhook_url).toEqual(["must be a string or null"]);
    const order = {
      type: "e_commerce",
      pg_codes: ["sandbox"],
      amount: "1.000",
      currency_code: "KWD",
      order_no: "o-1",
    };
    const neither = await api(stack, "POST", "/v1/checkout", {
      auth,
      body: { ...order, expiration_time: true },
    });
    expect(neither.json.errors.expiration_time).toEqual(["must be a string or a whole number"]);
    // A string too long is told what is wrong with it as a string.
    const long = await api(stack, "POST", "/v1/checkout", {
      auth,
      body: { ...order, expiration_time: `PT${"1".repeat(40)}M` },
    });
    expect(long.json.errors.expiration_time).toEqual(["must be at most 32 characters"]);
  });
});
