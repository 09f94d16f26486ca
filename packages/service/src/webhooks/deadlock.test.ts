/**
 * Transactions PostgreSQL undoes to break a deadlock, made to happen on purpose (PostgreSQL only:
 * PGlite has one connection, so nothing there ever waits for a lock). A transaction of the test's
 * own holds a row that the worker or the endpoints service needs, waits until that side is
 * blocked on it, then asks for a row that side holds. The side under test checks for deadlocks
 * after 50 ms (its database's `deadlock_timeout`), the test's transaction after 30 s, so the side
 * under test is always the one undone. Each must then do its work again rather than lose it:
 * the worker's batch of outcomes (a retry pushing later deliveries back), a held claim's
 * outcomes, disabling an endpoint (which ends the deliveries waiting for it), a new URL (which
 * moves them), and a replay.
 */
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { seedOutboxMerchant } from "../../../../test/support/outbox-merchant.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { freshPostgresUrl, STORES } from "../../../../test/support/stores.js";
import { type Db, openPostgres } from "../db/client.js";
import { migrate } from "../db/migrate.js";
import { createMetrics } from "../metrics/metrics.js";
import { createEndpointsService } from "./endpoints.service.js";
import { createMessagesService } from "./messages.service.js";
import { enqueue, enqueueMany, OutboxSignal } from "./outbox.js";
import { DeliveryWorker, type WorkerOptions } from "./worker.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
// A retry far away: the first try is the only one these tests see.
const config = { timeout_seconds: 5, retry_schedule_seconds: [300] };

