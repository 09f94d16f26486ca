/** Gateway notifications: authenticated by the setting's secret, each applied once. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { GATEWAY_SECRET, type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
import { SIGNATURE_HEADER, signSandboxPayload } from "./sandbox/signature.js";

describe.each(STORES)("gateway notifications on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
    receiver = await startReceiver();
    await configureWebhooks(stack, m, {
      operations_webhook_url: `${receiver.url}/ops`,
      notify_api_initiated: true,
    });
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
  });

  async function pgReferenceOf(sessionId: string) {
    const [row] = await stack.db.query<{ pg_reference: string }>(
      "select pg_reference from transactions where session_id = $1",
      [sessionId],
    );
    return row!.pg_reference;
  }
  const notify = (pgCode: string, body: string, signature?: string) =>
    fetch(`${stack.url}/v1/gateways/${pgCode}/notifications`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(signature === undefined ? {} : { [SIGNATURE_HEADER]: signature }),
      },
      body,
    });
  const children = async (sessionId: string) =>
    (await api(stack, "GET", `/v1/payments/${sessionId}`, { auth: apiKey(m.privateKey) })).json.transactions;

  it("a gateway-dashboard operation delivered twice is applied once and sends one webhook", async () => {
    const parent = await paidParent(stack, m);
    const body = JSON.stringify({
      type: "operation",
      notification_id: `ntf_test_${Date.now()}`,
      created_at: new Date().toISOString(),
      is_sandbox: true,
      operation: "refund",
      pg_reference: await pgReferenceOf(parent.session_id),
      gateway_operation_id: `op_test_${Date.now()}`,
      amount: "2.000",
      currency: "KWD",
      pg_response: { result: "SUCCESS" },
    });
    const first = await notify(m.pg.sandbox, body, signSandboxPayload(GATEWAY_SECRET, body));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true, outcome: "applied" });
    const again = await notify(m.pg.sandbox, body, signSandboxPayload(GATEWAY_SECRET, body));
    expect(await again.json()).toEqual({ received: true, outcome: "duplicate" });
    // The same gateway operation under a new notification id is still one child.
    const renamed = body.replace(/ntf_test_\d+/, "ntf_other");
    const third = await notify(m.pg.sandbox, renamed, signSandboxPayload(GATEWAY_SECRET, renamed));
    expect(await third.json()).toEqual({ received: true, outcome: "duplicate" });
    expect(await children(parent.session_id)).toHaveLength(1);
    await receiver.waitFor(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.json).toMatchObject({ source: "pg", amount: "2.000" });
  });

  it("an unauthenticated or wrongly signed notification is 401 and changes nothing", async () => {
    const parent = await paidParent(stack, m);
    const body = JSON.stringify({
      type: "operation",
      notification_id: `ntf_forged_${Date.now()}`,
      created_at: new Date().toISOString(),
      is_sandbox: true,
      operation: "refund",
      pg_reference: await pgReferenceOf(parent.session_id),
      gateway_operation_id: `op_forged_${Date.now()}`,
      amount: "2.000",
      currency: "KWD",
      pg_response: {},
    });
    const unsigned = await notify(m.pg.sandbox, body);
    expect(unsigned.status).toBe(401);
    const forged = await notify(m.pg.sandbox, body, signSandboxPayload("not-the-secret", body));
    expect(forged.status).toBe(401);
    expect((await forged.json()).code).toBe("invalid_signature");
    const tampered = await notify(
      m.pg.sandbox,
      body.replace('"2.000"', '"9.000"'),
      signSandboxPayload(GATEWAY_SECRET, body),
    );
    expect(tampered.status).toBe(401);
    expect(await children(parent.session_id)).toEqual([]);
    const unknown = await notify("no-such-pg", body, signSandboxPayload(GATEWAY_SECRET, body));
    expect(unknown.status).toBe(404);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.requests).toHaveLength(0);
  });

  it("a late, contradicting final result does not change a finished child", async () => {
    const parent = await paidParent(stack, m, "queued");
    const r = await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
    });
    expect(r.status).toBe(202);
    await receiver.waitFor(2); // queued, then the sandbox's own success notification
    const body = JSON.stringify({
      type: "operation_result",
      notification_id: `ntf_late_${Date.now()}`,
      created_at: new Date().toISOString(),
      is_sandbox: true,
      reference_number: r.json.reference_number,
      pg_reference: await pgReferenceOf(parent.session_id),
      operation: "refund",
      status: "rejected",
      pg_response: {},
    });
    const late = await notify(m.pg.queued, body, signSandboxPayload(GATEWAY_SECRET, body));
    expect(await late.json()).toEqual({ received: true, outcome: "ignored" });
    expect(await children(parent.session_id)).toMatchObject([{ state: "refunded" }]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests).toHaveLength(2);
  });
});
