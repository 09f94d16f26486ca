/**
 * The delivery policy against a real loopback receiver: retries, Retry-After, 410, redirects,
 * timeouts, a receiver down then back, final failure, replay, the messages API, and the outbox's
 * transactional guarantee. /metrics has a service of its own (metrics/metrics.test.ts).
 */
import { verifyWebhook } from "@svc/webhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type ReceivedRequest, type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks, verifyWithStandardWebhooks } from "../../../../test/support/webhooks.js";
import { enqueue } from "./outbox.js";

describe.each(STORES)("webhook delivery on %s", (store) => {
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
    // A merchant per test: a test's deliveries still waiting would follow the next test's new
    // general URL there (a new URL takes what waits for the old one).
    m = await createMerchant(stack);
    receiver.requests.length = 0;
    receiver.respond = () => ({ status: 200, body: "ok" });
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: `${receiver.url}/hook`,
      notify_api_initiated: true,
      retry_schedule_seconds: [1, 1],
      timeout_seconds: 2,
    });
  });

  const auth = () => apiKey(m.privateKey);
  async function refund(amount = "1.000") {
    const parent = await paidParent(stack, m);
    const r = await api(stack, "POST", "/v1/operations", {
      auth: auth(),
      body: { operation: "refund", session_id: parent.session_id, amount },
    });
    expect(r.status).toBe(200);
    return { parent, payload: r.json };
  }
  async function messageOf(sessionId: string) {
    const r = await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, { auth: auth() });
    expect(r.status).toBe(200);
    return r.json.messages[0];
  }
  async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = await read();
      if (ok(v) || Date.now() > deadline) return v;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("retries a 500 with the same webhook-id and a fresh timestamp; every attempt is recorded", async () => {
    receiver.respond = (_r, i) => (i === 0 ? { status: 500, body: "x".repeat(5000) } : { status: 204 });
    const { parent } = await refund();
    const [first, second] = await receiver.waitFor(2);
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(second!.body).toBe(first!.body);
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(800);
    verifyWithStandardWebhooks(second!, m.webhookSecret);
    const message = await until(
      () => messageOf(parent.session_id),
      (msg) => msg.status === "succeeded",
    );
    const [delivery] = message.deliveries;
    expect(delivery).toMatchObject({ url: `${receiver.url}/hook`, status: "succeeded", tries: 2 });
    expect(delivery.attempts).toHaveLength(2);
    expect(delivery.attempts[0]).toMatchObject({ status_code: 500, error: "HTTP 500" });
    expect(delivery.attempts[0].response_body).toHaveLength(2048);
    expect(delivery.attempts[0].latency_ms).toBeGreaterThanOrEqual(0);
    expect(delivery.attempts[1]).toMatchObject({ status_code: 204, error: null });
  });

  it.each([429, 503])(
    "honours Retry-After on %i over the schedule: the retry is due at the header's time, and not attempted before it",
    async (status) => {
      await configureWebhooks(stack, m, { retry_schedule_seconds: [3600] });
      let releaseSecond: () => void = () => {};
      const second = new Promise<void>((resolve) => (releaseSecond = resolve));
      receiver.respond = (_r, i) =>
        i === 0
          ? { status, headers: { "retry-after": "2" } }
          : // The retry's answer waits until the retry's schedule has been read.
            { status: 200, until: second };
      const { parent } = await refund();
      await receiver.waitFor(2);
      // The second attempt is in flight: the delivery still shows when it was due.
      const during = await messageOf(parent.session_id);
      releaseSecond();
      const [first] = during.deliveries[0].attempts;
      expect(first).toMatchObject({ status_code: status, error: `HTTP ${status}` });
      const dueAt = Date.parse(during.deliveries[0].next_attempt_at);
      const firstAt = Date.parse(first.attempted_at);
      // Not before Retry-After (2 s), and not the schedule's hour (jitter never makes that < 54 min).
      expect(dueAt - firstAt).toBeGreaterThanOrEqual(2_000);
      expect(dueAt - firstAt).toBeLessThan(60_000);
      const done = await until(
        () => messageOf(parent.session_id),
        (msg) => msg.status === "succeeded",
      );
      expect(done.deliveries[0]).toMatchObject({ status: "succeeded", tries: 2 });
      expect(Date.parse(done.deliveries[0].attempts[1].attempted_at)).toBeGreaterThanOrEqual(dueAt);
    },
  );

  it("a receiver that is down, then fails for some parents, then recovers: everything arrives, in order per parent", async () => {
    // A receiver of its own, closed before anything is sent: its port refuses connections.
    const closed = await startReceiver();
    const port = Number(new URL(closed.url).port);
    await closed.close();
    await configureWebhooks(stack, m, {
      operations_webhook_url: `http://127.0.0.1:${port}/recover`,
      retry_schedule_seconds: Array.from({ length: 20 }, () => 1),
      timeout_seconds: 2,
    });
    const parents: string[] = [];
    for (let i = 0; i < 4; i++) parents.push((await paidParent(stack, m)).session_id);
    // Three refunds per parent, round-robin: each parent's reference numbers in creation order.
    const created = new Map(parents.map((p) => [p, [] as string[]]));
    for (let k = 0; k < 3; k++)
      for (const p of parents) {
        const r = await api(stack, "POST", "/v1/operations", {
          auth: auth(),
          body: { operation: "refund", session_id: p, amount: "0.100" },
        });
        expect(r.status).toBe(200);
        created.get(p)!.push(r.json.reference_number as string);
      }
    type Message = {
      reference_number: string;
      status: string;
      deliveries: { tries: number; attempts: { status_code: number | null; error: string | null }[] }[];
    };
    /** Each parent's messages, in creation order. */
    const messagesByParent = async () => {
      const all = new Map<string, Message[]>();
      for (const p of parents) {
        const r = await api(stack, "GET", `/v1/webhooks/messages?session_id=${p}`, { auth: auth() });
        const byRef = new Map((r.json.messages as Message[]).map((msg) => [msg.reference_number, msg]));
        all.set(
          p,
          created.get(p)!.map((ref) => byRef.get(ref)!),
        );
      }
      return all;
    };
    const attemptsOf = (msg: Message | undefined) => msg?.deliveries[0]?.attempts.length ?? 0;

    // Down: every parent's first message is retried; the later ones wait without a single attempt.
    const down = await until(messagesByParent, (all) =>
      [...all.values()].every((msgs) => attemptsOf(msgs[0]) >= 2),
    );
    for (const msgs of down.values()) {
      expect(attemptsOf(msgs[0])).toBeGreaterThanOrEqual(2);
      for (const a of msgs[0]!.deliveries[0]!.attempts)
        expect(a).toMatchObject({ status_code: null, error: expect.stringMatching(/ECONNREFUSED/) });
      expect(msgs.slice(1).map((msg) => msg.deliveries[0]!.tries)).toEqual([0, 0]);
    }

    // Back on the same port, answering 500 for three parents and 200 for the fourth.
    const back = await startReceiver({ port });
    try {
      const [healthy] = parents.slice(3);
      const failing = parents.slice(0, 3);
      const answered = new Map<ReceivedRequest, number>();
      let failingAnswer = 500;
      back.respond = (r) => {
        const status = r.json.session_id === healthy ? 200 : failingAnswer;
        answered.set(r, status);
        return { status };
      };
      // The healthy parent is not held up by the failing ones, which are answered 500 meanwhile.
      const partly = await until(
        messagesByParent,
        (all) =>
          all.get(healthy!)!.every((msg) => msg.status === "succeeded") &&
          failing.every((p) => back.requests.some((r) => r.json.session_id === p)),
      );
      expect(partly.get(healthy!)!.map((msg) => msg.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
      for (const p of failing) {
        const msgs = partly.get(p)!;
        expect(msgs[0]!.status).not.toBe("succeeded"); // retrying, or pending while an attempt is out
        expect(msgs.slice(1).map((msg) => msg.deliveries[0]!.tries)).toEqual([0, 0]);
        // Only the first message of a failing parent has reached the receiver.
        const refs = back.requests.filter((r) => r.json.session_id === p).map((r) => r.json.reference_number);
        expect(refs.length).toBeGreaterThanOrEqual(1);
        expect(new Set(refs)).toEqual(new Set([created.get(p)![0]]));
      }

      // Recovered: everything pending arrives.
      failingAnswer = 200;
      const done = await until(
        messagesByParent,
        (all) => [...all.values()].every((msgs) => msgs.every((msg) => msg.status === "succeeded")),
        20_000,
      );
      for (const p of parents) {
        const msgs = done.get(p)!;
        expect(msgs.map((msg) => msg.status)).toEqual(["succeeded", "succeeded", "succeeded"]);
        // The later messages went out once, when the receiver took them: no retries burned.
        expect(msgs.slice(1).map((msg) => msg.deliveries[0]!.tries)).toEqual([1, 1]);
        const requests = back.requests.filter((r) => r.json.session_id === p);
        const succeeded = requests.filter((r) => answered.get(r) === 200);
        // Each message answered 200 once, in creation order...
        expect(succeeded.map((r) => r.json.reference_number)).toEqual(created.get(p));
        // ...and nothing of a later message was sent before the earlier one's 200 was written.
        for (let k = 1; k < 3; k++) {
          const earlierOk = succeeded[k - 1]!;
          for (const r of requests.filter((x) => x.json.reference_number === created.get(p)![k]))
            expect(r.startedAt).toBeGreaterThanOrEqual(earlierOk.finishedAt!);
        }
      }
    } finally {
      await back.close();
    }
  });

  it("410 stops retrying: the delivery fails after one attempt", async () => {
    receiver.respond = () => ({ status: 410, body: "gone" });
    const { parent } = await refund();
    await receiver.waitFor(1);
    const message = await until(
      () => messageOf(parent.session_id),
      (msg) => msg.status === "failed",
    );
    expect(message.deliveries[0]).toMatchObject({ status: "failed", tries: 1 });
    expect(message.deliveries[0].last_error).toContain("410");
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.requests).toHaveLength(1);
  });

  it("the messages API finds a message by its child's session_id and by status retrying", async () => {
    // A long retry keeps the delivery retrying while the test reads it.
    await configureWebhooks(stack, m, { retry_schedule_seconds: [600] });
    receiver.respond = () => ({ status: 503, body: "busy" });
    const { parent, payload } = await refund();
    const child = payload.txn.session_id as string;
    const byParent = await until(
      () => messageOf(parent.session_id),
      (msg) => msg?.status === "retrying",
    );
    expect(byParent.deliveries[0]).toMatchObject({ status: "retrying", tries: 1, last_status_code: 503 });
    const list = async (query: string) => {
      const r = await api(stack, "GET", `/v1/webhooks/messages?${query}`, { auth: auth() });
      expect(r.status, r.text).toBe(200);
      return r.json.messages.map((x: { id: string }) => x.id) as string[];
    };
    expect(await list(`session_id=${child}`)).toEqual([byParent.id]);
    expect(await list(`status=retrying&session_id=${child}`)).toEqual([byParent.id]);
    expect(await list(`status=retrying&session_id=${parent.session_id}`)).toEqual([byParent.id]);
    expect(await list(`status=pending&session_id=${child}`)).toEqual([]);
    expect(await list(`status=succeeded&session_id=${child}`)).toEqual([]);
    const one = await api(stack, "GET", `/v1/webhooks/messages/${byParent.id}`, { auth: auth() });
    expect(one.json).toMatchObject({
      id: byParent.id,
      status: "retrying",
      payload: { txn: { session_id: child } },
    });
  });

  it("does not follow redirects; after the last try the delivery is failed, then replayed one by one and in bulk", async () => {
    receiver.respond = (r) =>
      r.path === "/hook"
        ? { status: 302, headers: { location: `${receiver.url}/elsewhere` } }
        : { status: 200 };
    const started = new Date(Date.now() - 1000).toISOString();
    const { parent } = await refund();
    const message = await until(
      () => messageOf(parent.session_id),
      (msg) => msg.status === "failed",
      15_000,
    );
    expect(message.deliveries[0]).toMatchObject({ status: "failed", tries: 3 });
    expect(message.deliveries[0].attempts[0].error).toContain("redirect 302");
    expect(receiver.requests.every((r) => r.path === "/hook")).toBe(true);
    expect(receiver.requests).toHaveLength(3);

    const failed = await api(stack, "GET", `/v1/webhooks/messages?status=failed&since=${started}`, {
      auth: auth(),
    });
    expect(failed.json.messages.map((x: { id: string }) => x.id)).toContain(message.id);
    const before = await api(stack, "GET", `/v1/webhooks/messages?status=failed&until=${started}`, {
      auth: auth(),
    });
    expect(before.json.messages.map((x: { id: string }) => x.id)).not.toContain(message.id);
    const badUntil = await api(stack, "GET", "/v1/webhooks/messages?until=yesterday", { auth: auth() });
    expect(badUntil.status).toBe(422);
    expect(badUntil.json.errors.until[0]).toMatch(/ISO 8601/);
    const succeeded = await api(
      stack,
      "GET",
      `/v1/webhooks/messages?status=succeeded&session_id=${parent.session_id}`,
      {
        auth: auth(),
      },
    );
    expect(succeeded.json.messages).toEqual([]);

    receiver.respond = () => ({ status: 200 });
    const one = await api(stack, "POST", `/v1/webhooks/messages/${message.id}/replay`, { auth: auth() });
    expect(one.status).toBe(202);
    expect(one.json.replayed).toBe(1);
    const replayed = await until(
      () => messageOf(parent.session_id),
      (msg) => msg.status === "succeeded",
    );
    expect(replayed.deliveries[0].attempts).toHaveLength(4);

    receiver.respond = () => ({ status: 500 });
    const { parent: second } = await refund();
    await until(
      () => messageOf(second.session_id),
      (msg) => msg.status === "failed",
      15_000,
    );
    receiver.respond = () => ({ status: 200 });
    const bulk = await api(stack, "POST", "/v1/webhooks/replay", {
      auth: auth(),
      body: { status: "failed", since: started },
    });
    expect(bulk.status).toBe(202);
    expect(bulk.json.replayed).toBeGreaterThanOrEqual(1);
    const after = await until(
      () => messageOf(second.session_id),
      (msg) => msg.status === "succeeded",
    );
    expect(after.status).toBe("succeeded");
    const single = await api(stack, "GET", `/v1/webhooks/messages/${after.id}`, { auth: auth() });
    expect(single.json.payload.session_id).toBe(second.session_id);
    const other = await createMerchant(stack);
    const hidden = await api(stack, "GET", `/v1/webhooks/messages/${after.id}`, {
      auth: apiKey(other.privateKey),
    });
    expect(hidden.status).toBe(404);
  });

  it("a slow receiver times out and is retried", async () => {
    await configureWebhooks(stack, m, {
      timeout_seconds: 1,
      retry_schedule_seconds: [1],
      operations_webhook_url: `${receiver.url}/slow`,
    });
    // Keyed on this test's own path: a late retry from an earlier test must not take the slow answer.
    let slowAnswered = false;
    receiver.respond = (r) => {
      if (r.path !== "/slow" || slowAnswered) return { status: 200 };
      slowAnswered = true;
      // Far past the 1 s timeout: on a loaded machine the worker's timer may fire late, and an
      // answer only just past the timeout could then still arrive first.
      return { status: 200, delayMs: 5000 };
    };
    const { parent } = await refund();
    const message = await until(
      () => messageOf(parent.session_id),
      (msg) => msg.status === "succeeded",
    );
    expect(message.status).toBe("succeeded");
    expect(message.deliveries[0].attempts[0].error).toBe("timed out after 1000 ms");
    expect(message.deliveries[0].attempts[0].status_code).toBeNull();
    expect(receiver.requests.filter((r) => r.path === "/slow")).toHaveLength(2);
  });

  it("a receiver that sends its headers at once and trickles the body is cut at the timeout and retried", async () => {
    await configureWebhooks(stack, m, {
      timeout_seconds: 1,
      retry_schedule_seconds: [3600],
      operations_webhook_url: `${receiver.url}/trickle`,
    });
    // A byte every 100 ms: every gap is far below the timeout, the body never ends.
    receiver.respond = (r) => (r.path === "/trickle" ? { status: 200, trickleMs: 100 } : { status: 200 });
    const { parent } = await refund();
    // Bounded far below the lease (timeout + 30 s): past it another worker could take the
    // delivery over while this attempt was still open.
    const message = await until(
      () => messageOf(parent.session_id),
      (msg) => msg.status === "retrying",
      10_000,
    );
    expect(message.status).toBe("retrying");
    expect(message.deliveries[0]).toMatchObject({ status: "retrying", tries: 1 });
    expect(message.deliveries[0].attempts).toHaveLength(1);
    expect(message.deliveries[0].attempts[0]).toMatchObject({
      status_code: null,
      error: "timed out after 1000 ms",
    });
    // The worker closed the connection mid-body (the receiver sees the close a moment later).
    const [trickled] = receiver.requests.filter((r) => r.path === "/trickle");
    expect(trickled).toBeDefined();
    expect(
      await until(
        async () => trickled!.aborted,
        (cut) => cut === true,
        5_000,
      ),
    ).toBe(true);
  });

  it("an outbox insert in a transaction that rolls back leaves no message", async () => {
    const parent = await paidParent(stack, m);
    await expect(
      stack.db.tx(async (q) => {
        await enqueue(
          q,
          {
            merchantId: m.id,
            kind: "operation",
            eventType: "operation",
            parentSessionId: parent.session_id,
            body: "{}",
          },
          [`${receiver.url}/hook`],
          { timeout_seconds: 1, retry_schedule_seconds: [1] },
        );
        throw new Error("crash before commit");
      }),
    ).rejects.toThrow("crash before commit");
    const rows = await stack.db.query("select id from webhook_messages where parent_session_id = $1", [
      parent.session_id,
    ]);
    expect(rows).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests).toHaveLength(0);
  });

  it("the payment webhook: the transaction's webhook_url gets the outcome with its transactions, signed the same way", async () => {
    const parent = await paidParent(stack, m, "sandbox", { webhook_url: `${receiver.url}/payments` });
    const [delivered] = await receiver.waitFor(1, { path: "/payments" });
    const payload = delivered!.json;
    expect(payload).toMatchObject({
      event: "payment",
      session_id: parent.session_id,
      state: "paid",
      amount: "10.500",
      currency_code: "KWD",
      created_via: "api",
      captured_amount: "10.500",
      transactions: [],
    });
    expect(verifyWithStandardWebhooks(delivered!, m.webhookSecret)).toEqual(payload);
    const event = await verifyWebhook(
      delivered!.body,
      delivered!.headers as Record<string, string>,
      m.webhookSecret,
    );
    expect(event).toMatchObject({
      type: "payment",
      payload: { session_id: parent.session_id, state: "paid" },
    });
  });
});
