/** @jsxImportSource preact */
/**
 * The overview, the dashboard's landing page: for today, 7 or 30 days, payment volume and count
 * per day (a server-rendered SVG chart, no script, colours from the theme), the success rate,
 * refunds and captures, the net, and webhook health. Every figure is also text: the chart has a
 * title and a description, and a table of the same numbers follows it. The figures are those of
 * `GET /v1/reports/overview` (payments/overview.ts). English and Arabic; amounts, dates and
 * codes stay left to right.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  OVERVIEW_RANGES,
  type CurrencyFigures,
  type Overview,
  type OverviewRange,
  overview,
} from "../../payments/overview.js";
import type { VNode } from "../../pages/jsx.js";
import { type DashboardContext, queryOf, render, sessionOf } from "../context.js";
import { type DashboardLanguage, dashboardLanguage, format } from "../i18n.js";
import { Ltr, PAGE_PERMISSIONS } from "../ui.js";

/** This page's words. Counts are written "label: n", which reads right in both languages. */
const WORDS = {
  en: {
    title: "Overview",
    range_label: "Range",
    today: "Today",
    "7d": "Last 7 days",
    "30d": "Last 30 days",
    span: "{range}: {from} to {to}, UTC days. The same figures:",
    success_rate: "Success rate",
    success_note: "{ok} paid or authorized, {bad} declined or canceled",
    nothing_final: "No payment became final in this range.",
    all_payments: "All payments",
    volume: "Volume",
    payments_n: "Payments: {n}",
    refunds: "Refunds",
    captures: "Captures",
    done_n: "Done: {n}",
    net: "Net",
    net_note: "volume − refunds − voids",
    chart_title: "Daily payment volume in {currency}",
    chart_busiest: "Busiest day {day}: {volume} {currency}. Total {total} {currency} over {count} payments.",
    chart_empty: "No payments in {currency} in this range.",
    bar: "{day}: {volume} {currency}, {count} payments",
    chart_numbers: "The numbers of the chart",
    per_day: "Payments per day in {currency}",
    day: "Day (UTC)",
    day_short: "Day",
    payments: "Payments",
    webhook_health: "Webhook health",
    delivered: "Attempts delivered",
    delivered_note: "{ok} of {n} attempts got a 2xx answer",
    delivered_note_one: "{ok} of 1 attempt got a 2xx answer",
    latency: "Attempt latency, p95",
    latency_note: "95% of attempts took this long or less",
    failing_caption: "Destinations failing now",
    url: "URL",
    failed: "Failed",
    retrying: "Retrying",
    last_error: "Last error",
    failed_in_log: "Failed deliveries in the log",
    none_failing: "No destination is failing.",
  },
  ar: {
    title: "نظرة عامة",
    range_label: "الفترة",
    today: "اليوم",
    "7d": "آخر 7 أيام",
    "30d": "آخر 30 يومًا",
    span: "{range}: من {from} إلى {to}، بأيام التوقيت العالمي. الأرقام نفسها:",
    success_rate: "نسبة النجاح",
    success_note: "مدفوعة أو مفوَّضة: {ok}، مرفوضة أو ملغاة: {bad}",
    nothing_final: "لم تكتمل أي عملية دفع في هذه الفترة.",
    all_payments: "كل المدفوعات",
    volume: "الحجم",
    payments_n: "المدفوعات: {n}",
    refunds: "الاستردادات",
    captures: "التحصيلات",
    done_n: "المُنجَز: {n}",
    net: "الصافي",
    net_note: "الحجم − الاستردادات − الإلغاءات",
    chart_title: "حجم المدفوعات اليومي بعملة {currency}",
    chart_busiest:
      "أنشط يوم {day}: {volume} {currency}. الإجمالي {total} {currency}، وعدد المدفوعات: {count}.",
    chart_empty: "لا مدفوعات بعملة {currency} في هذه الفترة.",
    bar: "{day}: {volume} {currency}، عدد المدفوعات: {count}",
    chart_numbers: "أرقام الرسم البياني",
    per_day: "المدفوعات يوميًا بعملة {currency}",
    day: "اليوم (التوقيت العالمي)",
    day_short: "اليوم",
    payments: "المدفوعات",
    webhook_health: "صحة الويب هوك",
    delivered: "المحاولات المُسلَّمة",
    delivered_note: "تلقّت {ok} من أصل {n} محاولة ردًّا من فئة 2xx",
    delivered_note_one: "تلقّت {ok} من أصل محاولة واحدة ردًّا من فئة 2xx",
    latency: "زمن المحاولة، المئين 95",
    latency_note: "استغرقت 95% من المحاولات هذه المدة أو أقل",
    failing_caption: "وجهات تفشل الآن",
    url: "العنوان",
    failed: "فشلت",
    retrying: "قيد إعادة المحاولة",
    last_error: "آخر خطأ",
    failed_in_log: "عمليات التسليم الفاشلة في السجل",
    none_failing: "لا توجد وجهة تفشل.",
  },
} satisfies Record<DashboardLanguage, Record<string, string>>;