describe.skipIf(!STORES.includes("postgres"))("transactions undone by a deadlock on postgres", () => {
  let url: string;
  let db: Db;
  let receiver: Receiver;
  let merchantId: string;
  let other: pg.Client;
  beforeAll(async () => {
    url = await freshPostgresUrl();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // Every connection svc opens on this database looks for a deadlock after 50 ms of waiting.
    await admin.query(`alter database ${new URL(url).pathname.slice(1)} set deadlock_timeout = '50ms'`);
    await admin.end();
    db = await openPostgres(url, 10);
    await migrate(db);
    merchantId = await seedOutboxMerchant(db, "mer_deadlock", SECRET);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await db.close();
  });
  beforeEach(async () => {
    receiver.requests.length = 0;
    other = new pg.Client({ connectionString: url });
    await other.connect();
    // The test's own transaction waits 30 s before it looks for a deadlock: never the one undone.
    await other.query("begin");
    await other.query("set local deadlock_timeout = '30s'");
  });

  /** Resolves once a backend of svc's waits for a lock while running a statement containing `sql`. */
  async function blockedOn(sql: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [row] = await db.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and position($1 in query) > 0
            and pid <> pg_backend_pid()`,
        [sql],
      );
      if (row!.n > 0) return;
      if (Date.now() > deadline) throw new Error(`nothing blocked on ${sql}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** A worker on the test's database, and every error it reports (none is expected). */
  function workerWith(options: Pick<WorkerOptions, "holdClaims" | "holdMs">) {
    const errors: unknown[] = [];
    const worker = new DeliveryWorker(db, {
      allowPrivate: true,
      metrics: createMetrics(),
      signal: new OutboxSignal(),
      ...options,
      onError: (error) => errors.push(error),
    });
    return { worker, errors };
  }

  /** Two messages for one parent and URL: the first is sent, the second waits for it. */
  async function twoForOneParent(parent: string): Promise<[string, string]> {
    const ids: string[] = [];
    for (const n of [1, 2])
      ids.push(
        (await enqueue(
          db,
          {
            merchantId,
            kind: "operation",
            eventType: "operation",
            parentSessionId: parent,
            body: JSON.stringify({ n }),
          },
          [`${receiver.url}/${parent}`],
          config,
        ))!,
      );
    return ids as [string, string];
  }

  const delivery = async (messageId: string) =>
    (
      await db.query<{
        id: string;
        status: string;
        tries: number;
        lease_until: Date | null;
        last_attempt_status_code: number | null;
        next_attempt_at: Date;
        sequence: number | null;
      }>(
        `select id, status, tries, lease_until, last_attempt_status_code, next_attempt_at, sequence
           from webhook_deliveries where message_id = $1`,
        [messageId],
      )
    )[0]!;

  /** An endpoint of the merchant's at `/<name>`, and a message waiting for it. */
  async function endpointWithWaiting(name: string) {
    const endpoints = createEndpointsService(db, {
      outbox: new OutboxSignal(),
      now: () => new Date(),
      disableAfterMs: 3_600_000,
      allowPrivate: true,
    });
    const endpoint = await endpoints.create(merchantId, { url: `${receiver.url}/${name}` });
    const [waiting] = await enqueueMany(db, [
      {
        message: {
          merchantId,
          kind: "operation",
          eventType: "operation",
          parentSessionId: `sess_deadlock_${name}`,
          body: "{}",
        },
        urls: [endpoint.url],
        endpointIds: [endpoint.id],
        config,
      },
    ]);
    return { endpoints, endpoint, waiting: waiting! };
  }

  it.each<WorkerOptions["holdClaims"]>(["never", "always"])(
    "a worker's outcome undone by a deadlock with its retry's push-back is recorded all the same, and sent once (claims held: %s)",
    async (holdClaims) => {
      const parent = `sess_deadlock_${holdClaims}`;
      const [first, second] = await twoForOneParent(parent);
      receiver.respond = () => ({ status: 500, body: "down" });
      // The test holds the second message's row: the push-back of the first one's retry needs it.
      await other.query("select 1 from webhook_deliveries where message_id = $1 for update", [second]);
      const { worker, errors } = workerWith({ holdClaims });
      try {
        await worker.start();
        await receiver.waitFor(1);
        // The outcome's transaction has written the first row and waits for the second…
        await blockedOn("greatest(l.next_attempt_at");
        // …and the test now asks for the first one: a deadlock, which undoes the worker's side.
        await other.query("select 1 from webhook_deliveries where message_id = $1 for update", [first]);
        await other.query("commit");
        await expect.poll(async () => (await delivery(first)).status, { timeout: 10_000 }).toBe("retrying");
        await worker.idle();
      } finally {
        await worker.stop();
        await other.end();
      }
      expect(errors).toEqual([]);
      const done = await delivery(first);
      expect(done).toMatchObject({ tries: 1, lease_until: null, last_attempt_status_code: 500, sequence: 1 });
      // The second waits for the first one's retry (ordering), and was never sent.
      expect((await delivery(second)).next_attempt_at.getTime()).toBeGreaterThanOrEqual(
        done.next_attempt_at.getTime(),
      );
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.requests.map((r) => r.json.n)).toEqual([1]);
      const [attempts] = await db.query<{ n: number }>(
        `select count(*)::int as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
          where d.message_id = $1`,
        [first],
      );
      // The try is on the delivery's row; a second copy of it in webhook_attempts would mean the
      // outcome was written twice.
      expect(attempts!.n).toBe(0);
    },
  );

  it("a held claim undone by a deadlock after its hold ended hands what is still in flight to a lease: each sent once, each try recorded", async () => {
    const parent = "sess_deadlock_slow_";
    const [first, second] = await twoForOneParent(`${parent}a`);
    const [slow] = await twoForOneParent(`${parent}b`);
    let release: () => void = () => {};
    const released = new Promise((resolve) => (release = () => resolve(undefined)));
    receiver.respond = (req) =>
      req.path.endsWith("b") ? { status: 200, until: released } : { status: 500, body: "down" };
    await other.query("select 1 from webhook_deliveries where message_id = $1 for update", [second]);
    // The hold ends after 300 ms with the slow one still in flight: its transaction records the
    // first one's retry (blocked on the test's row, then undone) and leases the slow one.
    const { worker, errors } = workerWith({ holdClaims: "always", holdMs: 300 });
    try {
      await worker.start();
      await receiver.waitFor(2);
      await blockedOn("greatest(l.next_attempt_at");
      await other.query("select 1 from webhook_deliveries where message_id = $1 for update", [first]);
      await other.query("commit");
      await expect.poll(async () => (await delivery(first)).status, { timeout: 10_000 }).toBe("retrying");
      // Leased again outside the undone transaction: not due, so not claimed and sent meanwhile.
      // (The redo writes the outcomes first and the leases after: polled, not read once, since a
      // read between the two found no lease yet on a loaded machine, 2026-11-29.)
      await expect.poll(async () => (await delivery(slow!)).lease_until, { timeout: 10_000 }).not.toBeNull();
      await new Promise((r) => setTimeout(r, 300));
      release();
      await expect.poll(async () => (await delivery(slow!)).status, { timeout: 10_000 }).toBe("succeeded");
      await worker.idle();
    } finally {
      release();
      await worker.stop();
      await other.end();
    }
    expect(errors).toEqual([]);
    expect(await delivery(slow!)).toMatchObject({ tries: 1, last_attempt_status_code: 200, sequence: 1 });
    expect(await delivery(first)).toMatchObject({ tries: 1, last_attempt_status_code: 500 });
    // Each once: the first of "a" (its second waits for its retry), and both of "b", the second
    // sent once the first was answered.
    expect(receiver.requests.map((r) => `${r.path.slice(-1)}${r.json.n}`).sort()).toEqual(["a1", "b1", "b2"]);
  });

  it("disabling an endpoint undone by a deadlock with a delivery's writer runs again and ends the deliveries waiting for it", async () => {
    const { endpoints, endpoint, waiting } = await endpointWithWaiting("endpoint");
    try {
      // A writer of that delivery (as a worker recording a push-back would be) holds its row…
      await other.query("select 1 from webhook_deliveries where message_id = $1 for update", [waiting]);
      const disabling = endpoints.update(merchantId, endpoint.id, { enabled: false });
      // …the disabling transaction holds the endpoint's row and waits for the delivery's…
      await blockedOn("set status = 'failed'");
      // …and the writer asks for the endpoint's row: the disabling side is undone, and runs again.
      await other.query("select 1 from webhook_endpoints where id = $1 for update", [endpoint.id]);
      await other.query("commit");
      expect((await disabling).enabled).toBe(false);
    } finally {
      await other.end();
    }
    expect(await delivery(waiting!)).toMatchObject({ status: "failed", lease_until: null });
    const [row] = await db.query<{ last_error: string }>(
      "select last_error from webhook_deliveries where message_id = $1",
      [waiting],
    );
    expect(row!.last_error).toBe("endpoint disabled");
  });

  it("a new URL undone by a deadlock with a delivery's writer runs again and moves the deliveries waiting for the endpoint", async () => {
    const { endpoints, endpoint, waiting } = await endpointWithWaiting("moving");
    try {
      // A writer of that delivery holds its row…
      await other.query("select 1 from webhook_deliveries where message_id = $1 for update", [waiting]);
      const moving = endpoints.update(merchantId, endpoint.id, { url: `${receiver.url}/moved` });
      // …the change holds the endpoint's row and waits for the delivery's…
      await blockedOn("d.url <> $1");
      // …and the writer asks for the endpoint's row: the change is undone, and runs again.
      await other.query("select 1 from webhook_endpoints where id = $1 for update", [endpoint.id]);
      await other.query("commit");
      expect(await moving).toMatchObject({ url: `${receiver.url}/moved`, moved: 1 });
    } finally {
      await other.end();
    }
    const [row] = await db.query<{ url: string; status: string }>(
      "select url, status from webhook_deliveries where message_id = $1",
      [waiting],
    );
    expect(row).toEqual({ url: `${receiver.url}/moved`, status: "pending" });
  });

  it("a replay undone by a deadlock with a delivery's writer runs again and puts every delivery back in the queue", async () => {
    // A merchant of its own: the tests above leave failed deliveries of theirs.
    const replayer = await seedOutboxMerchant(db, "mer_deadlock_replay", SECRET);
    const messages = createMessagesService(db, { outbox: new OutboxSignal() });
    const [first, second] = await enqueueMany(
      db,
      ["sess_deadlock_replay_1", "sess_deadlock_replay_2"].map((parent) => ({
        message: {
          merchantId: replayer,
          kind: "operation",
          eventType: "operation",
          parentSessionId: parent,
          body: "{}",
        },
        urls: [`${receiver.url}/replay`],
        config,
      })),
    );
    await db.query(
      "update webhook_deliveries set status = 'failed', tries = 3, completed_at = now() where message_id in ($1, $2)",
      [first, second],
    );
    try {
      // A writer (a worker recording an outcome, an endpoint being disabled) holds one delivery…
      await other.query("select 1 from webhook_deliveries where message_id = $1 for update", [second]);
      const replaying = messages.replayMany(replayer, { status: "failed" });
      // …the replay holds the other and waits for it…
      // (Found by its first CTE's name: pg_stat_activity keeps a statement's first 1 KB only.)
      await blockedOn("candidates as (");
      // …and the writer asks for the replay's: the replay is undone, and runs again.
      await other.query("select 1 from webhook_deliveries where message_id = $1 for update", [first]);
      await other.query("commit");
      expect(await replaying).toEqual({ replayed: 2, skipped: 0 });
    } finally {
      await other.end();
    }
    for (const id of [first!, second!])
      expect(await delivery(id)).toMatchObject({ status: "pending", tries: 0, lease_until: null });
  });
});
