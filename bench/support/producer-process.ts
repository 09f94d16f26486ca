/**
 * The delivery bench's producer, in its own process as the API processes are in a deployment
 * with `SVC_ROLE=worker` processes: commits `perSecond` messages a second for `seconds`, each in
 * its own transaction through `enqueue()` (`produce.ts`), signalling each commit as the service
 * does (the OutboxSignal's coalesced NOTIFY after the commit wakes the worker), on its own
 * connection pool, opened and warmed before the measured window. Reports every message's commit time (wall clock, ms) once all have committed.
 * Input (IPC): {databaseUrl, merchantId, url, body, perSecond, seconds}.
 */
import { openPostgres } from "../../packages/service/src/db/client.js";
import { notifyWorkers, OutboxSignal } from "../../packages/service/src/webhooks/outbox.js";
import { PRODUCER_POOL, produce, warmUp } from "./produce.js";

interface Job {
  databaseUrl: string;
  merchantId: string;
  url: string;
  body: string;
  perSecond: number;
  seconds: number;
}

process.once("message", async (job: Job) => {
  const db = await openPostgres(job.databaseUrl, PRODUCER_POOL);
  const produceJob = { ...job, parentPrefix: "sess_load_" };
  await warmUp(db, produceJob, PRODUCER_POOL);
  const { commits, offeredSeconds } = await produce(db, new OutboxSignal(notifyWorkers(db)), produceJob);
  await db.close();
  // Exit once the report is handed to the IPC channel, not before.
  process.send!({ commits, offeredSeconds }, () => process.exit(0));
});