type Words = (typeof WORDS)["en"];

const percent = (rate: number | null) => (rate === null ? "—" : `${(rate * 100).toFixed(1)}%`);

/** Bars of the daily volume; heights relative to the busiest day. Mirrored by CSS where the page runs right to left. */
export function VolumeChart({ c, id, w }: { c: CurrencyFigures; id: string; w: Words }): VNode {
  const width = 640;
  const height = 160;
  const base = 160;
  const values = c.days.map((d) => Number(d.volume));
  const max = Math.max(...values, 0);
  const slot = width / c.days.length;
  const bar = Math.max(2, Math.min(40, slot * 0.7));
  const busiest = c.days[values.indexOf(max)];
  const currency = c.currency_code;
  const description =
    max > 0 && busiest
      ? format(w.chart_busiest, {
          day: busiest.day,
          volume: busiest.volume,
          currency,
          total: c.volume,
          count: c.count,
        })
      : format(w.chart_empty, { currency });
  return (
    <>
      <svg
        class="chart"
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-labelledby={`${id}-t ${id}-d`}
        preserveAspectRatio="none"
      >
        <title id={`${id}-t`}>{format(w.chart_title, { currency })}</title>
        <desc id={`${id}-d`}>{description}</desc>
        {c.days.map((d, i) => {
          const h = max > 0 ? Math.round((Number(d.volume) / max) * (base - 10)) : 0;
          const x = i * slot + (slot - bar) / 2;
          return (
            <rect class="bar" x={x.toFixed(1)} y={base - h} width={bar.toFixed(1)} height={h}>
              <title>{format(w.bar, { day: d.day, volume: d.volume, currency, count: d.count })}</title>
            </rect>
          );
        })}
      </svg>
      {/* Day labels are HTML under the chart: the SVG stretches to the width, text must not. */}
      <ol class={`chart-days n${c.days.length}`} aria-hidden="true">
        {c.days.map((d, i) => (
          <li>{c.days.length <= 7 || i % 5 === 0 || i === c.days.length - 1 ? d.day.slice(5) : ""}</li>
        ))}
      </ol>
    </>
  );
}

function Tile({ k, v, note }: { k: string; v: string; note: string }): VNode {
  return (
    <div class="tile">
      <p class="k">{k}</p>
      <p class="v">
        <Ltr>{v}</Ltr>
      </p>
      <p class="hint">{note}</p>
    </div>
  );
}

