/**
 * Webhook health of one merchant over a time range, for the overview: how many attempts
 * succeeded, the 95th percentile of attempt latency, and the destinations failing now (a delivery
 * to them is retrying or failed in the range) with their last error.
 */
import type { Queryable } from "../db/client.js";
import { MERCHANT_MESSAGES_IN_RANGE } from "./messages.repo.js";

export interface WebhookHealth {
  attempts: number;
  succeeded: number;
  /** succeeded ÷ attempts, 0–1; null without attempts. */
  success_rate: number | null;
  /** Milliseconds; null without attempts. */
  p95_latency_ms: number | null;
  failing: { url: string; failed: number; retrying: number; last_error: string | null; last_at: string }[];
}

export async function webhookHealth(
  q: Queryable,
  merchantId: string,
  since: Date,
  until: Date,
): Promise<WebhookHealth> {
  // Attempts are found through the merchant's messages of the range (MERCHANT_MESSAGES_IN_RANGE).
  const [totals] = await q.query<{ attempts: number; succeeded: number; p95: number | null }>(
    `with ranged as (
       select d.id, d.last_attempt_at, d.last_attempt_status_code, d.last_attempt_latency_ms
         from webhook_deliveries d where d.message_id in (${MERCHANT_MESSAGES_IN_RANGE}))
     select count(*)::int4 as attempts,
            count(*) filter (where a.status_code between 200 and 299)::int4 as succeeded,
            percentile_disc(0.95) within group (order by a.latency_ms) as p95
       from (select d.last_attempt_status_code as status_code, d.last_attempt_latency_ms as latency_ms
               from ranged d where d.last_attempt_at is not null
             union all
             select w.status_code, w.latency_ms from webhook_attempts w
              where w.delivery_id in (select id from ranged)) a`,
    [merchantId, since, until],
  );
  const failing = await q.query<{
    url: string;
    failed: number;
    retrying: number;
    last_error: string | null;
    last_at: Date;
  }>(
    `select d.url, count(*) filter (where d.status = 'failed')::int4 as failed,
            count(*) filter (where d.status = 'retrying')::int4 as retrying,
            (array_agg(d.last_error order by coalesce(d.updated_at, d.created_at) desc))[1] as last_error,
            max(coalesce(d.updated_at, d.created_at)) as last_at
       from webhook_deliveries d
      where d.message_id in (${MERCHANT_MESSAGES_IN_RANGE}) and d.status in ('failed', 'retrying')
      group by d.url order by max(coalesce(d.updated_at, d.created_at)) desc limit 10`,
    [merchantId, since, until],
  );
  const attempts = Number(totals?.attempts ?? 0);
  const succeeded = Number(totals?.succeeded ?? 0);
  return {
    attempts,
    succeeded,
    success_rate: attempts > 0 ? succeeded / attempts : null,
    p95_latency_ms: totals?.p95 === null || totals?.p95 === undefined ? null : Number(totals.p95),
    failing: failing.map((f) => ({ ...f, last_at: new Date(f.last_at).toISOString() })),
  };
}
