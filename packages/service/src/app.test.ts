import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, bearer, createMerchant, type TestMerchant } from "../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../test/support/stack.js";
import { STORES } from "../../../test/support/stores.js";
import { createSdkService } from "./checkout/sdk.service.js";

describe.each(STORES)("service basics on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(() => stack.close());

  it("answers health, readiness, OpenAPI 3.1 and /docs", async () => {
    expect((await api(stack, "GET", "/healthz")).json).toEqual({ status: "ok" });
    expect((await api(stack, "GET", "/readyz")).json).toEqual({ status: "ready" });
    const spec = (await api(stack, "GET", "/openapi.json")).json;
    expect(spec.openapi).toBe("3.1.0");
    for (const path of [
      "/v1/checkout",
      "/v1/checkout/{session_id}",
      "/v1/checkout/{session_id}/payments",
      "/v1/checkout/{session_id}/payments/otp",
      "/v1/sdk/config",
      "/v1/sdk/errors",
      "/v1/payments/{session_id}",
      "/v1/payments",
      "/v1/admin/merchants",
    ]) {
      expect(spec.paths[path], path).toBeDefined();
    }
    expect(
      spec.paths["/v1/checkout"].post.requestBody.content["application/json"].schema.properties.amount.type,
    ).toBe("string");
    const docs = await fetch(`${stack.url}/docs`, { redirect: "follow" });
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("swagger");
  });

  it("answers unknown routes with problem+json", async () => {
    const r = await api(stack, "GET", "/v1/nope");
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ code: "route_not_found", status: 404 });
  });

  it("a 404 for an id says what to check or where the right ids are listed", async () => {
    const auth = apiKey(m.privateKey);
    const cases: [string, string, string | undefined, string][] = [
      [
        "GET",
        "/v1/admin/merchants/mer_nosuch",
        bearer,
        "No merchant mer_nosuch. The operator API takes the merchant's id (mer_…) as POST /v1/admin/merchants answered it.",
      ],
      [
        "DELETE",
        `/v1/admin/merchants/${m.id}/keys/key_nosuch`,
        bearer,
        `No key key_nosuch of merchant ${m.id}. GET /v1/admin/merchants/${m.id} lists its keys.`,
      ],
      [
        "GET",
        `/v1/admin/merchants/${m.id}/gateways/nosuch`,
        bearer,
        `No gateway setting nosuch for merchant ${m.id}. GET /v1/admin/merchants/${m.id}/gateways lists its settings.`,
      ],
      [
        "GET",
        "/v1/payments/sess_nosuch",
        auth,
        "No transaction with session_id sess_nosuch. Check it: another merchant's transactions are not found.",
      ],
      [
        "GET",
        "/v1/webhooks/messages/msg_nosuch",
        auth,
        "No webhook message msg_nosuch. GET /v1/webhooks/messages lists this merchant's.",
      ],
      [
        "GET",
        "/v1/webhooks/endpoints/we_nosuch",
        auth,
        "No webhook endpoint we_nosuch. GET /v1/webhooks/endpoints lists this merchant's.",
      ],
      [
        "GET",
        "/v1/discrepancies/dsc_nosuch",
        auth,
        "No discrepancy dsc_nosuch. GET /v1/discrepancies lists this merchant's.",
      ],
    ];
    for (const [method, path, who, detail] of cases) {
      const r = await api(stack, method, path, { auth: who });
      expect([path, r.status, r.json.code, r.json.detail]).toEqual([path, 404, "not_found", detail]);
    }
  });

  it("answers a served path asked with another method 405, with the methods it takes in Allow", async () => {
    const auth = apiKey(m.privateKey);
    for (const [method, path, allow] of [
      ["DELETE", "/v1/payments/sess_x?expand=1", "GET, HEAD"],
      ["PUT", "/v1/operations", "POST"],
      ["POST", "/v1/webhooks/endpoints/we_x", "GET, HEAD, PATCH, DELETE"],
    ] as const) {
      const r = await api(stack, method, path, { auth });
      expect([method, path, r.status, r.headers.get("allow")]).toEqual([method, path, 405, allow]);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
      expect(r.json).toMatchObject({ code: "method_not_allowed", status: 405 });
      expect(r.json.detail).toBe(
        `${path.split("?")[0]} takes ${allow}, not ${method}. See /docs for the API.`,
      );
    }
    // A path nothing serves stays 404, whatever the method.
    const none = await api(stack, "DELETE", "/v1/nope", { auth });
    expect([none.status, none.json.code, none.headers.get("allow")]).toEqual([404, "route_not_found", null]);
  });

  it("answers what the router or the HTTP parser refuses as problem+json with a request id, too", async () => {
    const auth = apiKey(m.privateKey);
    const badEncoding = await api(stack, "GET", "/v1/payments/%E0%A4%A", { auth });
    expect(badEncoding.status).toBe(400);
    expect(badEncoding.headers.get("content-type")).toContain("application/problem+json");
    expect(badEncoding.json).toMatchObject({ code: "invalid_url", status: 400 });
    expect(badEncoding.json.detail).toMatch(/percent-encoding/);
    expect(badEncoding.headers.get("x-request-id")).toMatch(/^req_/);
    const tooLong = await api(stack, "GET", `/v1/payments/sess_${"a".repeat(5_000)}`, { auth });
    expect(tooLong.status).toBe(414);
    expect(tooLong.json).toMatchObject({ code: "invalid_url", status: 414 });
    expect(tooLong.headers.get("x-request-id")).toMatch(/^req_/);
    // Headers over Node's 16 KB: refused before a request exists, still in the API's shape.
    const huge = await fetch(`${stack.url}/v1/payments?q=${"x".repeat(20_000)}`, {
      headers: { authorization: auth },
    });
    expect(huge.status).toBe(431);
    expect(huge.headers.get("content-type")).toBe("application/problem+json");
    expect(huge.headers.get("x-request-id")).toMatch(/^req_/);
    expect(await huge.json()).toMatchObject({ code: "invalid_request", status: 431 });
  });

  it("garbage after a whole request's body: the request is answered as done, then the connection closes", async () => {
    // Once a refund was made and answered 400 "not valid HTTP/1.1" (the parser's refusal of the
    // bytes after its body was written over the request's own answer).
    const body = JSON.stringify({ enabled: true });
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(new URL(stack.url).port), "127.0.0.1");
      let got = "";
      socket.on("data", (d) => (got += d));
      socket.on("close", () => resolve(got));
      socket.on("error", reject);
      socket.write(
        `PUT /v1/webhooks/config HTTP/1.1\r\nHost: x\r\nAuthorization: ${apiKey(m.privateKey)}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}XX`,
      );
      setTimeout(() => socket.destroy(new Error(`no close within 10 s; got: ${got}`)), 10_000).unref();
    });
    expect(raw).toMatch(/^HTTP\/1\.1 200 /);
    expect(raw).not.toContain("not valid HTTP");
    expect(raw.match(/HTTP\/1\.1 \d{3}/g)).toHaveLength(1);
  });

  it("what Node's HTTP server answers itself is problem+json too: no Host, an unknown Expect, CONNECT", async () => {
    // Each was Node's bare answer (400 and 417 without a body) or a connection closed without a word.
    const exchange = (text: string) =>
      new Promise<{ head: string; body: string }>((resolve, reject) => {
        const socket = net.connect(Number(new URL(stack.url).port), "127.0.0.1");
        let got = "";
        socket.on("data", (d) => (got += d));
        socket.on("close", () => {
          const at = got.indexOf("\r\n\r\n");
          resolve({ head: got.slice(0, at), body: got.slice(at + 4) });
        });
        socket.on("error", reject);
        socket.write(text);
        setTimeout(() => socket.destroy(new Error(`no close within 10 s; got: ${got}`)), 10_000).unref();
      });
    const problemOf = async (text: string) => {
      const { head, body } = await exchange(text);
      expect(head).toMatch(/\r\ncontent-type: application\/problem\+json/i);
      expect(head).toMatch(/\r\nx-request-id: req_/i);
      return { head, problem: JSON.parse(body) };
    };
    const noHost = await problemOf("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n");
    expect(noHost.head).toMatch(/^HTTP\/1\.1 400 /);
    expect(noHost.problem).toMatchObject({ code: "invalid_request", status: 400 });
    expect(noHost.problem.detail).toContain("Host header");
    // HTTP/1.0 has no Host requirement: served.
    expect((await exchange("GET /healthz HTTP/1.0\r\n\r\n")).head).toMatch(/^HTTP\/1\.1 200 /);
    const expect417 = await problemOf(
      "POST /v1/operations HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
    );
    expect(expect417.head).toMatch(/^HTTP\/1\.1 417 /);
    expect(expect417.problem).toMatchObject({ code: "invalid_request", status: 417 });
    expect(expect417.problem.detail).toContain('"200-ok"');
    const connect = await problemOf("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n");
    expect(connect.head).toMatch(/^HTTP\/1\.1 405 /);
    expect(connect.head).toMatch(/\r\nAllow: GET, HEAD, POST, PUT, PATCH, DELETE/);
    expect(connect.problem).toMatchObject({ code: "method_not_allowed", status: 405 });
  });

  it("guards the operator API with the admin token", async () => {
    expect(
      (await api(stack, "POST", "/v1/admin/merchants", { body: { root_domain: "a.example.com" } })).status,
    ).toBe(401);
    expect(
      (
        await api(stack, "POST", "/v1/admin/merchants", {
          auth: "Bearer wrong",
          body: { root_domain: "a.example.com" },
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await api(stack, "POST", "/v1/admin/merchants", {
          auth: apiKey(m.privateKey),
          body: { root_domain: "a.example.com" },
        })
      ).status,
    ).toBe(401);
  });

  it("validates merchants: no scheme in the root domain, no duplicates", async () => {
    const scheme = await api(stack, "POST", "/v1/admin/merchants", {
      auth: bearer,
      body: { root_domain: "https://shop.example.com" },
    });
    expect(scheme.status).toBe(422);
    expect(scheme.json.errors.root_domain[0]).toMatch(/without a scheme/);
    const dup = await api(stack, "POST", "/v1/admin/merchants", {
      auth: bearer,
      body: { root_domain: m.rootDomain },
    });
    expect(dup.status).toBe(409);
  });

  it("refuses a root domain's port or address out of range, a user's phone that is not one, and body fields an endpoint does not take", async () => {
    for (const [root_domain, words] of [
      ["shop.example.com:70000", /port out of range/],
      ["shop.example.com:0", /port out of range/],
      ["300.1.1.1", /each part is 0–255/],
    ] as const) {
      const r = await api(stack, "POST", "/v1/admin/merchants", { auth: bearer, body: { root_domain } });
      expect(r.status).toBe(422);
      expect(r.json.errors.root_domain[0]).toMatch(words);
    }
    const fine = await api(stack, "POST", "/v1/admin/merchants", {
      auth: bearer,
      body: { root_domain: `127.0.0.1:${40000 + (process.pid % 20000)}` },
    });
    expect(fine.status).toBe(201);
    const user = {
      username: `u${process.pid}`,
      email: "u@shop.example",
      password: "a long enough password 1",
      permissions: [],
    };
    const phone = await api(stack, "POST", `/v1/admin/merchants/${m.id}/users`, {
      auth: bearer,
      body: { ...user, phone: "call me maybe" },
    });
    expect(phone.status).toBe(422);
    expect(phone.json.errors.phone[0]).toMatch(/phone number of digits/);
    const rotate = await api(stack, "POST", "/v1/admin/secrets/rotate", {
      auth: bearer,
      body: { key: "new" },
    });
    expect(rotate.status).toBe(422);
    expect(rotate.json.errors).toEqual({ key: ["is not taken: this endpoint takes no body; send none"] });
    expect((await api(stack, "POST", "/v1/admin/secrets/rotate", { auth: bearer })).status).toBe(200);
    // No body labelled JSON, as many HTTP clients send on every request, is no body.
    const labelled = await fetch(`${stack.url}/v1/admin/secrets/rotate`, {
      method: "POST",
      headers: { authorization: bearer, "content-type": "application/json" },
    });
    expect(labelled.status).toBe(200);
  });

  it("stores keys hashed, shows them once, and revokes them", async () => {
    const created = await api(stack, "POST", `/v1/admin/merchants/${m.id}/keys`, {
      auth: bearer,
      body: { kind: "private", label: "ci" },
    });
    expect(created.status).toBe(201);
    expect(created.json.key).toMatch(/^sk_[a-z2-7]{52}$/);
    const stored = await stack.db.query<{ key_hash: string }>("select key_hash from api_keys where id = $1", [
      created.json.id,
    ]);
    expect(stored[0]!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(
      JSON.stringify(await stack.db.query("select * from api_keys where merchant_id = $1", [m.id])),
    ).not.toContain(created.json.key);
    const listed = await api(stack, "GET", `/v1/admin/merchants/${m.id}`, { auth: bearer });
    expect(JSON.stringify(listed.json)).not.toContain(created.json.key);
    expect(
      (await api(stack, "GET", "/v1/payments?order_no=none", { auth: apiKey(created.json.key) })).status,
    ).toBe(404);
    expect(
      (await api(stack, "DELETE", `/v1/admin/merchants/${m.id}/keys/${created.json.id}`, { auth: bearer }))
        .status,
    ).toBe(204);
    const revoked = await api(stack, "GET", "/v1/payments?order_no=none", { auth: apiKey(created.json.key) });
    expect(revoked.status).toBe(401);
    expect(revoked.json.code).toBe("invalid_credentials");
  });

  it("refuses a public key on every private endpoint with a message naming the private key", async () => {
    for (const [method, path, body] of [
      ["POST", "/v1/checkout", {}],
      ["GET", "/v1/payments/sess_x", undefined],
      ["GET", "/v1/payments?order_no=x", undefined],
    ] as const) {
      const r = await api(stack, method, path, { auth: apiKey(m.publicKey), body });
      expect(r.status, path).toBe(403);
      expect(r.json.code).toBe("private_key_required");
      expect(r.json.detail).toContain("sk_");
    }
  });

  it("serves SDK endpoints with CORS for other origins, and answers preflight", async () => {
    const pre = await fetch(`${stack.url}/v1/sdk/config`, {
      method: "OPTIONS",
      headers: {
        origin: "https://shop.example.com",
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization",
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-headers")).toContain("authorization");
    // The seed's Tracking-Key may be sent, and a page can read what support asks for.
    expect(pre.headers.get("access-control-allow-headers")).toContain("tracking-key");
    const config = await api(stack, "GET", "/v1/sdk/config", {
      auth: apiKey(m.publicKey),
      headers: { origin: "https://shop.example.com" },
    });
    expect(config.headers.get("access-control-allow-origin")).toBe("*");
    expect(config.headers.get("access-control-expose-headers")).toBe(
      "x-request-id, idempotent-replayed, retry-after",
    );
    expect(config.json).toEqual({
      error_reporting: { is_enabled: true, endpoint: `${stack.url}/v1/sdk/errors` },
    });
  });

  it("stores SDK error reports only while reporting is enabled", async () => {
    const stored = await api(stack, "POST", "/v1/sdk/errors", {
      auth: apiKey(m.publicKey),
      body: { message: "boom", form_of_payment: "wallet_b_pay" },
    });
    expect(stored.status).toBe(201);
    await stack.service.app.services.sdk.setErrorReporting(m.id, false);
    const ignored = await api(stack, "POST", "/v1/sdk/errors", {
      auth: apiKey(m.publicKey),
      body: { message: "boom" },
    });
    expect(ignored.status).toBe(202);
    expect(ignored.json).toEqual({ stored: false });
    expect(
      (await api(stack, "GET", "/v1/sdk/config", { auth: apiKey(m.publicKey) })).json.error_reporting
        .is_enabled,
    ).toBe(false);
    const rows = await stack.db.query("select message from sdk_error_reports where merchant_id = $1", [m.id]);
    expect(rows).toEqual([{ message: "boom" }]);
    await stack.service.app.services.sdk.setErrorReporting(m.id, true);
  });

  it("keeps a merchant's newest SDK error reports, none older than 30 days", async () => {
    const merchant = await createMerchant(stack);
    await stack.service.app.services.sdk.setErrorReporting(merchant.id, true);
    await stack.db.query(
      `insert into sdk_error_reports (id, merchant_id, message, created_at)
       values ('err_old', $1, 'old', now() - interval '31 days'), ('err_recent', $1, 'recent', now() - interval '29 days')`,
      [merchant.id],
    );
    const sdk = createSdkService(stack.db, stack.url, 3);
    for (const n of [1, 2, 3]) await sdk.report(merchant.id, { message: `r${n}` }, undefined);
    const messages = async () =>
      (
        await stack.db.query<{ message: string }>(
          "select message from sdk_error_reports where merchant_id = $1 order by created_at, message",
          [merchant.id],
        )
      ).map((r) => r.message);
    // The 31-day-old one went with the first report; the 29-day-old one with the third (3 kept).
    expect(await messages()).toEqual(["r1", "r2", "r3"]);
    await sdk.report(merchant.id, { message: "r4" }, undefined);
    expect(await messages()).toHaveLength(3);
    expect(await messages()).toContain("r4");
    // Another merchant's reports are not counted or touched.
    expect(
      await stack.db.query("select message from sdk_error_reports where merchant_id = $1", [m.id]),
    ).toEqual([{ message: "boom" }]);
  });

  it("bounds an SDK error report (the public key is public): small details, a session id and a form of payment in their shapes", async () => {
    const report = (body: Record<string, unknown>) =>
      api(stack, "POST", "/v1/sdk/errors", { auth: apiKey(m.publicKey), body });
    const big = await report({ message: "boom", details: { dump: "x".repeat(9_000) } });
    expect(big.status).toBe(422);
    expect(big.json.errors.details[0]).toMatch(/at most 8 KB/);
    const wide = await report({
      message: "boom",
      details: Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`k${i}`, i])),
    });
    expect(wide.status).toBe(422);
    expect((await report({ message: "boom", session_id: "../etc" })).json.errors).toHaveProperty(
      "session_id",
    );
    expect((await report({ message: "boom", form_of_payment: "Nope!" })).json.errors).toHaveProperty(
      "form_of_payment",
    );
    const fine = await report({
      message: "boom",
      session_id: "sess_abc123",
      form_of_payment: "svc_pg",
      details: { code: "network", status: 0, page: "https://shop.example.com/checkout" },
    });
    expect(fine.status).toBe(201);
  });
});
