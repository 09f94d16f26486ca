/**
 * The delivery bench's producer, in its own process as the API processes are in a deployment
 * with `SVC_ROLE=worker` processes: commits `perSecond` messages a second for `seconds`, each in
 * its own transaction through `enqueue()` (`produce.ts`), signalling each commit as the service
 * does (the OutboxSignal's coalesced NOTIFY after the commit wakes the worker), on its own
 * connection pool, opened and warmed before the measured window. Reports every message's commit time (wall clock, ms) once all have committed.
 * With `baseline`, the baseline outbox's producer instead (one insert per message, its own pool):
 * the baseline measured in the same setup as svc.
 * Input (IPC): {databaseUrl, merchantId, url, body, perSecond, seconds, baseline?}.
 */
import { openPostgres } from "../../packages/service/src/db/client.js";
import { notifyWorkers, OutboxSignal } from "../../packages/service/src/webhooks/outbox.js";
import { BaselineOutbox, produceBaseline } from "./baseline-outbox.js";
import { PRODUCER_POOL, type ProduceReport, produce, warmUp } from "./produce.js";

interface Job {
  databaseUrl: string;
  merchantId: string;
  url: string;
  body: string;
  perSecond: number;
  seconds: number;
  /** The prefix of the baseline's message ids: produce for the baseline outbox. */
  baseline?: string;
}

async function produceSvc(job: Job): Promise<ProduceReport> {
  const db = await openPostgres(job.databaseUrl, PRODUCER_POOL);
  const produceJob = { ...job, parentPrefix: "sess_load_" };
  await warmUp(db, produceJob, PRODUCER_POOL);
  const report = await produce(db, new OutboxSignal(notifyWorkers(db)), produceJob);
  await db.close();
  return report;
}

async function produceForBaseline(job: Job & { baseline: string }): Promise<ProduceReport> {
  const outbox = new BaselineOutbox(job.databaseUrl);
  await outbox.warmUp();
  const report = await produceBaseline(outbox, { ...job, prefix: job.baseline });
  await outbox.close();
  return report;
}

process.once("message", async (job: Job) => {
  const { commits, offeredSeconds } = job.baseline
    ? await produceForBaseline({ ...job, baseline: job.baseline })
    : await produceSvc(job);
  // Exit once the report is handed to the IPC channel, not before.
  process.send!({ commits, offeredSeconds }, () => process.exit(0));
});
