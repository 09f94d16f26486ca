/**
 * Webhook retention (`SVC_WEBHOOK_RETENTION_DAYS`, 90 days by default): a message whose every
 * delivery has finished (succeeded or failed) longer ago than the retention is deleted, with its
 * deliveries and their earlier attempts, in the background (server.ts's purge round, at start and
 * every 10 minutes). Before, the three kept every webhook ever sent.
 *
 * What it keeps:
 * - anything still waiting, retrying or streaming, and anything finished within the retention
 *   (a replay finishes a delivery anew, so a replayed message is kept from its replay);
 * - `svc-sequence`: the next delivery of a (parent, URL) numbers after the highest it has had.
 *   The purge deletes a (parent, URL)'s highest-numbered delivery only together with every other
 *   delivery of that (parent, URL), and then keeps the number in `webhook_sequence_floors`
 *   (migration 0026), which the claim reads when a (parent, URL) has no numbered delivery left.
 *   A message one of whose deliveries is such a highest one waits until the others can go too.
 *
 * Each batch is one transaction: the candidate messages' rows are locked (a replay at that instant
 * either ran first, and its message is kept, or finds nothing; a row someone else holds keeps its
 * message), the rules are checked on what is locked, and a message goes whole or not at all (its
 * body is on its first delivery).
 */
import type { Db, Queryable } from "../db/client.js";
import { retriedTx } from "../db/conflict.js";

/** The final statuses: a delivery in any other is still on its way. */
const FINISHED = `('succeeded', 'failed')`;

// A merchant's oldest messages that no longer wait, created before the cutoff, from the cursor
// on: at or after its time ($3), but for the messages of that very time already looked at ($4).
// Through `webhook_deliveries_merchant_created`, whose predicate this repeats so the planner uses
// it, in its order (created_at alone: ordered by the message id too, the planner sorted every
// old row for each batch).
const CANDIDATES = `select d.message_id, d.created_at::text as created_at from webhook_deliveries d
   where d.merchant_id = $1 and d.position = 1 and d.status not in ('pending', 'retrying')
     and d.created_at < now() - make_interval(days => $2)
     and d.created_at >= $3::timestamptz and not (d.created_at = $3::timestamptz and d.message_id = any($4::text[]))
   order by d.created_at
   limit $5`;

// Every delivery of the candidate messages that no one else holds, locked, with whether it is
// finished past the cutoff. Skipped, not waited for: a delivery in flight may be held for its
// whole attempt (a held claim), and its message is not one to delete anyway.
const LOCK_MESSAGES = `select d.message_id, d.parent_session_id, d.url, d.sequence,
         (d.status in ${FINISHED} and coalesce(d.completed_at, d.updated_at, d.created_at) < now() - make_interval(days => $2)) as old
    from webhook_deliveries d
   where d.message_id = any($1::text[])
   order by d.message_id, d.position
     for update skip locked`;

interface LockedRow {
  message_id: string;
  parent_session_id: string | null;
  url: string;
  sequence: string | number | null;
  old: boolean;
}

interface GroupRow {
  parent_session_id: string;
  url: string;
  message_id: string;
  sequence: string | number | null;
}

const groupKey = (parent: string, url: string) => JSON.stringify([parent, url]);

/** `items` by `key`, each group in the items' order. */
function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/**
 * One batch: the messages of `candidates` that can go, deleted. Returns how many messages went.
 */
