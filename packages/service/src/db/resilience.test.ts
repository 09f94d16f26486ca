/**
 * svc's side of a PostgreSQL failure, on a cluster of this test's own (the shared test cluster
 * must not be crashed under the other test files): a statement in flight when the server dies
 * fails, the process does not; while it is down every statement fails within the connect timeout;
 * a server that stops answering with its sockets open (SIGSTOP, a partition) fails statements
 * within the statement timeout; LISTEN comes back by itself and says notifications may have been
 * missed; the HTTP service answers 503 database_unavailable with Retry-After, /readyz 503 and
 * /healthz 200, then serves again as soon as the server is back; and the delivery worker keeps
 * the outcome of an attempt made while the server was down and records it when it is back.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPgBin, startPostgres } from "../../../../scripts/postgres.mjs";
import {
  api,
  apiKey,
  bearer,
  createMerchant as createTestMerchant,
  createTransaction,
} from "../../../../test/support/merchant.js";
import { seedOutboxMerchant } from "../../../../test/support/outbox-merchant.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { createMetrics } from "../metrics/metrics.js";
import { enqueue } from "../webhooks/outbox.js";
import { DeliveryWorker, type WorkerOptions } from "../webhooks/worker.js";
import { type Db, isDatabaseUnavailable, openPostgres } from "./client.js";
import { migrate } from "./migrate.js";

const CONNECT_TIMEOUT_MS = 1_000;
const STATEMENT_TIMEOUT_MS = 1_500;
const bin = findPgBin();

type Cluster = Awaited<ReturnType<typeof startPostgres>>;

/** How long `fn` took and how it ended. */
async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const start = Date.now();
  try {
    return { ms: Date.now() - start, value: await fn() };
  } catch (error) {
    return { ms: Date.now() - start, error };
  }
}

