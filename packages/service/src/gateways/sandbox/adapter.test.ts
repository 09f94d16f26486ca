import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayError } from "../gateway-error.js";
import { createGatewayRegistry, GATEWAY_CAPABILITIES, type GatewayConnection } from "../registry.js";
import { SandboxGatewayAdapter } from "./adapter.js";
import { type Fixture, startFixture, waitFor } from "./testing.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture({ retryDelaysMs: [0, 20, 20, 20] });
});
afterAll(() => fx.close());

async function post(path: string, body: string) {
  const answer = await request(`${fx.sandbox.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  return { statusCode: answer.statusCode, json: (await answer.body.json()) as Record<string, unknown> };
}

describe("idempotency and conflicts", () => {
  it("returns the same payment for a repeated attemptId, and 409 if the attempt changed", async () => {
    const adapter = fx.adapter("sandbox");
    const request = fx.request("sandbox");
    const first = await adapter.pay(request);
    const second = await adapter.pay(request);
    expect(second.pgReference).toBe(first.pgReference);
    const changed = adapter.pay({ ...request, amount: "11.000", amountMinor: 11_000 });
    await expect(changed).rejects.toMatchObject({ code: "gateway_request_rejected", statusCode: 409 });
  });
});

describe("bad input", () => {
  it("answers 400 with a clear JSON error and keeps serving", async () => {
    expect(await post("/payments", "{not json")).toMatchObject({
      statusCode: 400,
      json: { error: "invalid_json" },
    });
    expect(await post("/payments", "[]")).toMatchObject({ statusCode: 400, json: { error: "invalid_json" } });
    const missing = await post(
      "/payments",
      JSON.stringify({ kind: "sandbox", instrument: { type: "card" } }),
    );
    expect(missing).toMatchObject({
      statusCode: 400,
      json: { error: "invalid_request", message: "pg_code must be a non-empty string" },
    });
    const mismatch = await post(
      "/operations",
      JSON.stringify({
        kind: "sandbox",
        operation: "refund",
        pg_reference: "p",
        reference_number: "r",
        amount: "1.000",
        amount_minor: 999,
        currency: "KWD",
        notification_url: fx.receiver.url,
      }),
    );
    expect(String(mismatch.json.message)).toMatch(/amount_minor must equal amount in minor units \(1000\)/);
    expect((await post("/payments/x/otp", "{}")).statusCode).toBe(400);
    const unknownPath = await request(`${fx.sandbox.url}/nope`);
    expect(unknownPath.statusCode).toBe(404);
    await unknownPath.body.dump();
    // Still alive after all that.
    expect((await fx.adapter("sandbox").pay(fx.request("sandbox"))).status).toBe("approved");
  });

  it("refuses a form of payment the kind does not accept", async () => {
    const rejected = fx.adapter("ndebit").pay(fx.request("ndebit"));
    await expect(rejected).rejects.toThrow(/gateway ndebit does not accept svc_pg/);
  });
});

describe("adapter transport", () => {
  it("throws gateway_unavailable when nothing listens", async () => {
    const adapter = new SandboxGatewayAdapter({
      kind: "sandbox",
      baseUrl: "http://127.0.0.1:9",
      timeoutMs: 500,
    });
    const error = await adapter.paymentStatus({ pgReference: "pg_x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe("gateway_unavailable");
    await adapter.close();
  });

  it("wraps a non-JSON answer as pg_response {raw}", async () => {
    const server = createServer((_req, res) =>
      res.writeHead(200, { "content-type": "text/plain" }).end("DECLINED BY ISSUER"),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const adapter = new SandboxGatewayAdapter({
      kind: "sandbox",
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    });
    expect(await adapter.paymentStatus({ pgReference: "pg_1" })).toEqual({
      status: "declined",
      pgReference: "pg_1",
      pgResponse: { raw: "DECLINED BY ISSUER" },
    });
    await adapter.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
});

describe("notification retries", () => {
  it("retries a failed notification with the same notification_id until it is accepted", async () => {
    const adapter = fx.adapter("ndebit");
    const started = await adapter.pay(
      fx.request("ndebit", { formOfPayment: "redirect", instrument: { type: "redirect" } }),
    );
    if (started.status !== "action_required") throw new Error("expected action_required");
    fx.receiver.failNext(2);
    await request(started.redirectUrl, { method: "POST", body: "action=approve" }).then((r) => r.body.dump());
    const note = await waitFor(() =>
      fx.receiver.received.find((r) => r.json.pg_reference === started.pgReference),
    );
    expect(note.json.notification_id).toMatch(/^ntf_/);
    expect(fx.receiver.received.filter((r) => r.json.pg_reference === started.pgReference)).toHaveLength(1);
  });
});

describe("registry", () => {
  const setting = (
    id: string,
    kind: GatewayConnection["kind"],
    changes: Partial<GatewayConnection> = {},
  ) => ({
    id,
    pg_code: `pg_${id}`,
    kind,
    notification_secret: "secret-0123456789abcdef",
    credentials: null,
    api_base_url: null,
    updated_at: new Date(1_700_000_000_000),
    ...changes,
  });

  it("gives one adapter per setting with the capability table's info, and a new one when the setting changes", async () => {
    const registry = createGatewayRegistry({ sandboxBaseUrl: fx.sandbox.url });
    const queued = registry.adapterFor(setting("a", "sandbox-queued"));
    expect(registry.adapterFor(setting("a", "sandbox-queued"))).toBe(queued);
    expect(queued.queued).toBe(true);
    expect(queued.formsOfPayment).toEqual(["svc_pg", "redirect"]);
    expect(registry.adapterFor(setting("b", "sandbox")).formsOfPayment).toEqual(
      GATEWAY_CAPABILITIES.sandbox.formsOfPayment,
    );
    const changed = registry.adapterFor(
      setting("a", "sandbox-queued", { updated_at: new Date(1_700_000_000_001) }),
    );
    expect(changed).not.toBe(queued);
    expect(
      (
        await registry
          .adapterFor(setting("c", "ndebit"))
          .pay(fx.request("ndebit", { formOfPayment: "redirect", instrument: { type: "redirect" } }))
      ).status,
    ).toBe("action_required");
    await registry.close();
  });

  it("refuses a real gateway's setting whose credentials it cannot open, naming what to do", () => {
    const registry = createGatewayRegistry({
      sandboxBaseUrl: fx.sandbox.url,
      factories: { knet: () => expect.unreachable("no adapter without credentials") },
    });
    expect(() => registry.adapterFor(setting("k", "knet"))).toThrow(/has no credentials/);
    expect(() =>
      registry.adapterFor(setting("k2", "knet", { credentials: "svc1.00000000.AAAA.BBBB" })),
    ).toThrow(/SVC_SECRETS_KEY/);
  });
});
