/**
 * The delivery bench's producer, in its own process as the API processes are in a deployment
 * with `SVC_ROLE=worker` processes: commits `perSecond` messages a second for `seconds`, each in
 * its own transaction through `enqueue()`, signalling each commit as the service does (the
 * OutboxSignal's coalesced NOTIFY after the commit wakes the worker), on its own connection pool. Reports every message's commit time (wall clock, ms) once all have committed.
 * Input (IPC): {databaseUrl, merchantId, url, body, perSecond, seconds}.
 */
import { openPostgres } from "../../packages/service/src/db/client.js";
import { enqueue, notifyWorkers, OutboxSignal } from "../../packages/service/src/webhooks/outbox.js";
import { wallMs } from "./receiver.js";

interface Job {
  databaseUrl: string;
  merchantId: string;
  url: string;
  body: string;
  perSecond: number;
  seconds: number;
}

process.once("message", async (job: Job) => {
  const db = await openPostgres(job.databaseUrl, 20);
  const signal = new OutboxSignal(notifyWorkers(db));
  const commits: [string, number][] = [];
  const total = job.perSecond * job.seconds;
  const inserts: Promise<void>[] = [];
  const start = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * job.perSecond));
    for (; sent < due; sent++) {
      const n = sent;
      inserts.push(
        db
          .tx((q) =>
            enqueue(
              q,
              {
                merchantId: job.merchantId,
                kind: "operation",
                parentSessionId: `sess_load_${n}`,
                body: job.body,
              },
              [job.url],
              { timeout_seconds: 15, retry_schedule_seconds: [5] },
            ),
          )
          .then((id) => {
            commits.push([id!, wallMs()]);
            signal.committed();
          }),
      );
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(inserts);
  const offeredSeconds = (performance.now() - start) / 1000;
  await db.close();
  // Exit once the report is handed to the IPC channel, not before.
  process.send!({ commits, offeredSeconds }, () => process.exit(0));
});
