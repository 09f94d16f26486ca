/**
 * Several workers on one database, claiming by lease or holding their claims by lock (PostgreSQL;
 * held-claim.ts), a worker that died mid-attempt, and a held claim whose transaction was lost
 * (a server that goes down under a claim: db/resilience.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { STORES, testDb } from "../../../../test/support/stores.js";
import { type Db, isDatabaseUnavailable } from "../db/client.js";
import { createMetrics } from "../metrics/metrics.js";
import { deliveryRepo } from "./delivery.repo.js";
import { enqueue, enqueueMany, OutboxSignal } from "./outbox.js";
import { DeliveryWorker, type WorkerOptions } from "./worker.js";
import { seedOutboxMerchant } from "../../../../test/support/outbox-merchant.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const config = { timeout_seconds: 5, retry_schedule_seconds: [1] };

describe.each(STORES)("delivery workers on %s", (store) => {
  let db: Db;
  let receiver: Receiver;
  let merchantId: string;
  beforeAll(async () => {
    db = await testDb(store);
    receiver = await startReceiver();
    merchantId = await seedOutboxMerchant(db, "mer_worker", SECRET);
  });
  afterAll(() => receiver.close());

  // Held claims whose first messages are answered within the hold, and after it (handed over to
  // a lease mid-attempt); on PGlite every claim is leased.
  const modes: { holdClaims: WorkerOptions["holdClaims"]; releaseMs: number }[] = [
    { holdClaims: "never", releaseMs: 300 },
    ...(store === "postgres"
      ? [
          { holdClaims: "always" as const, releaseMs: 300 },
          { holdClaims: "always" as const, releaseMs: 900 },
        ]
      : []),
  ];
  it.each(modes)(
    "two workers on one database deliver each message exactly once, in order per parent (%o)",
    async ({ holdClaims, releaseMs }) => {
      receiver.requests.length = 0;
      const prefix = `sess_w_${holdClaims}_${releaseMs}_`;
      // Everything is committed before the workers start, so every message is due at once: only
      // the ordering rule keeps a parent's later messages from going out beside its first.
      const ids: string[] = [];
      for (let i = 0; i < 60; i++) {
        const id = await db.tx((q) =>
          enqueue(
            q,
            {
              merchantId,
              kind: "operation",
              eventType: "operation",
              parentSessionId: `${prefix}${i % 6}`,
              body: JSON.stringify({ n: i }),
            },
            [`${receiver.url}/w`],
            config,
          ),
        );
        ids.push(id!);
      }
      // The first message of each parent is answered only once all six have arrived, and a
      // moment later: a later message of the same parent sent meanwhile would overlap it.
      let firstsArrived: () => void = () => {};
      const released = new Promise<void>((resolve) => (firstsArrived = resolve)).then(
        () => new Promise((r) => setTimeout(r, releaseMs)),
      );
      receiver.respond = (r) => {
        if ((r.json.n as number) >= 6) return { status: 200 };
        if (receiver.requests.filter((x) => (x.json.n as number) < 6).length === 6) firstsArrived();
        return { status: 200, until: released };
      };
      const signal = new OutboxSignal();
      const workers = [0, 1].map(
        () => new DeliveryWorker(db, { allowPrivate: true, metrics: createMetrics(), signal, holdClaims }),
      );
      try {
        await Promise.all(workers.map((w) => w.start()));
        await receiver.waitFor(60, { timeoutMs: 20_000 });
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
        receiver.respond = () => ({ status: 200, body: "ok" });
      }
      const got = receiver.requests;
      const seen = got.map((r) => String(r.headers["webhook-id"]));
      expect(new Set(seen).size).toBe(60);
      expect([...seen].sort()).toEqual([...ids].sort());
      for (let p = 0; p < 6; p++) {
        const parent = got.filter((r) => (r.json.n as number) % 6 === p);
        // In creation order, and each one sent only after the one before it was answered.
        expect(parent.map((r) => r.json.n)).toEqual(Array.from({ length: 10 }, (_, k) => p + 6 * k));
        for (let k = 1; k < parent.length; k++)
          expect(parent[k]!.startedAt).toBeGreaterThanOrEqual(parent[k - 1]!.finishedAt!);
        expect(parent.map((r) => Number(r.headers["svc-sequence"]))).toEqual(
          Array.from({ length: 10 }, (_, k) => k + 1),
        );
      }
      // Every outcome recorded: one try each, numbered as sent.
      const rows = await db.query<{
        parent_session_id: string;
        status: string;
        tries: number;
        sequence: number;
      }>(
        `select parent_session_id, status, tries, sequence from webhook_deliveries
        where parent_session_id like $1 || '%' order by seq`,
        [prefix],
      );
      expect(rows).toHaveLength(60);
      for (const [i, row] of rows.entries())
        expect(row).toEqual({
          parent_session_id: `${prefix}${i % 6}`,
          status: "succeeded",
          tries: 1,
          sequence: Math.floor(i / 6) + 1,
        });
    },
  );

  it.runIf(store === "postgres")(
    "a backlog of full held claims, some parents with many messages: each message once, each parent in order",
    async () => {
      // More than two claims' worth: held claims start after an open one's rows, and the rows
      // they leave behind (a parent's later messages, blocked then) are claimed from the head.
      receiver.requests.length = 0;
      const prefix = `sess_backlog_${Date.now()}_`;
      const parentOf = (i: number) => (i % 4 === 0 ? `${prefix}s${(i / 4) % 30}` : `${prefix}u${i}`);
      const ids = await db.tx((q) =>
        enqueueMany(
          q,
          Array.from({ length: 1200 }, (_, i) => ({
            message: {
              merchantId,
              kind: "operation" as const,
              eventType: "operation",
              parentSessionId: parentOf(i),
              body: JSON.stringify({ n: i }),
            },
            urls: [`${receiver.url}/backlog`],
            config,
          })),
        ),
      );
      const signal = new OutboxSignal();
      const workers = [0, 1].map(
        () =>
          new DeliveryWorker(db, {
            allowPrivate: true,
            metrics: createMetrics(),
            signal,
            holdClaims: "always",
          }),
      );
      try {
        await Promise.all(workers.map((w) => w.start()));
        await receiver.waitFor(1200, { path: "/backlog", timeoutMs: 30_000 });
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
      }
      const got = receiver.requests.filter((r) => r.path === "/backlog");
      const seen = got.map((r) => String(r.headers["webhook-id"]));
      expect(new Set(seen).size).toBe(1200);
      expect([...seen].sort()).toEqual([...(ids as string[])].sort());
      for (let p = 0; p < 30; p++) {
        const parent = got.filter(
          (r) => (r.json.n as number) % 4 === 0 && ((r.json.n as number) / 4) % 30 === p,
        );
        expect(parent.map((r) => r.json.n)).toEqual(Array.from({ length: 10 }, (_, k) => 4 * (p + 30 * k)));
        for (let k = 1; k < parent.length; k++)
          expect(parent[k]!.startedAt).toBeGreaterThanOrEqual(parent[k - 1]!.finishedAt!);
        expect(parent.map((r) => Number(r.headers["svc-sequence"]))).toEqual(
          Array.from({ length: 10 }, (_, k) => k + 1),
        );
      }
      const [left] = await db.query<{ n: number }>(
        `select count(*)::int as n from webhook_deliveries
          where parent_session_id like $1 || '%' and (status <> 'succeeded' or tries <> 1)`,
        [prefix],
      );
      expect(left!.n).toBe(0);
    },
  );

  it("a destination that hangs holds back another origin's webhooks for about a second, not for its attempts' timeout", async () => {
    // Merchant A's endpoint answers nothing: 1,100 of its webhooks fill the worker's room and the
    // 64 sockets to its origin. Merchant B's, at another origin, go out while A's still hang.
    const slow = await startReceiver();
    const other = await seedOutboxMerchant(db, "mer_other", SECRET);
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    slow.respond = () => ({ status: 200, until: released });
    const hanging = { timeout_seconds: 20, retry_schedule_seconds: [60] };
    const item = (m: string, url: string, i: number, c: typeof config) => ({
      message: {
        merchantId: m,
        kind: "operation" as const,
        eventType: "operation" as const,
        parentSessionId: `sess_stall_${store}_${m}_${i}`,
        body: JSON.stringify({ n: i }),
      },
      urls: [url],
      config: c,
    });
    await enqueueMany(
      db,
      Array.from({ length: 1100 }, (_, i) => item(merchantId, `${slow.url}/hang`, i, hanging)),
    );
    const metrics = createMetrics();
    const worker = new DeliveryWorker(db, { allowPrivate: true, metrics });
    try {
      await worker.start();
      await slow.waitFor(64, { timeoutMs: 10_000 });
      // The worker's room is full of A's attempts (leased once their claims' holds end) before B's
      // webhooks are committed: without the rule, B's wait for A's timeout.
      await expect
        .poll(
          async () =>
            (
              await db.query<{ n: number }>(
                "select count(*)::int as n from webhook_deliveries where url = $1 and lease_until is not null",
                [`${slow.url}/hang`],
              )
            )[0]!.n,
          { timeout: 10_000 },
        )
        .toBeGreaterThanOrEqual(1000);
      receiver.requests.length = 0;
      await enqueueMany(
        db,
        Array.from({ length: 5 }, (_, i) => item(other, `${receiver.url}/unstalled`, i, config)),
      );
      await receiver.waitFor(5, { path: "/unstalled", timeoutMs: 15_000 });
      // None of A's attempts has ended: B's did not wait for their timeout.
      expect(slow.requests.filter((r) => r.finishedAt !== undefined)).toEqual([]);
      expect(slow.requests.length).toBe(64);
      // Counted once, however many claims left it out.
      expect(metrics.render()).toContain("svc_webhook_origins_stalled_total 1\n");
    } finally {
      release();
      await db.query(
        "update webhook_deliveries set status = 'failed' where url = $1 and status <> 'succeeded'",
        [`${slow.url}/hang`],
      );
      await worker.stop();
      await slow.close();
    }
  });

  /** A worker whose every claim is held (held-claim.ts). */
  const holdingWorker = (options: Partial<WorkerOptions> = {}) =>
    new DeliveryWorker(db, {
      allowPrivate: true,
      metrics: createMetrics(),
      holdClaims: "always",
      ...options,
    });

  it.runIf(store === "postgres")("a held claim's failed attempts move their endpoint's health", async () => {
    receiver.requests.length = 0;
    const url = `${receiver.url}/held-health`;
    await db.query(
      `insert into webhook_endpoints (id, merchant_id, url, payload_version) values ('we_held_health', $1, $2, '2026-11-24')`,
      [merchantId, url],
    );
    await db.tx((q) =>
      enqueueMany(q, [
        {
          message: {
            merchantId,
            kind: "operation",
            eventType: "operation",
            parentSessionId: "sess_held_health",
            body: "{}",
          },
          urls: [url],
          endpointIds: ["we_held_health"],
          config: { timeout_seconds: 5, retry_schedule_seconds: [600] },
        },
      ]),
    );
    receiver.respond = () => ({ status: 503, body: "down" });
    const worker = holdingWorker();
    try {
      await worker.start();
      await receiver.waitFor(1);
      await worker.idle();
    } finally {
      await worker.stop();
      receiver.respond = () => ({ status: 200, body: "ok" });
    }
    const [delivery] = await db.query<{ status: string; tries: number }>(
      "select status, tries from webhook_deliveries where endpoint_id = 'we_held_health'",
    );
    expect(delivery).toEqual({ status: "retrying", tries: 1 });
    const [endpoint] = await db.query<{ failing: boolean; last_error: string }>(
      "select failing_since is not null as failing, last_error from webhook_endpoints where id = 'we_held_health'",
    );
    expect(endpoint).toEqual({ failing: true, last_error: "HTTP 503" });
  });

  it.runIf(store === "postgres")(
    "a held claim whose transaction is lost writes its outcome outside it: the delivery is not sent again",
    async () => {
      receiver.requests.length = 0;
      const id = await db.tx((q) =>
        enqueue(
          q,
          {
            merchantId,
            kind: "operation",
            eventType: "operation",
            parentSessionId: "sess_held_lost",
            body: "{}",
          },
          [`${receiver.url}/held`],
          config,
        ),
      );
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      receiver.respond = (_, n) => (n === 0 ? { status: 200, until: released } : { status: 200 });
      const errors: unknown[] = [];
      // No poll: only the worker's own wake after the lost hold could claim the delivery again.
      const worker = holdingWorker({ fallbackPollMs: 600_000, onError: (error) => errors.push(error) });
      try {
        await worker.start();
        await receiver.waitFor(1);
        // The claim's transaction is open while the attempt runs: the database ends its connection.
        const [ended] = await db.query<{ n: number }>(
          `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
            where datname = current_database() and state = 'idle in transaction' and pid <> pg_backend_pid()`,
        );
        expect(ended!.n).toBe(1);
        release();
        await receiver.waitFor(1);
        await worker.idle();
      } finally {
        await worker.stop();
        receiver.respond = () => ({ status: 200, body: "ok" });
      }
      // The hold's outcome had no transaction left: it is written outside it, at the row version
      // the claim found (nothing else had touched it), so the delivery is done after one send.
      expect(receiver.requests.map((r) => r.headers["webhook-id"])).toEqual([id]);
      const [row] = await db.query<{ status: string; tries: number; sequence: number; code: number }>(
        "select status, tries, sequence, last_attempt_status_code as code from webhook_deliveries where message_id = $1",
        [id],
      );
      expect(row).toEqual({ status: "succeeded", tries: 1, sequence: 1, code: 200 });
      // The lost connection was reported once, as a database that could not be reached.
      expect(errors).toHaveLength(1);
      expect(isDatabaseUnavailable(errors[0])).toBe(true);
    },
  );

  it("a worker that takes its process's commits at once keeps them from waking the others; busy or stopped, it does not", async () => {
    receiver.requests.length = 0;
    let notifies = 0;
    const signal = new OutboxSignal(async () => {
      notifies += 1;
    });
    // Answers held until released: the claims' attempts stay in flight.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    receiver.respond = () => ({ status: 200, until: released });
    const worker = new DeliveryWorker(db, {
      allowPrivate: true,
      metrics: createMetrics(),
      signal,
      // Every claim held by lock on PostgreSQL: two held claims open leave no room for a third.
      holdClaims: store === "postgres" ? "always" : "never",
      // Open until the answers are released, however slow the machine.
      holdMs: 60_000,
      fallbackPollMs: 600_000,
    });
    const commit = async (n: number) => {
      await enqueue(
        db,
        {
          merchantId,
          kind: "operation",
          eventType: "operation",
          parentSessionId: `sess_wake_${n}`,
          body: JSON.stringify({ n }),
        },
        [`${receiver.url}/wake`],
        config,
      );
      signal.committed();
    };
    try {
      await worker.start();
      await worker.idle();
      // Idle: the commit wakes this process's worker alone, which delivers it.
      await commit(1);
      await receiver.waitFor(1, { timeoutMs: 10_000 });
      expect(notifies).toBe(0);
      if (store === "postgres") {
        // A second held claim, then none left: the next commit wakes the other processes too.
        await commit(2);
        await receiver.waitFor(2, { timeoutMs: 10_000 });
        expect(notifies).toBe(0);
        await commit(3);
        expect(notifies).toBe(1);
      }
      release();
      await receiver.waitFor(store === "postgres" ? 3 : 1, { timeoutMs: 10_000 });
      await worker.idle();
      const before = notifies;
      await commit(4);
      await receiver.waitFor(store === "postgres" ? 4 : 2, { timeoutMs: 10_000 });
      expect(notifies).toBe(before);
    } finally {
      release();
      await worker.stop();
      receiver.respond = () => ({ status: 200, body: "ok" });
    }
    // Stopped: nothing in this process takes the commit.
    const before = notifies;
    await commit(5);
    expect(notifies).toBe(before + 1);
    await db.query("delete from webhook_deliveries where parent_session_id = 'sess_wake_5'");
  });

  it("a delivery whose worker died mid-attempt is taken over when its lease expires; the late outcome is ignored", async () => {
    receiver.requests.length = 0;
    const id = await db.tx((q) =>
      enqueue(
        q,
        { merchantId, kind: "operation", eventType: "operation", parentSessionId: "sess_dead", body: "{}" },
        [`${receiver.url}/d`],
        config,
      ),
    );
    // A worker claims it, then "dies": its lease is left to run out.
    const [claimed] = await deliveryRepo
      .claim(db, 500)
      .then((rows) => rows.filter((r) => r.message_id === id));
    expect(claimed).toBeDefined();
    await db.query("update webhook_deliveries set lease_until = now() - interval '1 second' where id = $1", [
      claimed!.id,
    ]);
    const worker = new DeliveryWorker(db, { allowPrivate: true, metrics: createMetrics() });
    await worker.start();
    await receiver.waitFor(1);
    await worker.idle();
    await worker.stop();
    // The dead worker's outcome arrives late: tries moved on, so it is dropped.
    await db.tx((q) =>
      deliveryRepo.record(q, [
        {
          id: claimed!.id,
          tid: claimed!.tid,
          messageId: claimed!.message_id,
          parentSessionId: claimed!.parent_session_id,
          url: claimed!.url,
          seq: claimed!.seq,
          tries: claimed!.tries,
          keptAttempt: claimed!.kept_attempt,
          status: "failed",
          nextAttemptAt: null,
          attemptedAt: new Date(),
          statusCode: null,
          latencyMs: 1,
          error: "late",
          responseBody: null,
        },
      ]),
    );
    const [row] = await db.query<{ status: string; tries: number }>(
      "select status, tries from webhook_deliveries where id = $1",
      [claimed!.id],
    );
    expect(row).toEqual({ status: "succeeded", tries: 2 });
  });
});
