/**
 * The delivery bench's producer loop, shared by the one-process run and the producer process:
 * commits `perSecond` messages a second for `seconds`, each in its own transaction through
 * `enqueue()` (its one statement committed on its own, or in `BEGIN … COMMIT`: `transaction`), signalling each commit as the service does, and returns every message's send time
 * (when the producer was due to send it: what an API request that writes a message waits from)
 * and commit time, wall clock ms.
 */
import type { Db, Queryable } from "../../packages/service/src/db/client.js";
import { enqueue, type OutboxSignal } from "../../packages/service/src/webhooks/outbox.js";
import { wallMs } from "./receiver.js";

export interface ProduceJob {
  merchantId: string;
  url: string;
  body: string;
  perSecond: number;
  seconds: number;
  /** Parent ids are `<prefix><n>`: one message per parent. */
  parentPrefix: string;
  /**
   * Each message in `BEGIN … COMMIT` (three round trips, as inside an API request's transaction)
   * instead of its one statement committed on its own (as the baseline's producer commits its insert).
   */
  transaction?: boolean;
}

/** Per message: [id, sent at, committed at], wall clock ms. */
export interface ProduceReport {
  commits: [string, number, number][];
  offeredSeconds: number;
}

/** The message for parent `<prefix><n>`, enqueued through `q`. */
function enqueueFor(q: Queryable, job: ProduceJob, n: number | string) {
  return enqueue(
    q,
    {
      merchantId: job.merchantId,
      kind: "operation",
      eventType: "operation",
      parentSessionId: `${job.parentPrefix}${n}`,
      body: job.body,
    },
    [job.url],
    { timeout_seconds: 15, retry_schedule_seconds: [5] },
  );
}

/** A producer's connections: the producer process's pool, the store's pool in one process, the baseline's. */
export const PRODUCER_POOL = 20;

/** Thrown to roll a warm-up transaction back. */
const WARM_UP = new Error("warm-up: rolled back");

/**
 * Opens every connection of the producer's pool and prepares the enqueue statement on each,
 * committing nothing: `connections` concurrent transactions that enqueue a message and roll back.
 * An API process is long-running, its pool open; without this the measured window began with a
 * cold pool (connections opened and the statement prepared under load: send → commit p99 50–72 ms
 * in the first second of four cold runs, 2–13 ms in the later seconds that had no commit stall;
 * measured 2026-11-26).
 */
export async function warmUp(db: Db, job: ProduceJob, connections: number): Promise<void> {
  await Promise.all(
    Array.from({ length: connections }, (_, n) =>
      db
        .tx(async (q) => {
          await enqueueFor(q, job, `warm_${n}`);
          // Hold the connection until every warm-up has one, so each takes its own.
          await new Promise((r) => setTimeout(r, 50));
          throw WARM_UP;
        })
        .catch((error: unknown) => {
          if (error !== WARM_UP) throw error;
        }),
    ),
  );
}

export async function produce(db: Db, signal: OutboxSignal, job: ProduceJob): Promise<ProduceReport> {
  const commits: [string, number, number][] = [];
  const total = job.perSecond * job.seconds;
  const start = performance.now();
  const inserts: Promise<void>[] = [];
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * job.perSecond));
    for (; sent < due; sent++) {
      const n = sent;
      const sentAt = wallMs();
      inserts.push(
        (job.transaction ? db.tx((q) => enqueueFor(q, job, n)) : enqueueFor(db, job, n)).then((id) => {
          commits.push([id!, sentAt, wallMs()]);
          signal.committed();
        }),
      );
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(inserts);
  return { commits, offeredSeconds: (performance.now() - start) / 1000 };
}
