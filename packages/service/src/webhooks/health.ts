/**
 * Webhook health of one merchant over a time range, for the overview: how many attempts
 * succeeded, the 95th percentile of attempt latency, and the destinations failing now (a delivery
 * to them is retrying or failed in the range) with their last error.
 */
import type { Queryable } from "../db/client.js";

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
  // Attempts are found through the merchant's messages of the range (indexed by merchant and time).
  const [totals] = await q.query<{ attempts: number; succeeded: number; p95: number | null }>(
    `select count(*)::int4 as attempts,
            count(*) filter (where a.status_code between 200 and 299)::int4 as succeeded,
            percentile_disc(0.95) within group (order by a.latency_ms) as p95
       from webhook_messages m
       join webhook_deliveries d on d.message_id = m.id
       join webhook_delivery_attempts a on a.delivery_id = d.id
      where m.merchant_id = $1 and m.created_at >= $2 and m.created_at < $3`,
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
            (array_agg(d.last_error order by d.updated_at desc))[1] as last_error, max(d.updated_at) as last_at
       from webhook_messages m join webhook_deliveries d on d.message_id = m.id
      where m.merchant_id = $1 and m.created_at >= $2 and m.created_at < $3 and d.status in ('failed', 'retrying')
      group by d.url order by max(d.updated_at) desc limit 10`,
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
