/**
 * Event types and sequence numbers on every webhook request: `svc-event-type` says what happened,
 * `svc-sequence` numbers the messages of one parent to one URL 1, 2, 3… with no gap — a producer
 * that rolls back gives its number back, a retry and a replay resend the same number.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
import { enqueue, enqueueMany } from "./outbox.js";

describe.each(STORES)("event types and sequence numbers on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    [stack, receiver] = await Promise.all([startStack(store), startReceiver()]);
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });
  beforeEach(async () => {
    receiver.requests.length = 0;
    receiver.respond = () => ({ status: 200, body: "ok" });
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: `${receiver.url}/ops`,
      notify_api_initiated: true,
      retry_schedule_seconds: [1],
      timeout_seconds: 2,
    });
  });

  const auth = () => apiKey(m.privateKey);
  const refund = (sessionId: string) =>
    api(stack, "POST", "/v1/operations", {
      auth: auth(),
      body: { operation: "refund", session_id: sessionId, amount: "1.000" },
    });
  const received = (sessionId: string) =>
    receiver.requests.filter((r) => r.json?.session_id === sessionId && r.path === "/ops");
  async function waitFor(count: number, sessionId: string) {
    await expect.poll(() => received(sessionId).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
    return received(sessionId);
  }

  it("three refunds of one parent: svc-event-type operation, svc-sequence 1, 2, 3; another parent starts at 1", async () => {
    const parent = await paidParent(stack, m);
    for (let i = 0; i < 3; i++) expect((await refund(parent.session_id)).status).toBe(200);
    const got = await waitFor(3, parent.session_id);
    expect(got.map((r) => r.headers["svc-event-type"])).toEqual(["operation", "operation", "operation"]);
    expect(got.map((r) => r.headers["svc-sequence"]).sort()).toEqual(["1", "2", "3"]);
    // Delivered in order (one URL and parent at a time), so the numbers arrive in order too.
    expect(got.map((r) => r.headers["svc-sequence"])).toEqual(["1", "2", "3"]);
    const other = await paidParent(stack, m);
    expect((await refund(other.session_id)).status).toBe(200);
    expect((await waitFor(1, other.session_id))[0]!.headers["svc-sequence"]).toBe("1");
  });

  it("a producer that rolls back gives its number back: no gap", async () => {
    const parent = await paidParent(stack, m);
    expect((await refund(parent.session_id)).status).toBe(200);
    await waitFor(1, parent.session_id);
    const config = { timeout_seconds: 2, retry_schedule_seconds: [1] };
    await expect(
      stack.db.tx(async (q) => {
        await enqueue(
          q,
          {
            merchantId: m.id,
            kind: "operation",
            eventType: "operation",
            parentSessionId: parent.session_id,
            body: '{"rolled":"back"}',
          },
          [`${receiver.url}/ops`],
          config,
        );
        throw new Error("the producer fails after writing its message");
      }),
    ).rejects.toThrow("the producer fails");
    expect((await refund(parent.session_id)).status).toBe(200);
    const got = await waitFor(2, parent.session_id);
    expect(got.map((r) => r.headers["svc-sequence"])).toEqual(["1", "2"]);
  });

  // Sent to the receiver at `path`, for the messages of `parent`: [webhook-id, svc-sequence] in arrival order.
  const sequences = (path: string, parent: string) =>
    receiver.requests
      .filter((r) => r.path === path && (r.json as { parent?: string } | undefined)?.parent === parent)
      .map((r) => [r.headers["webhook-id"], r.headers["svc-sequence"]]);

  it("one statement writing several messages of one parent numbers them in order, per URL", async () => {
    const parent = `sess_batch_${store}_${Date.now()}`;
    const config = { timeout_seconds: 2, retry_schedule_seconds: [1] };
    const message = (n: number) => ({
      merchantId: m.id,
      kind: "operation" as const,
      eventType: "operation" as const,
      parentSessionId: parent,
      body: JSON.stringify({ parent, n }),
    });
    const a = `${receiver.url}/a`;
    const b = `${receiver.url}/b`;
    const ids = await stack.db.tx((q) =>
      enqueueMany(q, [
        { message: message(1), urls: [a, b], config },
        { message: message(2), urls: [a], config },
        { message: message(3), urls: [a, b], config },
      ]),
    );
    const [fourth] = await stack.db.tx((q) => enqueueMany(q, [{ message: message(4), urls: [b], config }]));
    stack.service.app.services.outbox.committed();
    await expect
      .poll(() => sequences("/a", parent).length + sequences("/b", parent).length, { timeout: 10_000 })
      .toBe(6);
    expect(sequences("/a", parent)).toEqual([
      [ids[0], "1"],
      [ids[1], "2"],
      [ids[2], "3"],
    ]);
    expect(sequences("/b", parent)).toEqual([
      [ids[0], "1"],
      [ids[2], "2"],
      [fourth, "3"],
    ]);
  });

  it("one message to several URLs (its own statement): each URL numbered as it is sent, the caller's order kept, a URL given twice numbered twice", async () => {
    const parent = `sess_one_${store}_${Date.now()}`;
    const config = { timeout_seconds: 2, retry_schedule_seconds: [1] };
    const message = (n: number) => ({
      merchantId: m.id,
      kind: "operation" as const,
      eventType: "operation" as const,
      parentSessionId: parent,
      body: JSON.stringify({ parent, n }),
    });
    const [a, b, c] = ["/a", "/b", "/c"].map((p) => `${receiver.url}${p}`) as [string, string, string];
    // Twenty producers of one parent at once, each one message to c, a, b (not sorted), c and b
    // written failed (a disabled endpoint's): nothing serialises them, and a gets 1…20 with no
    // gap as they are sent; c and b, never sent, take no number.
    const first = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        stack.db.tx((q) =>
          enqueueMany(q, [
            {
              message: message(n),
              urls: [c, a, b],
              endpointIds: [null, null, null],
              statuses: ["failed", "pending", "failed"],
              config,
            },
          ]),
        ),
      ),
    );
    expect(first.every(([id]) => typeof id === "string")).toBe(true);
    const twice = await stack.db.tx((q) => enqueueMany(q, [{ message: message(99), urls: [a, a], config }]));
    stack.service.app.services.outbox.committed();
    await expect.poll(() => sequences("/a", parent).length, { timeout: 10_000 }).toBe(22);
    expect(sequences("/a", parent).map(([, n]) => n)).toEqual(
      Array.from({ length: 22 }, (_, i) => String(i + 1)),
    );
    expect(sequences("/a", parent).slice(20)).toEqual([
      [twice[0], "21"],
      [twice[0], "22"],
    ]);
    const rows = await stack.db.query<{
      message_id: string;
      url: string;
      sequence: number | null;
      status: string;
    }>(
      "select message_id, url, sequence, status from webhook_deliveries where parent_session_id = $1 order by seq",
      [parent],
    );
    // Per message, its deliveries in the caller's order with the status given for each.
    const one = rows.filter((r) => r.message_id === first[0]![0]);
    // The row keeps the number its delivery was sent with.
    const sentAs = sequences("/a", parent).find(([id]) => id === first[0]![0])![1];
    expect(one.map((r) => [r.url, r.status, r.sequence === null ? null : String(r.sequence)])).toEqual([
      [c, "failed", null],
      [a, "succeeded", sentAs],
      [b, "failed", null],
    ]);
    expect(sequences("/b", parent)).toEqual([]);
    expect(sequences("/c", parent)).toEqual([]);
  });

  it("a retry and a replay resend the same number", async () => {
    const parent = await paidParent(stack, m);
    let first = true;
    receiver.respond = () => {
      if (!first) return { status: 200, body: "ok" };
      first = false;
      return { status: 503, body: "busy" };
    };
    expect((await refund(parent.session_id)).status).toBe(200);
    const tries = await waitFor(2, parent.session_id);
    expect(tries.map((r) => [r.headers["webhook-id"], r.headers["svc-sequence"]])).toEqual([
      [tries[0]!.headers["webhook-id"], "1"],
      [tries[0]!.headers["webhook-id"], "1"],
    ]);
    const messageId = tries[0]!.headers["webhook-id"] as string;
    // A replay puts back finished deliveries only: the second try's outcome may still be on its way
    // to the database when its request has arrived (a loaded machine), so ask until it counts one.
    await expect
      .poll(
        async () => {
          const replay = await api(stack, "POST", `/v1/webhooks/messages/${messageId}/replay`, {
            auth: auth(),
          });
          expect(replay.status).toBeLessThan(300);
          return (replay.json as { replayed: number }).replayed;
        },
        { timeout: 10_000 },
      )
      .toBe(1);
    const all = await waitFor(3, parent.session_id);
    expect(all[2]!.headers["svc-sequence"]).toBe("1");
  });

  it("the payment webhook: svc-event-type payment.paid, its own sequence at its own URL", async () => {
    const created = await paidParent(stack, m, "sandbox", { webhook_url: `${receiver.url}/payments` });
    await expect
      .poll(
        () =>
          receiver.requests.filter((r) => r.path === "/payments" && r.json?.session_id === created.session_id)
            .length,
        {
          timeout: 10_000,
        },
      )
      .toBe(1);
    const payment = receiver.requests.find(
      (r) => r.path === "/payments" && r.json?.session_id === created.session_id,
    )!;
    expect(payment.headers["svc-event-type"]).toBe("payment.paid");
    expect(payment.headers["svc-sequence"]).toBe("1");
  });

  it("GET /v1/webhooks/event-types lists the catalogue", async () => {
    const r = await api(stack, "GET", "/v1/webhooks/event-types", { auth: auth() });
    expect(r.status).toBe(200);
    expect(r.json.event_types.map((e: { type: string }) => e.type)).toEqual([
      "operation",
      "payment.paid",
      "payment.authorized",
      "payment.failed",
      "payment.canceled",
      "payment.expired",
      "payment.pending",
      "webhook.test",
      "webhook.endpoint_disabled",
    ]);
    for (const e of r.json.event_types) expect(e.description.length).toBeGreaterThan(10);
  });
});
