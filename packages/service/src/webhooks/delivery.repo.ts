/**
 * The worker's SQL: claim due deliveries with a lease (FOR UPDATE SKIP LOCKED, so several
 * workers on one PostgreSQL never take the same one) and record outcomes in batches.
 *
 * Ordering: a delivery is not claimed while an earlier one (lower seq) for the same URL and the
 * same parent is still pending or retrying — claimed ones stay `pending` until their outcome is
 * recorded, so a queued notice always reaches a URL before its final result.
 */
import type { Queryable } from "../db/client.js";

/** Extra lease beyond the attempt's timeout before another worker may take the delivery over. */
export const LEASE_MARGIN_SECONDS = 30;
/** Candidates looked at per claimed row, to step over rows still blocked by an in-flight one. */
const CANDIDATE_FACTOR = 4;

export interface ClaimedDelivery {
  id: string;
  message_id: string;
  merchant_id: string;
  url: string;
  tries: number;
  timeout_seconds: number;
  retry_schedule_seconds: number[];
  body: string;
  message_created_at: Date;
}

export interface DeliveryOutcome {
  id: string;
  tries: number;
  status: "succeeded" | "retrying" | "failed";
  nextAttemptAt: Date | null;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
}

export const deliveryRepo = {
  async claim(q: Queryable, limit: number): Promise<ClaimedDelivery[]> {
    // Two steps so the cost does not grow with the queue: the oldest due rows come straight off
    // the (next_attempt_at, seq) index, then the ordering rule and the row locks apply to those
    // only. Later deliveries behind a retrying one are pushed back with it (see record), so
    // blocked rows do not crowd the candidate window.
    return q.query<ClaimedDelivery>(
      `with candidates as (
         select c.id from webhook_deliveries c
          where c.status in ('pending', 'retrying') and c.next_attempt_at <= now()
            and (c.lease_until is null or c.lease_until < now())
          order by c.next_attempt_at, c.seq
          limit $2),
       due as (
         select c.id from webhook_deliveries c
          where c.id in (select id from candidates)
            and c.status in ('pending', 'retrying') and (c.lease_until is null or c.lease_until < now())
            and not exists (
              select 1 from webhook_deliveries e
               where e.url = c.url and e.parent_session_id = c.parent_session_id and e.seq < c.seq
                 and e.status in ('pending', 'retrying'))
          order by c.next_attempt_at, c.seq
          limit $1
          for update skip locked)
       update webhook_deliveries d
          set lease_until = now() + make_interval(secs => d.timeout_seconds + ${LEASE_MARGIN_SECONDS}),
              tries = d.tries + 1, updated_at = now()
         from due, webhook_messages m
        where d.id = due.id and m.id = d.message_id
       returning d.id, d.message_id, d.merchant_id, d.url, d.tries, d.timeout_seconds, d.retry_schedule_seconds,
                 m.body, m.created_at as message_created_at`,
      [limit, limit * CANDIDATE_FACTOR],
    );
  },

  /** Records outcomes; one whose lease was taken over by another worker (tries moved on) is dropped. */
  async record(q: Queryable, outcomes: DeliveryOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const col = <T>(f: (o: DeliveryOutcome) => T) => outcomes.map(f);
    await q.query(
      `with r as (
         select * from unnest($1::text[], $2::int[], $3::text[], $4::timestamptz[], $5::int[], $6::text[])
           as r(id, tries, status, next_at, code, err))
       update webhook_deliveries d
          set status = r.status, next_attempt_at = coalesce(r.next_at, d.next_attempt_at), lease_until = null,
              last_status_code = r.code, last_error = r.err, updated_at = now(),
              completed_at = case when r.status in ('succeeded', 'failed') then now() else null end
         from r where d.id = r.id and d.tries = r.tries`,
      [
        col((o) => o.id),
        col((o) => o.tries),
        col((o) => o.status),
        col((o) => o.nextAttemptAt?.toISOString() ?? null),
        col((o) => o.statusCode),
        col((o) => o.error),
      ],
    );
    if (outcomes.some((o) => o.status === "retrying"))
      // Later messages for the same URL and parent wait for this one (ordering): not due before it.
      await q.query(
        `with r as (select * from unnest($1::text[], $2::timestamptz[]) as r(id, next_at))
         update webhook_deliveries l set next_attempt_at = greatest(l.next_attempt_at, r.next_at)
           from r join webhook_deliveries d on d.id = r.id
          where l.url = d.url and l.parent_session_id = d.parent_session_id and l.seq > d.seq
            and l.status in ('pending', 'retrying')`,
        [
          outcomes.filter((o) => o.status === "retrying").map((o) => o.id),
          outcomes.filter((o) => o.status === "retrying").map((o) => o.nextAttemptAt!.toISOString()),
        ],
      );
    await q.query(
      `insert into webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, error, response_body)
       select * from unnest($1::text[], $2::timestamptz[], $3::int[], $4::int[], $5::text[], $6::text[])`,
      [
        col((o) => o.id),
        col((o) => o.attemptedAt.toISOString()),
        col((o) => o.statusCode),
        col((o) => o.latencyMs),
        col((o) => o.error),
        col((o) => o.responseBody),
      ],
    );
  },

  /** Seconds until the next retry is due (for the fallback timer), or undefined when none waits. */
  async nextDueInSeconds(q: Queryable): Promise<number | undefined> {
    const rows = await q.query<{ s: number | null }>(
      `select extract(epoch from (min(next_attempt_at) - now()))::float8 as s
         from webhook_deliveries where status in ('pending', 'retrying')`,
    );
    const s = rows[0]?.s;
    return s === null || s === undefined ? undefined : Number(s);
  },
};