function CurrencySection({ c, i, w }: { c: CurrencyFigures; i: number; w: Words }): VNode {
  const cur = c.currency_code;
  return (
    <section aria-labelledby={`cur-${i}-h`}>
      <h2 id={`cur-${i}-h`}>{cur}</h2>
      <div class="tiles">
        <Tile k={w.volume} v={`${c.volume} ${cur}`} note={format(w.payments_n, { n: c.count })} />
        <Tile k={w.refunds} v={`${c.refunds} ${cur}`} note={format(w.done_n, { n: c.refund_count })} />
        <Tile k={w.captures} v={`${c.captures} ${cur}`} note={format(w.done_n, { n: c.capture_count })} />
        <Tile k={w.net} v={`${c.net} ${cur}`} note={w.net_note} />
      </div>
      <VolumeChart c={c} id={`chart-${i}`} w={w} />
      <details>
        <summary>{w.chart_numbers}</summary>
        <table class="stack">
          <caption>{format(w.per_day, { currency: cur })}</caption>
          <thead>
            <tr>
              <th scope="col">{w.day}</th>
              <th scope="col" class="num">
                {w.payments}
              </th>
              <th scope="col" class="num">
                {w.volume}
              </th>
            </tr>
          </thead>
          <tbody>
            {c.days.map((d) => (
              <tr>
                <td data-label={w.day_short}>
                  <Ltr>{d.day}</Ltr>
                </td>
                <td data-label={w.payments} class="num">
                  {d.count}
                </td>
                <td data-label={w.volume} class="num">
                  <Ltr>{d.volume}</Ltr>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </section>
  );
}

function WebhookSection({ o, w }: { o: Overview; w: Words }): VNode {
  const h = o.webhooks;
  return (
    <section aria-labelledby="wh-h">
      <h2 id="wh-h">{w.webhook_health}</h2>
      <div class="tiles">
        <Tile
          k={w.delivered}
          v={percent(h.success_rate)}
          note={format(h.attempts === 1 ? w.delivered_note_one : w.delivered_note, {
            ok: h.succeeded,
            n: h.attempts,
          })}
        />
        <Tile
          k={w.latency}
          v={h.p95_latency_ms === null ? "—" : `${h.p95_latency_ms} ms`}
          note={w.latency_note}
        />
      </div>
      {h.failing.length ? (
        <>
          <table class="stack">
            <caption>{w.failing_caption}</caption>
            <thead>
              <tr>
                <th scope="col">{w.url}</th>
                <th scope="col" class="num">
                  {w.failed}
                </th>
                <th scope="col" class="num">
                  {w.retrying}
                </th>
                <th scope="col">{w.last_error}</th>
              </tr>
            </thead>
            <tbody>
              {h.failing.map((f) => (
                <tr>
                  <td data-label={w.url}>
                    <code class="url">{f.url}</code>
                  </td>
                  <td data-label={w.failed} class="num">
                    {f.failed}
                  </td>
                  <td data-label={w.retrying} class="num">
                    {f.retrying}
                  </td>
                  <td data-label={w.last_error}>
                    <span dir="ltr">{f.last_error ?? "—"}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p>
            <a href="/dashboard/deliveries?status=failed">{w.failed_in_log}</a>
          </p>
        </>
      ) : (
        <p>{w.none_failing}</p>
      )}
    </section>
  );
}

async function overviewPage(ctx: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  const session = sessionOf(request);
  const w = WORDS[dashboardLanguage(request)];
  const asked = queryOf(request).range;
  const range: OverviewRange = (OVERVIEW_RANGES as readonly string[]).includes(asked ?? "")
    ? (asked as OverviewRange)
    : "7d";
  const o = await overview(ctx.services().db, session.merchantId, range, ctx.now());
  const [before, after] = w.span.split("{from}");
  const to = new Date(new Date(o.until).getTime() - 1).toISOString().slice(0, 10);
  return render(
    ctx,
    request,
    reply,
    { title: w.title, current: "overview", translated: true },
    <>
      <nav aria-label={w.range_label}>
        <ul class="ranges">
          {OVERVIEW_RANGES.map((r) => (
            <li>
              <a href={`/dashboard/overview?range=${r}`} aria-current={r === range ? "page" : undefined}>
                {w[r]}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <p class="hint">
        {format(before ?? "", { range: w[range] })}
        <Ltr>{o.since.slice(0, 10)}</Ltr>
        {(after ?? "").split("{to}")[0]}
        <Ltr>{to}</Ltr>
        {(after ?? "").split("{to}")[1]} <code dir="ltr">{`GET /v1/reports/overview?range=${range}`}</code>.
      </p>
      <div class="tiles">
        <Tile
          k={w.success_rate}
          v={percent(o.success_rate)}
          note={format(w.success_note, { ok: o.successful, bad: o.unsuccessful })}
        />
      </div>
      {o.currencies.length ? (
        o.currencies.map((c, i) => <CurrencySection c={c} i={i} w={w} />)
      ) : (
        <p>
          {w.nothing_final} <a href="/dashboard/payments">{w.all_payments}</a>
        </p>
      )}
      <WebhookSection o={o} w={w} />
    </>,
  );
}

export function overviewPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.overview } };
  scope.get("/overview", { config }, async (request, reply) => overviewPage(ctx, request, reply));
}
