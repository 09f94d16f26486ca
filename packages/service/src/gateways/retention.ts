/**
 * Gateway retention (`SVC_GATEWAY_RETENTION_DAYS`, 180 days by default; 0 keeps everything): what
 * gateways posted (`gateway_messages`) and the ids of the notifications applied
 * (`gateway_notifications`) are deleted once older than the retention, in the background
 * (server.ts's purge round, at start and every 10 minutes), the oldest first.
 *
 * Why it is safe:
 * - a notification id only has to outlive its gateway's retries of it (Stripe retries an event
 *   for 3 days; the retention is at least 7): a notification repeated after it is gone finds its
 *   effect recorded anyway (an operation done on a gateway is kept once per gateway operation id,
 *   a payment's result and an operation's result are applied once to the state they settle);
 * - a gateway's post is kept for reconciliation by hand, which looks back weeks, not years. The
 *   money it moved stays in the payment's records, which are never deleted here.
 */
import type { Queryable } from "../db/client.js";

const TABLES = ["gateway_messages", "gateway_notifications"] as const;

// The oldest rows past the cutoff, through each table's `received_at` index; rows another
// transaction holds are skipped (the next round takes them).
const purge = (table: (typeof TABLES)[number]) => `with old as (
    select ctid from ${table}
     where received_at < now() - make_interval(days => $1)
     order by received_at limit $2
       for update skip locked
  )
  delete from ${table} t using old where t.ctid = old.ctid
  returning 1`;

/**
 * Deletes gateway messages and notification ids older than `days` (0: none), `batch` rows at a
 * time in short transactions of their own, until none is left or `maxBatches` ran per table (the
 * next round takes the rest). Returns how many rows went.
 */
export async function purgeOldGatewayRecords(
  db: Queryable,
  days: number,
  { batch = 1_000, maxBatches = 50 }: { batch?: number; maxBatches?: number } = {},
): Promise<number> {
  if (days <= 0) return 0;
  let purged = 0;
  for (const table of TABLES) {
    const sql = purge(table);
    for (let i = 0; i < maxBatches; i++) {
      const gone = (await db.query(sql, [days, batch])).length;
      purged += gone;
      if (gone < batch) break;
    }
  }
  return purged;
}