async function purgeMessages(q: Queryable, candidates: string[], retentionDays: number): Promise<number> {
  const rows = await q.query<LockedRow>(LOCK_MESSAGES, [candidates, retentionDays]);
  const byMessage = groupBy(rows, (r) => r.message_id);
  const counts = await q.query<{ message_id: string; n: number }>(
    `select message_id, count(*)::int4 as n from webhook_deliveries
      where message_id = any($1::text[]) group by message_id`,
    [candidates],
  );
  const all = new Map(counts.map((c) => [c.message_id, Number(c.n)]));
  // A message can go when every delivery of it (none skipped) finished before the cutoff …
  const going = new Set(
    [...byMessage]
      .filter(([id, rs]) => rs.length === all.get(id) && rs.every((r) => r.old))
      .map(([id]) => id),
  );
  // … and each of its deliveries that is its (parent, URL)'s highest goes with all the others.
  const numbered = rows.filter((r) => going.has(r.message_id) && r.parent_session_id && r.sequence !== null);
  const parents = [...new Set(numbered.map((r) => r.parent_session_id!))];
  const members =
    parents.length === 0
      ? []
      : await q.query<GroupRow>(
          `select parent_session_id, url, message_id, sequence from webhook_deliveries
            where parent_session_id = any($1::text[])`,
          [parents],
        );
  const groups = groupBy(members, (m) => groupKey(m.parent_session_id, m.url));
  // Each (parent, URL)'s highest number, once.
  const highest = new Map(
    [...groups].map(([key, ms]) => [key, Math.max(0, ...ms.map((m) => Number(m.sequence ?? 0)))]),
  );
  const tops = numbered.filter(
    (r) => Number(r.sequence) === highest.get(groupKey(r.parent_session_id!, r.url)),
  );
  // Keeping one message can keep another (it shares a (parent, URL) with it): until none changes.
  for (let changed = true; changed;) {
    changed = false;
    for (const top of tops) {
      if (!going.has(top.message_id)) continue;
      const members = groups.get(groupKey(top.parent_session_id!, top.url)) ?? [];
      if (members.every((m) => going.has(m.message_id))) continue;
      going.delete(top.message_id);
      changed = true;
    }
  }
  if (going.size === 0) return 0;
  const floors = tops.filter((t) => going.has(t.message_id));
  if (floors.length > 0)
    await q.query(
      `insert into webhook_sequence_floors (parent_session_id, url, sequence)
       select * from unnest($1::text[], $2::text[], $3::int8[])
       on conflict (parent_session_id, url) do update
         set sequence = greatest(webhook_sequence_floors.sequence, excluded.sequence)`,
      [
        floors.map((t) => t.parent_session_id),
        floors.map((t) => t.url),
        floors.map((t) => String(t.sequence)),
      ],
    );
  // By message (the hash index; a delivery's id is not indexed): exactly the rows locked above.
  const gone = await q.query<{ id: string }>(
    "delete from webhook_deliveries where message_id = any($1::text[]) returning id",
    [[...going]],
  );
  await q.query("delete from webhook_attempts where delivery_id = any($1::text[])", [gone.map((g) => g.id)]);
  return going.size;
}

/**
 * Deletes the webhook messages past the retention, `batch` messages a transaction, merchant by
 * merchant, the oldest first, until none is left or `maxBatches` ran (the next round takes the
 * rest). `retentionDays` 0 keeps everything. Returns how many messages went.
 */
export async function purgeOldWebhooks(
  db: Pick<Db, "query" | "tx">,
  retentionDays: number,
  { batch = 500, maxBatches = 50 }: { batch?: number; maxBatches?: number } = {},
): Promise<number> {
  if (retentionDays <= 0) return 0;
  const merchants = await db.query<{ id: string }>("select id from merchants order by id");
  let purged = 0;
  let batches = 0;
  for (const { id } of merchants) {
    // A cursor, so that messages kept (their (parent, URL) still busy) do not hold the rest back:
    // the time of the last message looked at (as PostgreSQL writes it: a Date would drop its
    // microseconds), and the messages of that time looked at so far.
    let time = "-infinity";
    let seen: string[] = [];
    while (batches < maxBatches) {
      const candidates = await db.query<{ message_id: string; created_at: string }>(CANDIDATES, [
        id,
        retentionDays,
        time,
        seen,
        batch,
      ]);
      if (candidates.length === 0) break;
      batches++;
      purged += await retriedTx(db, (q) =>
        purgeMessages(
          q,
          candidates.map((c) => c.message_id),
          retentionDays,
        ),
      );
      const last = candidates.at(-1)!.created_at;
      const atLast = candidates.filter((c) => c.created_at === last).map((c) => c.message_id);
      seen = last === time ? [...seen, ...atLast] : atLast;
      time = last;
      if (candidates.length < batch) break;
    }
  }
  return purged;
}
