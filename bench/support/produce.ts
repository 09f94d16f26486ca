/**
 * The delivery bench's producer loop, shared by the one-process run and the producer process:
 * commits `perSecond` messages a second for `seconds`, each in its own transaction through
 * `enqueue()`, signalling each commit as the service does, and returns every message's send time
 * (when the producer was due to send it: what an API request that writes a message waits from)
 * and commit time, wall clock ms.
 */
import type { Db } from "../../packages/service/src/db/client.js";
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
}

/** Per message: [id, sent at, committed at], wall clock ms. */
export interface ProduceReport {
  commits: [string, number, number][];
  offeredSeconds: number;
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
        db
          .tx((q) =>
            enqueue(
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
            ),
          )
          .then((id) => {
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
