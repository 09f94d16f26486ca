/**
 * Replay puts finished deliveries back in the queue with the merchant's current timeout and
 * retry schedule, not those in force when the message was created, and a delivery to an endpoint
 * goes where the endpoint is now (its URL and headers), in order, with its webhook-id.
 */
import { verifyWebhook } from "@svc/webhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent, refundedParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { explaining, type PlanNode, planNodes, seqScanned } from "../../../../test/support/plans.js";
import { type ApiDelivery, configureWebhooks } from "../../../../test/support/webhooks.js";
import { endpointsRepo } from "./endpoints.repo.js";
import { messagesRepo, moveSeedWaiting } from "./messages.repo.js";

/** The settings when the messages are created: one retry, so a failing delivery ends after 2 tries. */
const AT_CREATION = { timeout_seconds: 2, retry_schedule_seconds: [1] };
/** The settings when they are replayed: three retries (4 tries), a longer timeout. */
const AT_REPLAY = { timeout_seconds: 7, retry_schedule_seconds: [1, 1, 1] };

type Delivery = ApiDelivery;

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

  it("a message made before a rotation is replayed with its signature field signed by the newest secret, same webhook-id", async () => {
    receiver.respond = () => ({ status: 200, body: "ok" });
    const sessionId = await refund();
    await deliveryOf(sessionId, (d) => d.status === "succeeded");
    const [original] = receiver.requests;
    const rotated = await api(stack, "POST", "/v1/webhooks/secret/rotate", { auth: auth() });
    expect(rotated.status).toBe(200);
    const newSecret = rotated.json.secret as string;
    // The 24 h overlap is over: the receiver has dropped the old secret, svc signs with the new only.
    await stack.db.query(
      "update webhook_secrets set expires_at = now() - interval '1 second' where merchant_id = $1 and expires_at is not null",
      [m.id],
    );
    const r = await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, { auth: auth() });
    const messageId = r.json.messages[0].id as string;
    expect(
      (await api(stack, "POST", `/v1/webhooks/messages/${messageId}/replay`, { auth: auth() })).json,
    ).toEqual({
      replayed: 1,
      skipped: 0,
    });
    await deliveryOf(sessionId, (d) => d.status === "succeeded" && d.attempts.length === 2);
    const replayed = receiver.requests[1]!;
    expect(replayed.headers["webhook-id"]).toBe(original!.headers["webhook-id"]);
    // It once kept the old secret's field: @svc/webhooks with the new secret alone refused it.
    const event = await verifyWebhook(replayed.body, replayed.headers as Record<string, string>, newSecret);
    expect(event.type).toBe("operation");
    await expect(
      verifyWebhook(original!.body, original!.headers as Record<string, string>, newSecret),
    ).rejects.toThrow();
    // Only the signature field changed; the message shows the body it is sent with now.
    const { signature: _old, ...before } = JSON.parse(original!.body) as Record<string, unknown>;
    const { signature: _new, ...after } = JSON.parse(replayed.body) as Record<string, unknown>;
    expect(after).toEqual(before);
    const shown = await api(stack, "GET", `/v1/webhooks/messages/${messageId}`, { auth: auth() });
    expect(shown.json.payload).toEqual(JSON.parse(replayed.body));
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

  it("an endpoint's replayed deliveries go to its URL and headers now, in order, with their webhook-id", async () => {
    receiver.respond = () => ({ status: 200 });
    const created = await api(stack, "POST", "/v1/webhooks/endpoints", {
      auth: auth(),
      body: { url: `${receiver.url}/old`, event_types: ["operation"], headers: { "X-Token": "old" } },
    });
    const id = created.json.id as string;
    await api(stack, "PATCH", `/v1/webhooks/endpoints/${id}`, { auth: auth(), body: { enabled: false } });
    // Two refunds of one payment while it is disabled: each held for it (failed, never sent).
    const sessionId = await refundedParent(stack, m, ["1.000", "2.000"]);
    // The merchant moves it, gives it a new token and enables it: two missed, replayed.
    const enabled = await api(stack, "PATCH", `/v1/webhooks/endpoints/${id}`, {
      auth: auth(),
      body: { url: `${receiver.url}/new`, headers: { "X-Token": "new" }, enabled: true },
    });
    expect(enabled.json.missed.failed).toBe(2);
    const replay = await api(stack, "POST", `/v1/webhooks/endpoints/${id}/replay`, { auth: auth() });
    expect(replay.json.replayed).toBe(2);
    const got = await receiver.waitFor(2, { path: "/new" });
    expect(receiver.requests.filter((r) => r.path === "/old")).toHaveLength(0);
    expect(got.map((r) => r.headers["x-token"])).toEqual(["new", "new"]);
    // In the order they happened, numbered 1, 2 at the new URL, each with its message's id.
    expect(got.map((r) => JSON.parse(r.body).amount)).toEqual(["1.000", "2.000"]);
    expect(got.map((r) => r.headers["svc-sequence"])).toEqual(["1", "2"]);
    const listed = await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, {
      auth: auth(),
    });
    const ids = (listed.json.messages as { id: string; deliveries: { url: string; endpoint_id: string }[] }[])
      .filter((msg) => msg.deliveries.some((d) => d.endpoint_id === id))
      .map((msg) => msg.id)
      .reverse();
    expect(got.map((r) => r.headers["webhook-id"])).toEqual(ids);
    // A message replayed after the endpoint moved again goes to where it is then, the general URL
    // where it was. Both outcomes are recorded first: a delivery received at /new whose outcome is
    // not written yet is still waiting, and the move would send it to /newer too (as documented
    // in moveWaitingDeliveries; once the second message's went there before the replay's).
    for (const messageId of ids)
      await expect
        .poll(
          async () =>
            (await api(stack, "GET", `/v1/webhooks/messages/${messageId}`, { auth: auth() })).json.status,
          { timeout: 10_000 },
        )
        .toBe("succeeded");
    const moved = await api(stack, "PATCH", `/v1/webhooks/endpoints/${id}`, {
      auth: auth(),
      body: { url: `${receiver.url}/newer` },
    });
    expect(moved.json.moved).toBe(0);
    const message = (await api(stack, "GET", `/v1/webhooks/messages/${ids[0]}`, { auth: auth() })).json;
    const toHook = (message.deliveries as { url: string }[]).filter((d) => d.url.endsWith("/hook")).length;
    const hooks = receiver.requests.filter((r) => r.path === "/hook").length;
    const one = await api(stack, "POST", `/v1/webhooks/messages/${ids[0]}/replay`, { auth: auth() });
    expect(one.json).toEqual({ replayed: 1 + toHook, skipped: 0 });
    const [newer] = await receiver.waitFor(1, { path: "/newer" });
    expect(newer!.headers["webhook-id"]).toBe(ids[0]);
    expect(newer!.headers["svc-sequence"]).toBe("1");
    await receiver.waitFor(hooks + toHook, { path: "/hook" });
    expect(receiver.requests.filter((r) => r.path === "/new")).toHaveLength(2);
  });

  /** Adds an endpoint for operation webhooks at `path` on the receiver; returns its id. */
  async function operationEndpointAt(path: string): Promise<string> {
    const created = await api(stack, "POST", "/v1/webhooks/endpoints", {
      auth: auth(),
      body: { url: `${receiver.url}${path}`, event_types: ["operation"] },
    });
    return created.json.id as string;
  }

  /** The delivery of `sessionId`'s message to endpoint `endpointId` once `done` holds. */
  async function endpointDelivery(sessionId: string, endpointId: string, done: (d: Delivery) => boolean) {
    let delivery: Delivery | undefined;
    await expect
      .poll(
        async () => {
          const r = await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, {
            auth: auth(),
          });
          const deliveries = (r.json.messages[0]?.deliveries ?? []) as Delivery[];
          delivery = deliveries.find((d) => d.endpoint_id === endpointId);
          return delivery !== undefined && done(delivery);
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe(true);
    return delivery!;
  }

  it("a delivery replayed to its endpoint's new URL: the attempts before it still say where they went", async () => {
    receiver.respond = (request) => (request.path === "/b" ? { status: 200 } : { status: 500 });
    const id = await operationEndpointAt("/a");
    const sessionId = await refund();
    // Two tries at /a (one retry at creation), both refused: the first in webhook_attempts, the
    // latest on the delivery's row.
    const atA = await endpointDelivery(sessionId, id, failed);
    const a = `${receiver.url}/a`;
    expect(atA.attempts.map((t) => [t.url, t.status_code])).toEqual([
      [a, 500],
      [a, 500],
    ]);
    await api(stack, "PATCH", `/v1/webhooks/endpoints/${id}`, {
      auth: auth(),
      body: { url: `${receiver.url}/b` },
    });
    const listed = await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, { auth: auth() });
    const messageId = listed.json.messages[0].id as string;
    // Its two deliveries: the general URL's (where it was) and the endpoint's (where it is now).
    const replay = await api(stack, "POST", `/v1/webhooks/messages/${messageId}/replay`, { auth: auth() });
    expect(replay.json).toEqual({ replayed: 2, skipped: 0 });
    const atB = await endpointDelivery(sessionId, id, (d) => d.status === "succeeded");
    expect(atB.url).toBe(`${receiver.url}/b`);
    expect(atB.attempts.map((t) => [t.url, t.status_code])).toEqual([
      [a, 500],
      [a, 500],
      [`${receiver.url}/b`, 200],
    ]);
    // The general URL's delivery did not move: every attempt of it went to /hook.
    const message = (await api(stack, "GET", `/v1/webhooks/messages/${messageId}`, { auth: auth() })).json;
    const toHook = (message.deliveries as Delivery[]).find((d) => d.endpoint_id === null)!;
    expect(new Set(toHook.attempts.map((t) => t.url))).toEqual(new Set([`${receiver.url}/hook`]));
    // Stored as such: the moved attempts carry their URL, the rest none (their delivery's).
    const stored = await stack.db.query<{ url: string | null }>(
      "select url from webhook_attempts where delivery_id = $1 order by attempted_at",
      [atB.id],
    );
    expect(stored.map((r) => r.url)).toEqual([a, a]);
  });

  it("an endpoint's new URL takes what still waits for it at once, in order, numbered anew; its failure run starts again", async () => {
    receiver.respond = (request) => (request.path === "/g" ? { status: 200 } : { status: 500 });
    // A long retry step: without the move, the second try would be ten minutes away.
    await configureWebhooks(stack, m, { retry_schedule_seconds: [600, 600] });
    const id = await operationEndpointAt("/f");
    // Two refunds of one payment: the second waits behind the first (ordering) at /f.
    const sessionId = await refundedParent(stack, m, ["1.000", "2.000"]);
    const toEndpoint = async () => {
      const r = await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, {
        auth: auth(),
      });
      return (r.json.messages as { id: string; deliveries: Delivery[] }[])
        .map((message) => ({
          id: message.id,
          delivery: message.deliveries.find((d) => d.endpoint_id === id)!,
        }))
        .reverse(); // oldest first
    };
    await expect
      .poll(async () => (await toEndpoint()).map((x) => x.delivery.status), {
        timeout: 20_000,
        interval: 100,
      })
      .toEqual(["retrying", "pending"]);
    const f = `${receiver.url}/f`;
    const before = await api(stack, "GET", `/v1/webhooks/endpoints/${id}`, { auth: auth() });
    expect(before.json.failing_since).not.toBeNull();
    expect(before.json.last_error).toBe("HTTP 500");

    const moved = await api(stack, "PATCH", `/v1/webhooks/endpoints/${id}`, {
      auth: auth(),
      body: { url: `${receiver.url}/g` },
    });
    expect(moved.status).toBe(200);
    expect(moved.json).toMatchObject({
      url: `${receiver.url}/g`,
      failing_since: null,
      last_error: null,
      moved: 2,
    });
    await expect
      .poll(async () => (await toEndpoint()).map((x) => x.delivery.status), {
        timeout: 20_000,
        interval: 100,
      })
      .toEqual(["succeeded", "succeeded"]);
    const [first, second] = await toEndpoint();
    expect(first!.delivery.attempts.map((t) => [t.url, t.status_code])).toEqual([
      [f, 500],
      [`${receiver.url}/g`, 200],
    ]);
    expect(first!.delivery).toMatchObject({ url: `${receiver.url}/g`, tries: 2, last_status_code: 200 });
    expect(second!.delivery.attempts.map((t) => [t.url, t.status_code])).toEqual([
      [`${receiver.url}/g`, 200],
    ]);
    // At /g in the order they were made, numbered from 1 there, each with its webhook-id.
    const atG = receiver.requests.filter((r) => r.path === "/g");
    expect(atG.map((r) => [r.headers["webhook-id"], r.headers["svc-sequence"]])).toEqual([
      [first!.id, "1"],
      [second!.id, "2"],
    ]);
    const atF = receiver.requests.filter((r) => r.path === "/f");
    expect(atF.map((r) => [r.headers["webhook-id"], r.headers["svc-sequence"]])).toEqual([[first!.id, "1"]]);
    await api(stack, "DELETE", `/v1/webhooks/endpoints/${id}`, { auth: auth() });
  });

  it("an endpoint moved to a URL its waiting message already goes to: that delivery is ended, not sent there twice", async () => {
    receiver.respond = (request) => (request.path === "/hook" ? { status: 200 } : { status: 500 });
    await configureWebhooks(stack, m, { retry_schedule_seconds: [600, 600] });
    const id = await operationEndpointAt("/h");
    const sessionId = await refund();
    const waiting = await endpointDelivery(sessionId, id, (d) => d.status === "retrying");
    const moved = await api(stack, "PATCH", `/v1/webhooks/endpoints/${id}`, {
      auth: auth(),
      body: { url: `${receiver.url}/hook` },
    });
    expect(moved.json.moved).toBe(0);
    const ended = await endpointDelivery(sessionId, id, (d) => d.status !== "retrying");
    expect(ended).toMatchObject({
      id: waiting.id,
      url: `${receiver.url}/h`,
      status: "failed",
      last_error: `not sent: its message has another delivery to ${receiver.url}/hook`,
    });
    const listed = await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, { auth: auth() });
    const messageId = listed.json.messages[0].id as string;
    await new Promise((r) => setTimeout(r, 300));
    // Other tests' merchants send to /hook too: this message's requests are told by their webhook-id.
    const atHook = receiver.requests.filter(
      (r) => r.path === "/hook" && r.headers["webhook-id"] === messageId,
    );
    expect(atHook).toHaveLength(1);
    // Replayed, by its endpoint or by its message, it still goes to /hook once: the ended
    // delivery would go where its endpoint is now, beside the message's own delivery there.
    const byEndpoint = await api(stack, "POST", `/v1/webhooks/endpoints/${id}/replay`, { auth: auth() });
    expect(byEndpoint.json.replayed).toBe(0);
    const byMessage = await api(stack, "POST", `/v1/webhooks/messages/${messageId}/replay`, { auth: auth() });
    expect(byMessage.json).toEqual({ replayed: 1, skipped: 1 });
    const atHookNow = () =>
      receiver.requests.filter((r) => r.path === "/hook" && r.headers["webhook-id"] === messageId).length;
    await expect.poll(atHookNow, { timeout: 10_000 }).toBe(2);
    // Nothing more comes (a second replayed delivery there would be as quick as the first).
    await new Promise((r) => setTimeout(r, 300));
    expect(atHookNow()).toBe(2);
    expect(await endpointDelivery(sessionId, id, (d) => d.status === "failed")).toMatchObject({
      id: waiting.id,
    });
    await api(stack, "DELETE", `/v1/webhooks/endpoints/${id}`, { auth: auth() });
  });

  it.runIf(store === "postgres")(
    "two replays of one message at once: one queues it, and its attempts are moved once",
    async () => {
      receiver.respond = () => ({ status: 500 });
      const id = await operationEndpointAt("/c");
      const sessionId = await refund();
      const before = await endpointDelivery(sessionId, id, failed);
      await api(stack, "PATCH", `/v1/webhooks/endpoints/${id}`, {
        auth: auth(),
        body: { url: `${receiver.url}/d` },
      });
      const listed = await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, {
        auth: auth(),
      });
      const only = { messageId: listed.json.messages[0].id as string, endpointId: id };
      // The first replay holds its rows until the second has started (and taken its snapshot,
      // in which the delivery is still failed at /c), then commits.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let started!: () => void;
      const first = stack.db.tx(async (q) => {
        const counts = await messagesRepo.replay(q, m.id, only, AT_REPLAY);
        started();
        await held;
        // Not sent meanwhile: the worker would write its attempt.
        await q.query(
          "update webhook_deliveries set next_attempt_at = now() + interval '1 hour' where message_id = $1",
          [only.messageId],
        );
        return counts;
      });
      await new Promise<void>((resolve) => (started = resolve));
      const second = stack.db.tx((q) => messagesRepo.replay(q, m.id, only, AT_REPLAY));
      // The second waits for the first's row lock (visible in pg_stat_activity), then the first commits.
      await expect
        .poll(
          async () =>
            (
              await stack.db.query<{ n: number }>(
                "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like 'with live as%'",
              )
            )[0]!.n,
          { timeout: 10_000, interval: 20 },
        )
        .toBe(1);
      release();
      expect(await first).toEqual({ replayed: 1, skipped: 0 });
      expect(await second).toEqual({ replayed: 0, skipped: 0 });
      const stored = await stack.db.query<{ url: string | null }>(
        "select url from webhook_attempts where delivery_id = $1 order by attempted_at",
        [before.id],
      );
      expect(stored.map((r) => r.url)).toEqual([`${receiver.url}/c`, `${receiver.url}/c`]);
      // Queued at /d: nothing of /c's answers is left on it as its own; /c's attempts say them.
      const listedAgain = await api(stack, "GET", `/v1/webhooks/messages/${only.messageId}`, {
        auth: auth(),
      });
      const atD = (listedAgain.json.deliveries as Delivery[]).find((d) => d.id === before.id)!;
      expect(atD).toMatchObject({
        url: `${receiver.url}/d`,
        status: "pending",
        last_status_code: null,
        last_error: null,
      });
      expect(atD.attempts.map((t) => [t.url, t.status_code])).toEqual([
        [`${receiver.url}/c`, 500],
        [`${receiver.url}/c`, 500],
      ]);
      const [row] = await stack.db.query<{ url: string; last_attempt_at: Date | null; status: string }>(
        "select url, last_attempt_at, status from webhook_deliveries where id = $1",
        [before.id],
      );
      expect(row).toEqual({ url: `${receiver.url}/d`, last_attempt_at: null, status: "pending" });
      await api(stack, "DELETE", `/v1/webhooks/endpoints/${id}`, { auth: auth() });
    },
  );

  it.runIf(store === "postgres")(
    "on a long-running service's table, a replay reaches rows through indexes only",
    async () => {
      // 20,000 failed messages to an endpoint that has moved since, each with five earlier
      // attempts, signed before a rotation (their signature field is signed again).
      const id = await operationEndpointAt("/plan-new");
      const tag = `plan${Date.now()}`;
      await stack.db.query(
        `insert into webhook_deliveries (id, message_id, merchant_id, kind, event_type, body, parent_session_id, url,
                                         endpoint_id, status, tries, timeout_seconds, retry_schedule_seconds, sequence,
                                         created_at, completed_at, last_attempt_at, last_attempt_status_code,
                                         last_attempt_latency_ms)
         select 'dlv_' || $2 || g, 'msg_' || $2 || g, $1, 'operation', 'operation', '{"signature":"old"}',
                'sess_' || $2 || g, $3, $4, 'failed', 2, 5, '{60}', 1, now(), now(), now(), 500, 3
           from generate_series(1, 20000) g`,
        [m.id, tag, `${receiver.url}/plan-old`, id],
      );
      await stack.db.query(
        `insert into webhook_attempts (delivery_id, attempted_at, status_code, latency_ms)
         select 'dlv_' || $1 || g, now() - interval '1 minute', 500, 3
           from generate_series(1, 20000) g, generate_series(1, 5) n`,
        [tag],
      );
      await stack.db.query("analyze webhook_deliveries");
      await stack.db.query("analyze webhook_attempts");
      const plans: PlanNode[] = []; // each statement explained, then run
      const messageId = `msg_${tag}7`;
      await stack.db.tx(async (q) => {
        expect(await messagesRepo.replay(explaining(q, plans), m.id, { messageId }, AT_REPLAY)).toEqual({
          replayed: 1,
          skipped: 0,
        });
        // Not sent: only its plans are the point here.
        await q.query(
          "update webhook_deliveries set next_attempt_at = now() + interval '1 hour' where message_id = $1",
          [messageId],
        );
      });
      // The replay, the newest secret, the message's body, the body signed again.
      expect(plans.length).toBeGreaterThanOrEqual(4);
      for (const plan of plans) {
        expect(seqScanned(plan)).not.toContain("webhook_deliveries");
        expect(seqScanned(plan)).not.toContain("webhook_attempts");
      }
      const [row] = await stack.db.query<{ url: string; body: string }>(
        "select url, body from webhook_deliveries where message_id = $1",
        [messageId],
      );
      expect(row!.url).toBe(`${receiver.url}/plan-new`);
      expect(JSON.parse(row!.body).signature).not.toBe("old");
      const moved = await stack.db.query<{ url: string }>(
        "select url from webhook_attempts where delivery_id = $1",
        [`dlv_${tag}7`],
      );
      expect(moved.map((a) => a.url)).toEqual(Array(6).fill(`${receiver.url}/plan-old`));
      // The endpoint moves again while that one waits: its waiting deliveries are found and moved
      // through indexes too, not by reading the table.
      const movePlans: PlanNode[] = [];
      await stack.db.tx(async (q) => {
        expect(
          await endpointsRepo.moveWaiting(explaining(q, movePlans), id, `${receiver.url}/plan-newer`),
        ).toBe(1);
        await q.query("update webhook_deliveries set status = 'failed' where message_id = $1", [messageId]);
      });
      expect(movePlans).toHaveLength(2);
      for (const plan of movePlans) {
        expect(seqScanned(plan)).not.toContain("webhook_deliveries");
        expect(seqScanned(plan)).not.toContain("webhook_attempts");
      }
      // A new general or plugin URL finds what waits at the old one through the due index (the
      // waiting rows only), not through the merchant's index (all of its rows, finished ones too):
      // 20,000 finished seed deliveries at the old URL, one waiting.
      const seed = `${receiver.url}/plan-seed`;
      await stack.db.query(
        `insert into webhook_deliveries (id, message_id, merchant_id, kind, event_type, body, parent_session_id, url,
                                         status, tries, timeout_seconds, retry_schedule_seconds, sequence, created_at,
                                         completed_at, next_attempt_at)
         select 'dlv_' || $2 || 's' || g, 'msg_' || $2 || 's' || g, $1, 'operation', 'operation', '{}',
                'sess_' || $2 || 's' || g, $3, case when g = 1 then 'retrying' else 'succeeded' end, 1, 5, '{60}', 1,
                now(), case when g = 1 then null else now() end, now() + interval '1 hour'
           from generate_series(1, 20000) g`,
        [m.id, tag, seed],
      );
      await stack.db.query("analyze webhook_deliveries");
      const seedPlans: PlanNode[] = [];
      await stack.db.tx(async (q) => {
        expect(await moveSeedWaiting(explaining(q, seedPlans), m.id, "general", seed, `${seed}-new`)).toBe(1);
        // Its parents are not payments: a plugin's move finds nothing, by the same index.
        expect(await moveSeedWaiting(explaining(q, seedPlans), m.id, "e_commerce", `${seed}-new`, seed)).toBe(
          0,
        );
        await q.query("update webhook_deliveries set status = 'failed' where message_id = $1", [
          `msg_${tag}s1`,
        ]);
      });
      expect(seedPlans).toHaveLength(4);
      for (const plan of seedPlans) {
        expect(seqScanned(plan)).not.toContain("webhook_deliveries");
        expect(planNodes(plan).map((n) => n["Index Name"])).not.toContain(
          "webhook_deliveries_merchant_created",
        );
      }
      await stack.db.query("delete from webhook_attempts where delivery_id like $1", [`dlv_${tag}%`]);
      await stack.db.query("delete from webhook_deliveries where message_id like $1", [`msg_${tag}%`]);
      await api(stack, "DELETE", `/v1/webhooks/endpoints/${id}`, { auth: auth() });
    },
  );
});
