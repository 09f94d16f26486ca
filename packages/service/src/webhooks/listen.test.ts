/**
 * `svc listen`'s service side over real HTTP on both stores, with this test as the CLI: it starts
 * a cli endpoint, reads the event stream, forwards each delivery to a local receiver exactly as
 * sent, and reports the answer. Deliveries are signed like any (verified with @svc/webhooks), a
 * failed forward is retried on the schedule with the same webhook-id, one parent's messages wait
 * for each other, and messages sent while no CLI is connected wait for it.
 */
import { verifyWebhook } from "@svc/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
import type { StreamedDelivery } from "./listen.js";
import { enqueueMany } from "./outbox.js";
import { purgeOldWebhooks } from "./retention.js";

/** An SSE reader: the `delivery` events, as they come. */
async function openStream(url: string, key: string) {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { authorization: apiKey(key) }, signal: controller.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
  const deliveries: StreamedDelivery[] = [];
  const waiters: (() => void)[] = [];
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event === "delivery" && data) {
            deliveries.push(JSON.parse(data) as StreamedDelivery);
            for (const w of waiters.splice(0)) w();
          }
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    deliveries,
    async next(count: number, timeoutMs = 10_000): Promise<StreamedDelivery[]> {
      const deadline = Date.now() + timeoutMs;
      while (deliveries.length < count) {
        if (Date.now() > deadline) throw new Error(`only ${deliveries.length} of ${count} deliveries came`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 200);
        });
      }
      return deliveries.slice(0, count);
    },
    close: () => controller.abort(),
  };
}

