/**
 * The overview, the dashboard's landing page: for today, 7 or 30 days, payment volume and count
 * per day (a server-rendered SVG chart, no script, colours from the theme), the success rate,
 * refunds and captures, the net, and webhook health. Every figure is also text: the chart has a
 * title and a description, and a table of the same numbers follows it. The figures are those of
 * `GET /v1/reports/overview` (payments/overview.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  OVERVIEW_RANGES,
  type CurrencyFigures,
  type Overview,
  type OverviewRange,
  overview,
} from "../../payments/overview.js";
import { type DashboardContext, queryOf, render, sessionOf } from "../context.js";
import { esc, PAGE_PERMISSIONS } from "../html.js";

const RANGE_TEXT: Record<OverviewRange, string> = {
  today: "Today",
  "7d": "Last 7 days",
  "30d": "Last 30 days",
};

const percent = (rate: number | null) => (rate === null ? "—" : `${(rate * 100).toFixed(1)}%`);

/** Bars of the daily volume; heights relative to the busiest day. Mirrored by CSS in right-to-left pages. */
export function volumeChart(c: CurrencyFigures, id: string): string {
  const width = 640;
  const height = 160;
  const base = 160;
  const values = c.days.map((d) => Number(d.volume));
  const max = Math.max(...values, 0);
  const slot = width / c.days.length;
  const bar = Math.max(2, Math.min(40, slot * 0.7));
  const busiest = c.days[values.indexOf(max)];
  const bars = c.days
    .map((d, i) => {
      const h = max > 0 ? Math.round((Number(d.volume) / max) * (base - 10)) : 0;
      const x = i * slot + (slot - bar) / 2;
      return `<rect class="bar" x="${x.toFixed(1)}" y="${base - h}" width="${bar.toFixed(1)}" height="${h}"><title>${esc(d.day)}: ${esc(d.volume)} ${esc(c.currency_code)}, ${d.count} payments</title></rect>`;
    })
    .join("");
  // Day labels are HTML under the chart: the SVG stretches to the width, text must not.
  const labels = c.days
    .map(
      (d, i) =>
        `<li>${c.days.length <= 7 || i % 5 === 0 || i === c.days.length - 1 ? esc(d.day.slice(5)) : ""}</li>`,
    )
    .join("");
  const description =
    max > 0
      ? `Busiest day ${busiest?.day}: ${busiest?.volume} ${c.currency_code}. Total ${c.volume} ${c.currency_code} over ${c.count} payments.`
      : `No payments in ${c.currency_code} in this range.`;
  return `<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-t ${id}-d" preserveAspectRatio="none"><title id="${id}-t">Daily payment volume in ${esc(c.currency_code)}</title><desc id="${id}-d">${esc(description)}</desc>${bars}</svg><ol class="chart-days n${c.days.length}" aria-hidden="true">${labels}</ol>`;
}

function currencySection(c: CurrencyFigures, i: number): string {
  const tiles: [string, string, string][] = [
    ["Volume", `${c.volume} ${c.currency_code}`, `${c.count} ${c.count === 1 ? "payment" : "payments"}`],
    ["Refunds", `${c.refunds} ${c.currency_code}`, `${c.refund_count} done`],
    ["Captures", `${c.captures} ${c.currency_code}`, `${c.capture_count} done`],
    ["Net", `${c.net} ${c.currency_code}`, "volume − refunds − voids"],
  ];
  const rows = c.days
    .map(
      (d) =>
        `<tr><td data-label="Day">${esc(d.day)}</td><td data-label="Payments" class="num">${d.count}</td><td data-label="Volume" class="num">${esc(d.volume)}</td></tr>`,
    )
    .join("");
  return `<section aria-labelledby="cur-${i}-h"><h2 id="cur-${i}-h">${esc(c.currency_code)}</h2><div class="tiles">${tiles
    .map(
      ([k, v, note]) =>
        `<div class="tile"><p class="k">${k}</p><p class="v">${esc(v)}</p><p class="hint">${esc(note)}</p></div>`,
    )
    .join(
      "",
    )}</div>${volumeChart(c, `chart-${i}`)}<details><summary>The numbers of the chart</summary><table class="stack"><caption>Payments per day in ${esc(c.currency_code)}</caption><thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="num">Payments</th><th scope="col" class="num">Volume</th></tr></thead><tbody>${rows}</tbody></table></details></section>`;
}

function webhookSection(o: Overview): string {
  const w = o.webhooks;
  const failing = w.failing.length
    ? `<table class="stack"><caption>Destinations failing now</caption><thead><tr><th scope="col">URL</th><th scope="col" class="num">Failed</th><th scope="col" class="num">Retrying</th><th scope="col">Last error</th></tr></thead><tbody>${w.failing
        .map(
          (f) =>
            `<tr><td data-label="URL"><code class="url">${esc(f.url)}</code></td><td data-label="Failed" class="num">${f.failed}</td><td data-label="Retrying" class="num">${f.retrying}</td><td data-label="Last error">${esc(f.last_error ?? "—")}</td></tr>`,
        )
        .join(
          "",
        )}</tbody></table><p><a href="/dashboard/deliveries?status=failed">Failed deliveries in the log</a></p>`
    : `<p>No destination is failing.</p>`;
  return `<section aria-labelledby="wh-h"><h2 id="wh-h">Webhook health</h2><div class="tiles"><div class="tile"><p class="k">Attempts delivered</p><p class="v">${percent(w.success_rate)}</p><p class="hint">${w.succeeded} of ${w.attempts} ${w.attempts === 1 ? "attempt" : "attempts"} got a 2xx answer</p></div><div class="tile"><p class="k">Attempt latency, p95</p><p class="v">${w.p95_latency_ms === null ? "—" : `${w.p95_latency_ms} ms`}</p><p class="hint">95% of attempts took this long or less</p></div></div>${failing}</section>`;
}

async function overviewPage(ctx: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  const session = sessionOf(request);
  const asked = queryOf(request).range;
  const range: OverviewRange = (OVERVIEW_RANGES as readonly string[]).includes(asked ?? "")
    ? (asked as OverviewRange)
    : "7d";
  const o = await overview(ctx.services().db, session.merchantId, range, ctx.now());
  const nav = `<nav aria-label="Range"><ul class="ranges">${OVERVIEW_RANGES.map(
    (r) =>
      `<li><a href="/dashboard/overview?range=${r}"${r === range ? ' aria-current="page"' : ""}>${RANGE_TEXT[r]}</a></li>`,
  ).join("")}</ul></nav>`;
  const success = `<div class="tiles"><div class="tile"><p class="k">Success rate</p><p class="v">${percent(o.success_rate)}</p><p class="hint">${o.successful} paid or authorized, ${o.unsuccessful} declined or canceled</p></div></div>`;
  const money = o.currencies.length
    ? o.currencies.map(currencySection).join("")
    : `<p>No payment became final in this range. <a href="/dashboard/payments">All payments</a></p>`;
  return render(
    ctx,
    request,
    reply,
    { title: "Overview", current: "overview" },
    `${nav}<p class="hint">${esc(RANGE_TEXT[range])}: ${esc(o.since.slice(0, 10))} to ${esc(new Date(new Date(o.until).getTime() - 1).toISOString().slice(0, 10))}, UTC days. The same figures: <code>GET /v1/reports/overview?range=${range}</code>.</p>${success}${money}${webhookSection(o)}`,
  );
}

export function overviewPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.overview } };
  scope.get("/overview", { config }, async (request, reply) => overviewPage(ctx, request, reply));
}