async function eventually<T>(fn: () => Promise<T>, timeoutMs: number): Promise<{ ms: number; value: T }> {
  const start = Date.now();
  for (;;) {
    try {
      return { ms: Date.now() - start, value: await fn() };
    } catch (error) {
      if (Date.now() - start > timeoutMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A process's state letter from /proc (`T`: stopped); undefined when it is gone. */
function stateOf(pid: string): string | undefined {
  try {
    // The command name is in parentheses and may hold spaces; the state follows it.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return undefined;
  }
}

describe.runIf(bin)("PostgreSQL failures", () => {
  let cluster: Cluster;
  let db: Db;
  const payloads: string[] = [];
  let lost = 0;

  beforeAll(async () => {
    cluster = await startPostgres(bin!);
    db = await openPostgres(cluster.url, 3, {
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
    });
    await db.listen(
      "svc_resilience",
      (p) => payloads.push(p),
      () => (lost += 1),
    );
  });
  afterAll(async () => {
    await db?.close();
    cluster?.stop();
  });

  it("a crash fails the statements in flight and those that follow, quickly; recovery needs no restart", async () => {
    const inFlight = timed(() => db.query("select pg_sleep(5)"));
    const inTx = timed(() =>
      db.tx(async (q) => {
        await q.query("select 1");
        await q.query("select pg_sleep(5)");
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    cluster.crash();
    for (const ended of [await inFlight, await inTx]) {
      expect(isDatabaseUnavailable(ended.error)).toBe(true);
      expect(ended.ms).toBeLessThan(2_000);
    }
    const down = await timed(() => db.query("select 1"));
    expect(isDatabaseUnavailable(down.error)).toBe(true);
    expect(down.ms).toBeLessThan(CONNECT_TIMEOUT_MS + 1_000);
    cluster.start();
    const back = await eventually(() => db.query<{ n: number }>("select 1 as n"), 5_000);
    expect(back.value).toEqual([{ n: 1 }]);
    expect(back.ms).toBeLessThan(5_000);
    // LISTEN is back by itself, and its subscriber was told it may have missed notifications.
    await eventually(async () => {
      await db.notify("svc_resilience");
      if (!payloads.includes("")) throw new Error("no notification yet");
    }, 5_000);
    expect(lost).toBeGreaterThanOrEqual(1);
  });

  it("a server that stops answering (SIGSTOP) fails statements within the statement timeout, then answers again", async () => {
    cluster.freeze();
    let frozen: Awaited<ReturnType<typeof timed>>;
    try {
      frozen = await timed(() => db.query("select 1"));
    } finally {
      cluster.thaw();
    }
    expect(isDatabaseUnavailable(frozen.error)).toBe(true);
    expect(frozen.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + CONNECT_TIMEOUT_MS + 1_500);
    const back = await eventually(() => db.query("select 1"), 5_000);
    expect(back.ms).toBeLessThan(5_000);
  });

  it("a NOTIFY on a connection that went silent fails within its bound, and the next one gets through once the server answers", async () => {
    await db.notify("svc_resilience"); // the NOTIFY connection exists
    cluster.freeze();
    const thaw = setTimeout(() => cluster.thaw(), 6_000);
    try {
      const hung = await timed(() => db.notify("svc_resilience"));
      expect(hung.error).toBeInstanceOf(Error);
      expect(hung.ms).toBeLessThan(4_000);
    } finally {
      clearTimeout(thaw);
      cluster.thaw();
    }
    const back = await eventually(() => db.notify("svc_resilience"), 8_000);
    expect(back.ms).toBeLessThan(8_000);
  });

  it("a freeze lifts from every server process, even after a backend died while the server was stopped", async () => {
    // A backend that exits during a freeze stays a zombie until the postmaster, thawed first,
    // reaps it; thawing it next once threw (ESRCH) and left the other backends stopped for the
    // rest of the file. Three rounds: the reaping races the thaw's loop.
    for (let round = 0; round < 3; round++) {
      const { value: rows } = await eventually(
        () => db.query<{ pid: number }>("select pg_backend_pid() as pid"),
        8_000,
      );
      cluster.freeze();
      try {
        process.kill(rows[0]!.pid, "SIGKILL");
        expect(() => cluster.thaw()).not.toThrow();
      } finally {
        cluster.thaw(); // whatever happened above, the rest of the file needs a running server
      }
      const stopped = cluster.pids().filter((pid) => stateOf(pid) === "T");
      expect(stopped).toEqual([]);
      // The postmaster restarts its backends after one was killed; the pool reconnects.
      await eventually(() => db.query("select 1"), 8_000);
    }
  });

  it("errors that are the statement's own are not taken for an unavailable database", async () => {
    const wrong = await timed(() => db.query("select * from no_such_table"));
    expect(wrong.error).toBeDefined();
    expect(isDatabaseUnavailable(wrong.error)).toBe(false);
  });

  describe("the HTTP service", () => {
    let stack: Stack;
    beforeAll(async () => {
      await migrate(db);
      stack = await startStack("postgres", { db });
    });
    afterAll(async () => stack?.close());

    const createMerchant = () =>
      api(stack, "POST", "/v1/admin/merchants", {
        auth: bearer,
        body: { root_domain: `r${Date.now()}${Math.random().toString(36).slice(2, 6)}.example` },
      });

    it("answers 503 with Retry-After while the database is down, /readyz 503 and /healthz 200, and serves again when it is back", async () => {
      expect((await createMerchant()).status).toBe(201);
      cluster.crash();
      try {
        const refused = await createMerchant();
        expect(refused.status).toBe(503);
        expect(refused.json.code).toBe("database_unavailable");
        expect(refused.headers.get("retry-after")).toBe("2");
        const ready = await api(stack, "GET", "/readyz");
        expect(ready.status).toBe(503);
        expect(ready.json.status).toBe("database_unreachable");
        expect(ready.text).not.toContain("127.0.0.1");
        expect((await api(stack, "GET", "/healthz")).status).toBe(200);
        const page = await api(stack, "GET", "/dashboard/sign-in");
        expect(page.status).toBeLessThan(500);
        // The process's own counters can still be scraped; the database's gauges are left out.
        const metrics = await api(stack, "GET", "/metrics");
        expect(metrics.status).toBe(200);
        expect(metrics.text).toContain("svc_metrics_database_up 0");
        expect(metrics.text).not.toContain("svc_webhook_queue_depth");
      } finally {
        cluster.start();
      }
      const back = await eventually(async () => {
        const r = await createMerchant();
        if (r.status !== 201) throw new Error(`still ${r.status}`);
        return r;
      }, 5_000);
      expect(back.ms).toBeLessThan(5_000);
      expect((await api(stack, "GET", "/readyz")).status).toBe(200);
      const metrics = await api(stack, "GET", "/metrics");
      expect(metrics.text).toContain("svc_metrics_database_up 1");
      expect(metrics.text).toContain("svc_webhook_queue_depth");
    });

    it("frees an Idempotency-Key claimed while the server was frozen as soon as it answers again, not after the lease", async () => {
      const m = await createTestMerchant(stack);
      // The private key is now in the service's cache, so the next request gets as far as its key's claim.
      expect((await createTransaction(stack, m)).status).toBe(201);
      const key = `frozen-${Date.now()}`;
      const create = () =>
        api(stack, "POST", "/v1/checkout", {
          auth: apiKey(m.privateKey),
          headers: { "idempotency-key": key },
          body: { type: "e_commerce", pg_codes: [m.pg.sandbox], amount: "1.000", currency_code: "KWD" },
        });
      cluster.freeze();
      let refused: Awaited<ReturnType<typeof create>>;
      try {
        refused = await create();
      } finally {
        cluster.thaw();
      }
      expect(refused.status).toBe(503);
      expect(refused.json.code).toBe("database_unavailable");
      // The frozen server ran the claim after the request gave up; the lease (60 s) would hold the
      // key, but the service releases that claim once the server answers: the retry gets through.
      const answers: number[] = [];
      const back = await eventually(async () => {
        const r = await create();
        answers.push(r.status);
        if (r.status !== 201) throw new Error(`still ${r.status}`);
        return r;
      }, 8_000);
      expect(back.ms).toBeLessThan(8_000);
      expect(stack.config.idempotencyLeaseSeconds).toBeGreaterThanOrEqual(60);
      const [row] = await db.query<{ n: number }>(
        "select count(*)::int as n from transactions where merchant_id = $1 and amount_minor = 1000",
        [m.id],
      );
      expect(row!.n).toBe(1);
    });
  });

  describe("a database that only reads (a replica not yet promoted)", () => {
    let stack: Stack;
    beforeAll(async () => {
      await migrate(db);
      stack = await startStack("postgres", { db });
    });
    afterAll(async () => stack?.close());

    const readOnly = async (on: boolean) => {
      await db.query(
        on
          ? "alter system set default_transaction_read_only = on"
          : "alter system reset default_transaction_read_only",
      );
      await db.query("select pg_reload_conf()");
      // The pool's sessions take the reloaded setting at their next statement.
      await eventually(async () => {
        const [row] = await db.query<{ ro: string }>("select current_setting('transaction_read_only') as ro");
        if (row!.ro !== (on ? "on" : "off")) throw new Error("not yet");
      }, 5_000);
    };

    it("answers 503 database_unavailable with Retry-After, not 500, and /readyz 503 until it takes writes", async () => {
      const create = () =>
        api(stack, "POST", "/v1/admin/merchants", {
          auth: bearer,
          body: { root_domain: `ro${Date.now()}${Math.random().toString(36).slice(2, 6)}.example` },
        });
      await readOnly(true);
      try {
        const refused = await create();
        expect(refused.status).toBe(503);
        expect(refused.json.code).toBe("database_unavailable");
        expect(refused.headers.get("retry-after")).toBe("2");
        const ready = await api(stack, "GET", "/readyz");
        expect(ready.status).toBe(503);
        expect(ready.json.status).toBe("database_read_only");
      } finally {
        await readOnly(false);
      }
      expect((await create()).status).toBe(201);
      expect((await api(stack, "GET", "/readyz")).status).toBe(200);
    });
  });

  describe("the delivery worker", () => {
    let receiver: Receiver;
    let merchantId: string;
    beforeAll(async () => {
      await migrate(db);
      receiver = await startReceiver();
      merchantId = await seedOutboxMerchant(db, "mer_resilience", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
    });
    afterAll(() => receiver?.close());

    /** One message to the receiver at `path`, committed; its id. */
    const enqueueTo = (parentSessionId: string, path: string) =>
      db.tx((q) =>
        enqueue(
          q,
          { merchantId, kind: "operation", eventType: "operation", parentSessionId, body: "{}" },
          [`${receiver.url}${path}`],
          { timeout_seconds: 30, retry_schedule_seconds: [1] },
        ),
      );
    const workerFor = (
      holdClaims: WorkerOptions["holdClaims"],
      errors: unknown[],
      metrics = createMetrics(),
    ) =>
      new DeliveryWorker(db, {
        allowPrivate: true,
        metrics,
        holdClaims,
        holdMs: 60_000,
        fallbackPollMs: 600_000,
        onError: (error) => errors.push(error),
      });
    /**
     * With the first attempt in flight: puts what is committed on disk (this cluster commits
     * without waiting for it, as the worker's own commits do in production), crashes the server,
     * answers the attempt, and waits until the worker has tried to record it.
     */
    const crashThenAnswer = async (release: () => void, errors: unknown[]) => {
      await receiver.waitFor(1);
      await db.query("checkpoint");
      cluster.crash();
      release();
      await eventually(async () => {
        if (!errors.some(isDatabaseUnavailable)) throw new Error("the outcome was not tried yet");
      }, 5_000);
    };

    // Leased: the outcome is kept and recorded within its lease, so the delivery is not sent again.
    // Held: the claim's transaction dies with the server and its locks with it, so once the server
    // is back the delivery may be claimed and sent again before the kept outcome is recorded
    // (the worker's LISTEN comes back and wakes it); every attempt the endpoint saw is logged.
    it.each<WorkerOptions["holdClaims"]>(["never", "always"])(
      "an attempt answered while the server is down is recorded when it is back (claims: %s)",
      async (holdClaims) => {
        receiver.requests.length = 0;
        const id = await enqueueTo(`sess_down_${holdClaims}`, "/down");
        let release: () => void = () => {};
        const released = new Promise<void>((resolve) => (release = resolve));
        receiver.respond = (_, n) => (n === 0 ? { status: 200, until: released } : { status: 200 });
        const errors: unknown[] = [];
        const worker = workerFor(holdClaims, errors);
        try {
          await worker.start();
          try {
            // Answered while the server is down: the outcome cannot be written now.
            await crashThenAnswer(release, errors);
          } finally {
            cluster.start();
          }
          const delivery = async () => {
            const [row] = await db.query<{ status: string; code: number | null; earlier: number }>(
              `select d.status, d.last_attempt_status_code as code,
                      (select count(*)::int from webhook_attempts a where a.delivery_id = d.id) as earlier
                 from webhook_deliveries d where d.message_id = $1`,
              [id],
            );
            return row;
          };
          await eventually(async () => {
            const row = await delivery();
            if (row?.status !== "succeeded") throw new Error(`delivery ${row?.status}`);
          }, 15_000);
          // Held: a second attempt's outcome may still be on its way after the kept one made the
          // row succeeded (it once read earlier: 0 with two attempts sent); read the log once the
          // worker has nothing left to record.
          await worker.idle();
          const sent = receiver.requests.filter((r) => r.headers["webhook-id"] === id).length;
          if (holdClaims === "never") expect(sent).toBe(1);
          // Every attempt the endpoint saw is in the log: the row's last one and the earlier ones.
          expect(await delivery()).toEqual({ status: "succeeded", code: 200, earlier: sent - 1 });
          expect(errors.every(isDatabaseUnavailable)).toBe(true);
        } finally {
          await worker.stop();
          receiver.respond = () => ({ status: 200, body: "ok" });
        }
      },
    );

    it("a worker stopped while the server is down gives its kept outcomes up within its grace, and stops trying", async () => {
      receiver.requests.length = 0;
      await enqueueTo("sess_down_stop", "/down-stop");
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      receiver.respond = () => ({ status: 200, until: released });
      const errors: unknown[] = [];
      const worker = workerFor("never", errors);
      await worker.start();
      try {
        await crashThenAnswer(release, errors);
        const stopping = timed(() => worker.stop());
        // Its grace (5 s) plus one wait between tries (at most 5 s) and a statement's failure.
        expect((await stopping).ms).toBeLessThan(12_000);
      } finally {
        cluster.start();
        receiver.respond = () => ({ status: 200, body: "ok" });
      }
      await eventually(() => db.query("select 1"), 5_000);
      const tries = errors.length;
      // Longer than the longest wait between tries: a worker still trying would have written it.
      await new Promise((resolve) => setTimeout(resolve, 5_500));
      expect(errors.length).toBe(tries);
      const [row] = await db.query<{ status: string; attempted: boolean }>(
        "select status, last_attempt_at is not null as attempted from webhook_deliveries where parent_session_id = 'sess_down_stop'",
      );
      expect(row).toEqual({ status: "pending", attempted: false });
    });

    /** The delivery of message `id`: its status, tries and whether it is leased now. */
    const leaseOf = async (id: string) => {
      const [row] = await db.query<{ status: string; tries: number; leased: boolean }>(
        `select status, tries, coalesce(lease_until > now(), false) as leased
           from webhook_deliveries where message_id = $1`,
        [id],
      );
      return row;
    };
    const released = (metrics: ReturnType<typeof createMetrics>) =>
      /svc_webhook_leases_released_total (\d+)/.exec(metrics.render())?.[1];

    it("a claim that ran after the worker gave up on it (the server stopped answering) is taken back when the server answers, not after its lease", async () => {
      receiver.requests.length = 0;
      const metrics = createMetrics();
      const errors: unknown[] = [];
      const worker = workerFor("never", errors, metrics);
      await worker.start();
      try {
        // Due in a second: the worker's wake on its commit finds nothing to claim yet.
        const id = await db.tx(async (q) => {
          const messageId = await enqueue(
            q,
            {
              merchantId,
              kind: "operation",
              eventType: "operation",
              parentSessionId: "sess_lost_claim",
              body: "{}",
            },
            [`${receiver.url}/lost-claim`],
            { timeout_seconds: 30, retry_schedule_seconds: [1] },
          );
          await q.query(
            "update webhook_deliveries set next_attempt_at = now() + interval '1 second' where message_id = $1",
            [messageId],
          );
          return messageId!;
        });
        await new Promise((resolve) => setTimeout(resolve, 1_200));
        cluster.freeze();
        try {
          // The worker claims (as its fallback timer would) and gives up when no answer comes.
          worker.wake();
          await eventually(async () => {
            if (!errors.some(isDatabaseUnavailable)) throw new Error("the claim has not failed yet");
          }, 8_000);
        } finally {
          cluster.thaw();
        }
        // The server runs the claim it was sent: the delivery is leased (60 s), to no one.
        const lost = await eventually(async () => {
          const row = await leaseOf(id);
          if (!row?.leased) throw new Error("the claim has not run yet");
          return row;
        }, 8_000);
        expect(lost.value).toEqual({ status: "pending", tries: 1, leased: true });
        expect(receiver.requests).toHaveLength(0);
        // The worker's next claim (its timer's) takes the lease back first, and sends it.
        worker.wake();
        await receiver.waitFor(1, { path: "/lost-claim", timeoutMs: 8_000 });
        await eventually(async () => {
          if ((await leaseOf(id))?.status !== "succeeded") throw new Error("not recorded yet");
        }, 5_000);
        await worker.idle();
        expect(receiver.requests.filter((r) => r.headers["webhook-id"] === id)).toHaveLength(1);
        expect(released(metrics)).toBe("1");
        expect(errors.every(isDatabaseUnavailable)).toBe(true);
      } finally {
        await worker.stop();
      }
    });

    it("a lease on disk whose outcome was lost in a crash is taken back when the server is back, not after its lease", async () => {
      receiver.requests.length = 0;
      // The worker commits without waiting for the disk. With the WAL writer asleep for 10 s, an
      // outcome committed just before the crash is lost, as in production when the crash comes
      // within wal_writer_delay of it; the checkpoint puts the claim (its lease) on disk first.
      await db.query("alter system set wal_writer_delay = '10s'");
      await db.query("select pg_reload_conf()");
      let release: () => void = () => {};
      const answered = new Promise<void>((resolve) => (release = resolve));
      receiver.respond = (_, n) => (n === 0 ? { status: 200, until: answered } : { status: 200 });
      const metrics = createMetrics();
      const errors: unknown[] = [];
      const worker = workerFor("never", errors, metrics);
      const id = (await enqueueTo("sess_lost_outcome", "/lost-outcome"))!;
      try {
        await worker.start();
        await receiver.waitFor(1, { path: "/lost-outcome" });
        await db.query("checkpoint");
        release();
        await eventually(async () => {
          if ((await leaseOf(id))?.status !== "succeeded") throw new Error("not recorded yet");
        }, 5_000);
        cluster.crash();
        cluster.start();
        const restartedAt = Date.now();
        // The worker's LISTEN comes back, and it takes back the lease of the delivery it no
        // longer attempts: sent again (the same webhook-id) long before the lease (60 s) ends.
        const sent = await receiver
          .waitFor(2, { path: "/lost-outcome", timeoutMs: 10_000 })
          .catch(async () => {
            throw new Error(`not sent again; the delivery is now ${JSON.stringify(await leaseOf(id))}`);
          });
        expect(sent.map((r) => r.headers["webhook-id"])).toEqual([id, id]);
        expect(sent[1]!.receivedAt - restartedAt).toBeLessThan(10_000);
        await eventually(async () => {
          if ((await leaseOf(id))?.status !== "succeeded") throw new Error("not recorded yet");
        }, 5_000);
        // The first outcome was lost, its claim's try was not: two tries.
        expect(await leaseOf(id)).toEqual({ status: "succeeded", tries: 2, leased: false });
        expect(released(metrics)).toBe("1");
      } finally {
        await worker.stop();
        receiver.respond = () => ({ status: 200, body: "ok" });
        await eventually(() => db.query("alter system reset wal_writer_delay"), 5_000);
        await db.query("select pg_reload_conf()");
      }
    });
  });
});
