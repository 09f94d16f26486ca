/**
 * The worker's pool plans its statements through their indexes even when the deliveries' table
 * was recorded as empty (a vacuum of the empty table: a fresh database, or the retention purge
 * having deleted every delivery). A prepared statement keeps the generic plan it got first, so a
 * plan of whole-table scans would stay while the table grew.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explain, seqScanned } from "../../../../test/support/plans.js";
import { freshPostgresUrl, STORES } from "../../../../test/support/stores.js";
import { type Db, openPostgres, type Queryable } from "../db/client.js";
import { migrate } from "../db/migrate.js";
import { type DeliveryOutcome, deliveryRepo } from "./delivery.repo.js";
import { WORKER_POOL_OPTIONS } from "./worker.js";

/** The statements `run` sends (each answered with no rows), to be explained elsewhere. */
async function statementsOf(
  run: (q: Queryable) => Promise<unknown>,
): Promise<[string, readonly unknown[]][]> {
  const sent: [string, readonly unknown[]][] = [];
  await run({
    query: async <T>(sql: string, params?: readonly unknown[]) => {
      sent.push([sql, params ?? []]);
      return [] as T[];
    },
  }).catch(() => {}); // a record finding none of its rows says so: its statement was sent
  return sent;
}

const outcome = (status: "succeeded" | "retrying", held: boolean): DeliveryOutcome => ({
  id: `dlv_plan_${status}`,
  tid: "(0,1)",
  messageId: `msg_plan_${status}`,
  parentSessionId: "sess_plan",
  url: "http://127.0.0.1:9/plan",
  seq: 1,
  endpointId: null,
  tries: 1,
  keptAttempt: false,
  held,
  status,
  nextAttemptAt: status === "retrying" ? new Date(Date.now() + 60_000) : null,
  attemptedAt: new Date(),
  statusCode: status === "succeeded" ? 200 : 500,
  latencyMs: 3,
  error: status === "succeeded" ? null : "HTTP 500",
  responseBody: "ok",
  sequence: 1,
});

describe.runIf(STORES.includes("postgres"))(
  "the worker's pool on a deliveries table recorded as empty",
  () => {
    let db: Db;
    let worker: Db;
    beforeAll(async () => {
      const url = await freshPostgresUrl();
      db = await openPostgres(url, 1);
      await migrate(db);
      await db.query("vacuum webhook_deliveries");
      worker = await openPostgres(url, 1, WORKER_POOL_OPTIONS);
    });
    afterAll(async () => {
      await worker?.close();
      await db?.close();
    });

    it("plans the claims and the records through indexes, where a pool left to PostgreSQL's choice scans the table", async () => {
      const statements = [
        ...(await statementsOf((q) => deliveryRepo.claim(q, 500, { leaseToken: 1 }))),
        ...(await statementsOf((q) => deliveryRepo.claimHeld(q, 500))),
        ...(await statementsOf((q) =>
          deliveryRepo.claimHeld(q, 500, { after: { at: new Date().toISOString(), seq: 1 } }),
        )),
        ...(await statementsOf((q) =>
          deliveryRepo.record(q, [outcome("succeeded", false), outcome("retrying", false)]),
        )),
        ...(await statementsOf((q) => deliveryRepo.recordHeld(q, [outcome("succeeded", true)]))),
      ];
      // The claims, the record and its retry's push-back, the held claim's plain update.
      expect(statements.length).toBeGreaterThanOrEqual(6);
      for (const [sql, params] of statements) {
        const plan = await explain(worker, sql, params);
        expect(seqScanned(plan), sql.slice(0, 60)).not.toContain("webhook_deliveries");
      }
      // What the option is for: the same claim on a pool without it reads the whole table.
      const [claim] = statements;
      expect(seqScanned(await explain(db, claim![0], claim![1]))).toContain("webhook_deliveries");
    });
  },
);
