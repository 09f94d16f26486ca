/**
 * The merchant's overview for a range of UTC days (today, the last 7, the last 30): payment volume
 * and count per day, the success rate, refunds and captures, the net, and webhook health. The
 * dashboard's overview page and `GET /v1/reports/overview` show the same object.
 *
 * Definitions (docs/dashboard.md "Overview"):
 * - a payment counts on the day it became final (`completed_at`);
 * - volume: the amounts of payments paid or authorized; count: how many;
 * - success rate: paid and authorized ÷ (those + declined + canceled), expired sessions (never
 *   attempted) left out;
 * - refunds, captures, voids: operations done (final) in the range, on the day they were done;
 * - net: volume − refunds − voids.
 * Money is per currency, never summed across currencies.
 */
import { formatAmount } from "@svc/protocol";
import type { Queryable } from "../db/client.js";
import { type WebhookHealth, webhookHealth } from "../webhooks/health.js";

export const OVERVIEW_RANGES = ["today", "7d", "30d"] as const;
export type OverviewRange = (typeof OVERVIEW_RANGES)[number];

export interface CurrencyFigures {
  currency_code: string;
  volume: string;
  count: number;
  refunds: string;
  refund_count: number;
  captures: string;
  capture_count: number;
  voids: string;
  net: string;
  days: { day: string; volume: string; count: number }[];
}

export interface Overview {
  range: OverviewRange;
  since: string;
  until: string;
  successful: number;
  unsuccessful: number;
  /** 0–1; null when no payment was attempted in the range. */
  success_rate: number | null;
  currencies: CurrencyFigures[];
  webhooks: WebhookHealth;
}

/** The UTC days of a range ending today, oldest first, and its [since, until) bounds. */
export function rangeOf(range: OverviewRange, now: Date): { since: Date; until: Date; days: string[] } {
  const count = range === "today" ? 1 : range === "7d" ? 7 : 30;
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const since = new Date(today - (count - 1) * 86_400_000);
  const until = new Date(today + 86_400_000);
  const days = Array.from({ length: count }, (_, i) =>
    new Date(since.getTime() + i * 86_400_000).toISOString().slice(0, 10),
  );
  return { since, until, days };
}

export async function overview(
  q: Queryable,
  merchantId: string,
  range: OverviewRange,
  now: Date,
): Promise<Overview> {
  const { since, until, days } = rangeOf(range, now);
  const [payments, operations, webhooks] = await Promise.all([
    q.query<{ day: string; currency_code: string; state: string; n: number; sum: number }>(
      `select to_char(completed_at at time zone 'UTC', 'YYYY-MM-DD') as day, currency_code, state,
              count(*)::int4 as n, sum(amount_minor)::int8 as sum
         from transactions
        where merchant_id = $1 and completed_at >= $2 and completed_at < $3
          and state in ('paid', 'authorized', 'failed', 'canceled')
        group by 1, 2, 3`,
      [merchantId, since, until],
    ),
    q.query<{ currency_code: string; operation: string; n: number; sum: number }>(
      `select currency_code, operation, count(*)::int4 as n, sum(amount_minor)::int8 as sum
         from operations
        where merchant_id = $1 and coalesce(operated_at, created_at) >= $2 and coalesce(operated_at, created_at) < $3
          and state in ('refunded', 'paid', 'voided')
        group by 1, 2`,
      [merchantId, since, until],
    ),
    webhookHealth(q, merchantId, since, until),
  ]);
  let successful = 0;
  let unsuccessful = 0;
  const byCurrency = new Map<
    string,
    { volume: number; count: number; days: Map<string, { volume: number; count: number }> }
  >();
  const money = new Map<
    string,
    { refunds: number; refundCount: number; captures: number; captureCount: number; voids: number }
  >();
  const currency = (code: string) => {
    let c = byCurrency.get(code);
    if (!c) byCurrency.set(code, (c = { volume: 0, count: 0, days: new Map() }));
    return c;
  };
  for (const row of payments) {
    const n = Number(row.n);
    if (row.state === "paid" || row.state === "authorized") {
      successful += n;
      const c = currency(row.currency_code);
      c.volume += Number(row.sum);
      c.count += n;
      const d = c.days.get(row.day) ?? { volume: 0, count: 0 };
      d.volume += Number(row.sum);
      d.count += n;
      c.days.set(row.day, d);
    } else unsuccessful += n;
  }
  for (const row of operations) {
    currency(row.currency_code);
    const m = money.get(row.currency_code) ?? {
      refunds: 0,
      refundCount: 0,
      captures: 0,
      captureCount: 0,
      voids: 0,
    };
    if (row.operation === "refund") {
      m.refunds += Number(row.sum);
      m.refundCount += Number(row.n);
    } else if (row.operation === "capture") {
      m.captures += Number(row.sum);
      m.captureCount += Number(row.n);
    } else m.voids += Number(row.sum);
    money.set(row.currency_code, m);
  }
  const currencies = [...byCurrency.entries()]
    .map(([code, c]): CurrencyFigures => {
      const m = money.get(code) ?? { refunds: 0, refundCount: 0, captures: 0, captureCount: 0, voids: 0 };
      const fmt = (minor: number) => formatAmount(minor, code);
      return {
        currency_code: code,
        volume: fmt(c.volume),
        count: c.count,
        refunds: fmt(m.refunds),
        refund_count: m.refundCount,
        captures: fmt(m.captures),
        capture_count: m.captureCount,
        voids: fmt(m.voids),
        net: fmt(c.volume - m.refunds - m.voids),
        days: days.map((day) => {
          const d = c.days.get(day);
          return { day, volume: fmt(d?.volume ?? 0), count: d?.count ?? 0 };
        }),
      };
    })
    // The busiest currency first.
    .sort((a, b) => b.count - a.count || a.currency_code.localeCompare(b.currency_code));
  return {
    range,
    since: since.toISOString(),
    until: until.toISOString(),
    successful,
    unsuccessful,
    success_rate: successful + unsuccessful > 0 ? successful / (successful + unsuccessful) : null,
    currencies,
    webhooks,
  };
}