describe.each(STORES)("svc listen, service side, on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    [stack, receiver] = await Promise.all([startStack(store), startReceiver()]);
    m = await createMerchant(stack);
    await configureWebhooks(stack, m, {
      enabled: true,
      notify_api_initiated: true,
      retry_schedule_seconds: [1, 1, 1],
    });
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });
  const call = (method: string, path: string, body?: unknown) =>
    api(stack, method, path, { auth: apiKey(m.privateKey), ...(body === undefined ? {} : { body }) });
  const refund = (sessionId: string) =>
    call("POST", "/v1/operations", { operation: "refund", session_id: sessionId, amount: "1.000" });
  /** What the CLI does with one delivery: POST it to the local server as it came, and report the answer. */
  async function forward(endpointId: string, d: StreamedDelivery, path: string) {
    const started = performance.now();
    const local = await fetch(`${receiver.url}${path}`, { method: "POST", headers: d.headers, body: d.body });
    const text = await local.text();
    const result = await call(
      "POST",
      `/v1/webhooks/endpoints/${endpointId}/deliveries/${d.delivery_id}/result`,
      {
        attempt: d.attempt,
        status_code: local.status,
        latency_ms: performance.now() - started,
        response_body: text,
      },
    );
    expect(result.status).toBe(200);
    return result.json;
  }

  it("streams signed deliveries, records the local answers, retries a failed forward, and keeps what comes while away", async () => {
    const started = await call("POST", "/v1/webhooks/listen", { event_types: ["operation"] });
    expect(started.status).toBe(201);
    expect(started.json.endpoint).toMatchObject({ kind: "cli", event_types: ["operation"], enabled: true });
    expect(started.json.signing_secret).toBe(m.webhookSecret);
    const id = started.json.endpoint.id as string;
    const stream = await openStream(`${stack.url}${started.json.stream_path}`, m.privateKey);

    const parent = await paidParent(stack, m);
    expect((await refund(parent.session_id)).status).toBe(200);
    const [first] = await stream.next(1);
    expect(first!.attempt).toBe(1);
    expect(first!.headers["svc-event-type"]).toBe("operation");
    expect(first!.headers["svc-sequence"]).toBe("1");
    // The local server fails the first time: the delivery comes again on the schedule, same message.
    receiver.respond = () => ({ status: 500, body: "local bug" });
    expect(await forward(id, first!, "/local")).toMatchObject({ status: "retrying" });
    receiver.respond = () => ({ status: 200, body: "ok" });
    const [, again] = await stream.next(2);
    expect(again!.delivery_id).toBe(first!.delivery_id);
    expect(again!.attempt).toBe(2);
    expect(again!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(await forward(id, again!, "/local")).toMatchObject({ status: "succeeded" });
    const received = receiver.requests.filter((r) => r.path === "/local");
    const event = await verifyWebhook(
      received.at(-1)!.body,
      received.at(-1)!.headers as Record<string, string>,
      m.webhookSecret,
    );
    expect(event.type === "operation" && event.payload.session_id).toBe(parent.session_id);
    // The delivery log shows both attempts.
    const message = await call("GET", `/v1/webhooks/messages/${first!.headers["webhook-id"]}`);
    const delivery = message.json.deliveries.find((d: { endpoint_id: string }) => d.endpoint_id === id);
    expect(delivery).toMatchObject({ status: "succeeded" });
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 200]);

    // Two refunds of one parent: the second waits until the first is answered.
    expect((await refund(parent.session_id)).status).toBe(200);
    expect((await refund(parent.session_id)).status).toBe(200);
    const [, , second] = await stream.next(3);
    await new Promise((r) => setTimeout(r, 800));
    expect(stream.deliveries).toHaveLength(3);
    expect(second!.headers["svc-sequence"]).toBe("2");
    await forward(id, second!, "/local");
    const [, , , third] = await stream.next(4);
    expect(third!.headers["svc-sequence"]).toBe("3");
    await forward(id, third!, "/local");

    // Away: the CLI disconnects; a refund meanwhile waits, and comes when it reconnects.
    stream.close();
    await new Promise((r) => setTimeout(r, 200));
    expect((await refund(parent.session_id)).status).toBe(200);
    const back = await openStream(`${stack.url}${started.json.stream_path}`, m.privateKey);
    const [waited] = await back.next(1);
    expect(waited!.headers["svc-sequence"]).toBe("4");
    await forward(id, waited!, "/local");
    // A replay of a message sent to it comes down its stream again (the worker once took it and
    // posted it to the endpoint's svc-cli:// name).
    const messageId = first!.headers["webhook-id"]!;
    const replayed = await call("POST", `/v1/webhooks/messages/${messageId}/replay`);
    expect(replayed.json).toEqual({ replayed: 1, skipped: 0 });
    const [, replay] = await back.next(2);
    expect(replay!.headers["webhook-id"]).toBe(messageId);
    expect(await forward(id, replay!, "/local")).toMatchObject({ status: "succeeded" });
    // One left waiting when the CLI stops: deleting the endpoint ends it (it stayed 'stream').
    expect((await refund(parent.session_id)).status).toBe(200);
    const [, , left] = await back.next(3);
    back.close();
    // The CLI deletes its endpoint when it stops.
    expect((await call("DELETE", `/v1/webhooks/endpoints/${id}`)).status).toBe(204);
    const ended = await call("GET", `/v1/webhooks/messages/${left!.headers["webhook-id"]}`);
    expect(ended.json.deliveries.find((d: { endpoint_id: string }) => d.endpoint_id === id)).toMatchObject({
      status: "failed",
    });
  });

  it("svc-sequence goes on down the stream after the retention purge deleted what came before", async () => {
    const started = await call("POST", "/v1/webhooks/listen", { event_types: ["operation"] });
    const id = started.json.endpoint.id as string;
    const stream = await openStream(`${stack.url}${started.json.stream_path}`, m.privateKey);
    try {
      const parent = await paidParent(stack, m);
      expect((await refund(parent.session_id)).status).toBe(200);
      const [first] = await stream.next(1);
      expect(first!.headers["svc-sequence"]).toBe("1");
      expect(await forward(id, first!, "/local")).toMatchObject({ status: "succeeded" });
      const messageId = first!.headers["webhook-id"]!;
      await stack.db.query(
        `update webhook_deliveries set created_at = now() - interval '91 days', completed_at = now() - interval '91 days'
          where message_id = $1`,
        [messageId],
      );
      await purgeOldWebhooks(stack.db, 90);
      expect((await call("GET", `/v1/webhooks/messages/${messageId}`)).status).toBe(404);
      expect((await refund(parent.session_id)).status).toBe(200);
      const [, second] = await stream.next(2);
      expect(second!.headers["svc-sequence"]).toBe("2");
      await forward(id, second!, "/local");
    } finally {
      stream.close();
      await call("DELETE", `/v1/webhooks/endpoints/${id}`);
    }
  });

  it("a cli endpoint nobody has read for a day is deleted (a CLI killed outright), what waits for it ended; one read now stays", async () => {
    const abandoned = (await call("POST", "/v1/webhooks/listen", { event_types: ["operation"] })).json;
    const live = (await call("POST", "/v1/webhooks/listen", { event_types: ["operation"] })).json;
    const [abandonedId, liveId] = [abandoned.endpoint.id as string, live.endpoint.id as string];
    // Both were made more than a day ago; only the live one's stream is open now.
    for (const id of [abandonedId, liveId])
      await stack.db.query(
        "update webhook_endpoints set created_at = now() - interval '25 hours' where id = $1",
        [id],
      );
    const stream = await openStream(`${stack.url}${live.stream_path}`, m.privateKey);
    const parent = await paidParent(stack, m);
    expect((await refund(parent.session_id)).status).toBe(200);
    const [waiting] = await stream.next(1);

    // The sweep sees every merchant's; this test's two endpoints are the ones it looks at.
    const sweep = async () =>
      (await stack.service.app.services.endpoints.removeAbandonedCli()).filter((id) =>
        [abandonedId, liveId].includes(id),
      );
    expect(await sweep()).toEqual([abandonedId]);
    expect((await call("GET", `/v1/webhooks/endpoints/${abandonedId}`)).status).toBe(404);
    // Its CLI, back after the day (a laptop asleep), is told why and what to do.
    const gone = await call("GET", `/v1/webhooks/endpoints/${abandonedId}/stream`);
    expect([gone.status, gone.json.detail]).toEqual([
      404,
      expect.stringContaining("nothing read it for a day"),
    ]);
    expect(gone.json.detail).toContain("Start svc listen again");
    expect((await call("GET", `/v1/webhooks/endpoints/${liveId}`)).status).toBe(200);
    const message = await call("GET", `/v1/webhooks/messages/${waiting!.headers["webhook-id"]}`);
    const ended = message.json.deliveries.find((d: { endpoint_id: string }) => d.endpoint_id === abandonedId);
    expect(ended).toMatchObject({ status: "failed" });
    // A stream that closed a moment ago is not abandoned either.
    stream.close();
    await new Promise((r) => setTimeout(r, 300));
    expect(await sweep()).toEqual([]);
    // Nor is it once a day has passed since then (the sweep's clock shifted past it).
    stack.advance(25 * 3600 * 1000);
    try {
      expect(await sweep()).toEqual([liveId]);
    } finally {
      stack.advance(-25 * 3600 * 1000);
    }
  });

  it("a message written for a svc listen endpoint deleted meanwhile is ended by the sweep, not left streaming for good", async () => {
    const started = (await call("POST", "/v1/webhooks/listen", { event_types: ["operation"] })).json;
    const id = started.endpoint.id as string;
    expect((await call("DELETE", `/v1/webhooks/endpoints/${id}`)).status).toBe(204);
    // As an operation that routed its message to the endpoint before the delete, and wrote it
    // after (it was waiting for its gateway), writes it.
    const [messageId] = await enqueueMany(stack.db, [
      {
        message: {
          merchantId: m.id,
          kind: "operation",
          eventType: "operation",
          parentSessionId: `sess_orphan_${store}`,
          body: "{}",
        },
        urls: [started.endpoint.url as string],
        endpointIds: [id],
        statuses: ["stream"],
        config: { timeout_seconds: 5, retry_schedule_seconds: [60] },
      },
    ]);
    await stack.service.app.services.endpoints.removeAbandonedCli();
    const [row] = await stack.db.query<{ status: string; last_error: string }>(
      "select status, last_error from webhook_deliveries where message_id = $1",
      [messageId],
    );
    expect(row).toEqual({ status: "failed", last_error: "endpoint deleted: not sent" });
  });

  it("a HEAD of a stream opens nothing and leases nothing: it is answered at once", async () => {
    const started = (await call("POST", "/v1/webhooks/listen", { event_types: ["operation"] })).json;
    const head = await fetch(`${stack.url}${started.stream_path}`, {
      method: "HEAD",
      headers: { authorization: apiKey(m.privateKey) },
      signal: AbortSignal.timeout(5_000),
    });
    expect([head.status, head.headers.get("allow")]).toEqual([405, "GET"]);
    expect((await call("DELETE", `/v1/webhooks/endpoints/${started.endpoint.id}`)).status).toBe(204);
  });

  it("a stream is only for a cli endpoint of the caller", async () => {
    const normal = await call("POST", "/v1/webhooks/endpoints", { url: `${receiver.url}/normal` });
    expect((await call("GET", `/v1/webhooks/endpoints/${normal.json.id}/stream`)).status).toBe(404);
    const other = await createMerchant(stack);
    const theirs = await api(stack, "POST", "/v1/webhooks/listen", {
      auth: apiKey(other.privateKey),
      body: {},
    });
    expect((await call("GET", `/v1/webhooks/endpoints/${theirs.json.endpoint.id}/stream`)).status).toBe(404);
  });
});
