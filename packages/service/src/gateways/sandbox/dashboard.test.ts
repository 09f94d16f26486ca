import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxSettingSecret } from "./signature.js";
import { type Fixture, startFixture, TEST_SECRET, waitFor } from "./testing.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

async function dashboard(body: unknown) {
  const answer = await request(`${fx.sandbox.url}/dashboard/operations`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { statusCode: answer.statusCode, json: (await answer.body.json()) as Record<string, unknown> };
}

describe("gateway dashboard API (source pg)", () => {
  it("refunds on the gateway's side and notifies a signed operation notification", async () => {
    const adapter = fx.adapter("sandbox");
    const payment = await adapter.pay(fx.request("sandbox"));
    const answer = await dashboard({
      pg_reference: payment.pgReference,
      operation: "refund",
      amount: "4.000",
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json).toMatchObject({
      operation: "refund",
      amount: "4.000",
      currency: "KWD",
      status: "success",
    });
    const note = await waitFor(() =>
      fx.receiver.received.find((r) => r.json.notification_id === answer.json.notification_id),
    );
    // Signed with the secret of the payment's own gateway setting, derived from the master secret.
    expect(adapter.verifyNotification(note.rawBody, note.headers, TEST_SECRET)).toBe(false);
    const secret = sandboxSettingSecret(TEST_SECRET, "pg_sandbox");
    expect(adapter.verifyNotification(note.rawBody, note.headers, secret)).toBe(true);
    expect(adapter.parseNotification(note.rawBody)).toEqual({
      type: "operation",
      operation: "refund",
      pgReference: payment.pgReference,
      gatewayOperationId: answer.json.gateway_operation_id,
      amount: "4.000",
      currency: "KWD",
      pgResponse: expect.objectContaining({ is_sandbox: true }),
      notificationId: answer.json.notification_id,
    });
  });

  it("answers 4xx with a clear error for an unknown payment, a bad amount, or too much", async () => {
    const payment = await fx.adapter("sandbox").pay(fx.request("sandbox"));
    const unknown = await dashboard({ pg_reference: "pg_missing", operation: "refund", amount: "1.000" });
    expect(unknown).toMatchObject({ statusCode: 404, json: { error: "payment_not_found" } });
    const badAmount = await dashboard({
      pg_reference: payment.pgReference,
      operation: "refund",
      amount: "1.5",
    });
    expect(badAmount.statusCode).toBe(400);
    expect(String(badAmount.json.message)).toMatch(/KWD amounts take exactly 3 decimals/);
    const tooMuch = await dashboard({
      pg_reference: payment.pgReference,
      operation: "refund",
      amount: "10.001",
    });
    expect(tooMuch).toMatchObject({ statusCode: 422, json: { error: "operation_refused" } });
  });

  it("lists the gateway's payments with their ledger and no card data", async () => {
    const payment = await fx.adapter("sandbox").pay(fx.request("sandbox", { operation: "authorize" }));
    await dashboard({ pg_reference: payment.pgReference, operation: "capture", amount: "2.500" });
    const answer = await request(`${fx.sandbox.url}/dashboard/payments`);
    const text = await answer.body.text();
    expect(text).not.toContain("4242424242424242");
    const { payments } = JSON.parse(text) as { payments: Record<string, unknown>[] };
    expect(payments.find((p) => p.pg_reference === payment.pgReference)).toMatchObject({
      kind: "sandbox",
      status: "approved",
      captured: "2.500",
      operations: [expect.objectContaining({ operation: "capture", source: "dashboard", amount: "2.500" })],
    });
  });
});
