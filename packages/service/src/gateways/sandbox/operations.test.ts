import type { SandboxGatewayKind as GatewayKind } from "@svc/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayOperationRequest } from "../adapter.js";
import { sandboxSettingSecret } from "./signature.js";
import { type Fixture, startFixture, TEST_SECRET, waitFor } from "./testing.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture({ queuedDelayMs: 50 });
});
afterAll(() => fx.close());

let sequence = 0;
function op(
  kind: GatewayKind,
  pgReference: string,
  operation: GatewayOperationRequest["operation"],
  amountMinor: number,
): GatewayOperationRequest {
  sequence += 1;
  const amount = (amountMinor / 1000).toFixed(3);
  return {
    pgCode: `pg_${kind}`,
    kind,
    operation,
    pgReference,
    referenceNumber: `ref_${Date.now()}_${sequence}`,
    amount,
    amountMinor,
    currency: "KWD",
    notificationUrl: fx.receiver.url,
  };
}

async function paid(kind: GatewayKind, operation: "purchase" | "authorize" = "purchase"): Promise<string> {
  const result = await fx.adapter(kind).pay(fx.request(kind, { operation }));
  expect(result.status).toBe("approved");
  return result.pgReference;
}

describe("real-time operations (sandbox)", () => {
  it("captures, voids and refunds an authorized payment within its limits", async () => {
    const adapter = fx.adapter("sandbox");
    const ref = await paid("sandbox", "authorize");
    expect((await adapter.operate(op("sandbox", ref, "capture", 6_000))).status).toBe("success");
    expect((await adapter.operate(op("sandbox", ref, "void", 4_000))).status).toBe("success");
    const refund = await adapter.operate(op("sandbox", ref, "refund", 6_000));
    expect(refund).toMatchObject({ status: "success", pgResponse: { is_sandbox: true } });
    const over = await adapter.operate(op("sandbox", ref, "refund", 1));
    expect(over.status).toBe("declined");
    expect(String(over.pgResponse.reason)).toMatch(/exceeds the refundable amount/);
  });

  it("declines an amount whose minor units end in 13 (1.013 KWD)", async () => {
    const result = await fx.adapter("sandbox").operate(op("sandbox", await paid("sandbox"), "refund", 1_013));
    expect(result.status).toBe("declined");
    expect(String(result.pgResponse.reason)).toMatch(/13/);
  });

  it("ndebit refunds but refuses capture", async () => {
    const adapter = fx.adapter("ndebit");
    expect(adapter.operations).toEqual(["refund"]);
    expect(adapter.queued).toBe(false);
    const started = await adapter.pay(
      fx.request("ndebit", { formOfPayment: "redirect", instrument: { type: "redirect" } }),
    );
    if (started.status !== "action_required")
      throw new Error(`expected action_required, got ${started.status}`);
    await fetch(started.redirectUrl, {
      method: "POST",
      body: new URLSearchParams({ action: "approve" }),
      redirect: "manual",
    });
    const ref = started.pgReference;
    const capture = await adapter.operate(op("ndebit", ref, "capture", 1_000));
    expect(capture).toMatchObject({
      status: "declined",
      pgResponse: { reason: "gateway ndebit does not support capture" },
    });
    expect((await adapter.operate(op("ndebit", ref, "refund", 1_000))).status).toBe("success");
  });

  it("performs a repeated referenceNumber once", async () => {
    const adapter = fx.adapter("sandbox");
    const ref = await paid("sandbox");
    const request = op("sandbox", ref, "refund", 10_000);
    const first = await adapter.operate(request);
    const second = await adapter.operate(request);
    expect(first.status).toBe("success");
    expect(second).toEqual(first);
    // Had the refund run twice, the second would have exceeded the payment: it did not.
    const list = (await (await fetch(`${fx.sandbox.url}/dashboard/payments`)).json()) as {
      payments: { pg_reference: string; refunded: string }[];
    };
    expect(list.payments.find((p) => p.pg_reference === ref)?.refunded).toBe("10.000");
  });
});

describe("queued operations (sandbox-queued)", () => {
  async function queuedPayment(): Promise<string> {
    const result = await fx.adapter("sandbox-queued").pay(fx.request("sandbox-queued"));
    expect(result.status).toBe("approved");
    return result.pgReference;
  }

  it("answers queued, then notifies a signed operation_result success", async () => {
    const adapter = fx.adapter("sandbox-queued");
    const request = op("sandbox-queued", await queuedPayment(), "refund", 2_500);
    expect((await adapter.operate(request)).status).toBe("queued");
    const note = await waitFor(() =>
      fx.receiver.received.find((r) => r.json.reference_number === request.referenceNumber),
    );
    // Signed with the secret of the payment's own gateway setting, derived from the master secret.
    expect(adapter.verifyNotification(note.rawBody, note.headers, TEST_SECRET)).toBe(false);
    const secret = sandboxSettingSecret(TEST_SECRET, "pg_sandbox-queued");
    expect(adapter.verifyNotification(note.rawBody, note.headers, secret)).toBe(true);
    expect(adapter.parseNotification(note.rawBody)).toMatchObject({
      type: "operation_result",
      referenceNumber: request.referenceNumber,
      status: "success",
      pgResponse: { is_sandbox: true },
    });
  });

  it("notifies rejected for an amount ending in 13", async () => {
    const adapter = fx.adapter("sandbox-queued");
    const request = op("sandbox-queued", await queuedPayment(), "refund", 2_013);
    expect((await adapter.operate(request)).status).toBe("queued");
    const note = await waitFor(() =>
      fx.receiver.received.find((r) => r.json.reference_number === request.referenceNumber),
    );
    expect(adapter.parseNotification(note.rawBody)).toMatchObject({
      type: "operation_result",
      status: "rejected",
    });
  });

  it("notifies once for a repeated referenceNumber", async () => {
    const adapter = fx.adapter("sandbox-queued");
    const request = op("sandbox-queued", await queuedPayment(), "refund", 1_000);
    await adapter.operate(request);
    expect((await adapter.operate(request)).status).toBe("queued");
    await waitFor(() =>
      fx.receiver.received.find((r) => r.json.reference_number === request.referenceNumber),
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(
      fx.receiver.received.filter((r) => r.json.reference_number === request.referenceNumber),
    ).toHaveLength(1);
  });
});
