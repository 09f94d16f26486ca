/**
 * Replay puts finished deliveries back in the queue with the merchant's current timeout and
 * retry schedule, not those in force when the message was created.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";

/** The settings when the messages are created: one retry, so a failing delivery ends after 2 tries. */
const AT_CREATION = { timeout_seconds: 2, retry_schedule_seconds: [1] };
/** The settings when they are replayed: three retries (4 tries), a longer timeout. */
const AT_REPLAY = { timeout_seconds: 7, retry_schedule_seconds: [1, 1, 1] };

interface Delivery {
  id: string;
  status: string;
  tries: number;
  attempts: unknown[];
}

describe.each(STORES)("webhook replay on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    stack = await startStack(store);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });
  beforeEach(async () => {
    // A merchant per test: bulk replay takes every failed delivery of the merchant.
    m = await createMerchant(stack);
    receiver.requests.length = 0;
    receiver.respond = () => ({ status: 500 });
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: `${receiver.url}/hook`,
      notify_api_initiated: true,
      ...AT_CREATION,
    });
  });

  const auth = () => apiKey(m.privateKey);
  async function refund() {
    const parent = await paidParent(stack, m);
    const r = await api(stack, "POST", "/v1/operations", {
      auth: auth(),
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
    });
    expect(r.status).toBe(200);
    return parent.session_id;
  }
  /** The message's only delivery once `done` holds; the wait only bounds a hang. */
  async function deliveryOf(sessionId: string, done: (d: Delivery) => boolean): Promise<Delivery> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const r = await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, { auth: auth() });
      const deliveries = r.json.messages[0]?.deliveries as Delivery[] | undefined;
      expect(deliveries?.length ?? 1).toBe(1);
      const delivery = deliveries?.[0];
      if (delivery && done(delivery)) return delivery;
      if (Date.now() > deadline) throw new Error(`delivery of ${sessionId}: ${JSON.stringify(delivery)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const failed = (d: Delivery) => d.status === "failed";
  async function storedSettings(deliveryId: string) {
    const [row] = await stack.db.query<{ timeout_seconds: number; retry_schedule_seconds: number[] }>(
      "select timeout_seconds, retry_schedule_seconds from webhook_deliveries where id = $1",
      [deliveryId],
    );
    return row;
  }

  it("one message: its replayed delivery takes the current timeout and retry schedule", async () => {
    const sessionId = await refund();
    const first = await deliveryOf(sessionId, failed);
    expect(first.tries).toBe(2);
    expect(await storedSettings(first.id)).toEqual(AT_CREATION);

    await configureWebhooks(stack, m, AT_REPLAY);
    const r = await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, { auth: auth() });
    const replay = await api(stack, "POST", `/v1/webhooks/messages/${r.json.messages[0].id}/replay`, {
      auth: auth(),
    });
    expect(replay.status).toBe(202);
    expect(replay.json).toEqual({ replayed: 1, skipped: 0 });
    expect(await storedSettings(first.id)).toEqual(AT_REPLAY);
    // Fails for good only after the current schedule's 4 tries (the old one would stop at 2).
    const again = await deliveryOf(sessionId, (d) => failed(d) && d.attempts.length > 2);
    expect(again.tries).toBe(4);
    expect(again.attempts).toHaveLength(2 + 4);
  });

  it("bulk: every failed delivery is replayed with the current settings", async () => {
    const sessions = [await refund(), await refund()];
    const before = await Promise.all(sessions.map((s) => deliveryOf(s, failed)));
    expect(before.map((d) => d.tries)).toEqual([2, 2]);

    await configureWebhooks(stack, m, AT_REPLAY);
    // Each replayed delivery fails twice more, then succeeds: the third try exists only under the new schedule.
    receiver.respond = (request) => {
      const id = request.headers["webhook-id"];
      const tries = receiver.requests.filter((r) => r.headers["webhook-id"] === id).length;
      return { status: tries <= 2 + 2 ? 500 : 200 };
    };
    const bulk = await api(stack, "POST", "/v1/webhooks/replay", {
      auth: auth(),
      body: { status: "failed" },
    });
    expect(bulk.status).toBe(202);
    expect(bulk.json).toEqual({ replayed: 2, skipped: 0 });
    for (const [i, sessionId] of sessions.entries()) {
      expect(await storedSettings(before[i]!.id)).toEqual(AT_REPLAY);
      const after = await deliveryOf(sessionId, (d) => d.status === "succeeded");
      expect(after.tries).toBe(3);
      expect(after.attempts).toHaveLength(2 + 3);
    }
  });
});
