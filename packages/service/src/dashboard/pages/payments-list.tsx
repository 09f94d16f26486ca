/** @jsxImportSource preact */
/**
 * The payments list: search, filters (state, date range, gateway), the count and totals of what
 * matches, pagination, and the matching payments as CSV (streamed, any size). English and Arabic.
 */
import { Readable } from "node:stream";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { merchantsRepo } from "../../merchants/merchants.repo.js";
import type { PaymentsService } from "../../payments/payments.service.js";
import { type DashboardContext, DashboardError, queryOf, render, sessionOf } from "../context.js";
import { dayField } from "../date-filter.js";
import { query } from "../html.js";
import { type DashboardLanguage, dashboardLanguage, format, isolate, messages } from "../i18n.js";
import { displayState, label } from "../labels.js";
import { Badge, can, Field, PAGE_PERMISSIONS, SelectField, Time } from "../ui.js";

const WORDS = {
  en: {
    title: "Payments",
    create: "Create a payment request",
    filters: "Search and filters",
    filters_on: "Search and filters (on)",
    filters_label: "Payments",
    search: "Search",
    search_hint: "session_id, order_no or customer",
    state: "State",
    any_state: "Any state",
    gateway: "Gateway",
    any_gateway: "Any gateway",
    from: "From",
    to: "To",
    filter: "Filter",
    count: "{n} payments",
    count_one: "1 payment",
    totals: ": ",
    total: "{total} ({paid} paid or authorized)",
    separator: "; ",
    export: "Export these as CSV",
    caption: "Payments, newest first (page {page})",
    amount: "Amount",
    customer: "Customer",
    order: "Order",
    created: "Created",
    none: "No payments match these filters.",
    pages: "Pages",
    previous: "Previous page",
    next: "Next page",
  },
  ar: {
    title: "المدفوعات",
    create: "إنشاء طلب دفع",
    filters: "البحث والتصفية",
    filters_on: "البحث والتصفية (مفعّلة)",
    filters_label: "المدفوعات",
    search: "بحث",
    search_hint: "session_id أو order_no أو العميل",
    state: "الحالة",
    any_state: "أي حالة",
    gateway: "بوابة الدفع",
    any_gateway: "أي بوابة",
    from: "من",
    to: "إلى",
    filter: "تصفية",
    count: "عدد المدفوعات: {n}",
    count_one: "عدد المدفوعات: 1",
    totals: "، الإجمالي ",
    total: "{total} (مدفوعة أو مفوَّضة: {paid})",
    separator: "؛ ",
    export: "تصدير هذه القائمة بصيغة CSV",
    caption: "المدفوعات، الأحدث أولاً (الصفحة {page})",
    amount: "المبلغ",
    customer: "العميل",
    order: "الطلب",
    created: "تاريخ الإنشاء",
    none: "لا توجد مدفوعات تطابق هذه التصفية.",
    pages: "الصفحات",
    previous: "الصفحة السابقة",
    next: "الصفحة التالية",
  },
} satisfies Record<DashboardLanguage, Record<string, string>>;

export const PAGE_SIZE = 25;
const STATES = ["created", "pending", "attempted", "authorized", "paid", "failed", "canceled", "expired"];
/** What the page shows while a date filter is refused: nothing is read with half a filter. */
const NOTHING: Awaited<ReturnType<PaymentsService["list"]>> = { items: [], hasMore: false };

/** What a listed payment is now (partially refunded, voided…), as its own page says it. */
function nowState(p: (typeof NOTHING)["items"][number]): string {
  const t = p.totals;
  return displayState({
    state: p.state,
    captured_amount: t.captured,
    refunded_amount: t.refunded,
    voided_amount: t.voided,
    refundable_amount: t.refundable,
    capturable_amount: t.capturable,
  });
}
const NO_SUMMARY: Awaited<ReturnType<PaymentsService["summary"]>> = { count: 0, currencies: [] };

/**
 * The list's filter from the query string (what the page and the export share); `to` includes
 * its day. A date no filter can take (year 10000, 2026-02-30) is an error, not ignored.
 */
function filterOf(request: FastifyRequest) {
  const q = queryOf(request);
  const lang = dashboardLanguage(request);
  const from = dayField(q.from, lang);
  const to = dayField(q.to, lang);
  return {
    q,
    errors: from.error || to.error ? { from: from.error, to: to.error } : undefined,
    filter: {
      search: q.q,
      state: STATES.includes(q.state ?? "") ? q.state : undefined,
      pgCode: q.pg_code || undefined,
      from: from.start,
      to: to.end,
    },
  };
}

export function paymentsListPages(scope: FastifyInstance, ctx: DashboardContext): void {
  // Every matching payment as CSV, read and sent 500 at a time: memory stays flat at any size.
  scope.get(
    "/payments/export.csv",
    { config: { dashboard: { permission: PAGE_PERMISSIONS.payments } } },
    async (request, reply) => {
      const session = sessionOf(request);
      const { filter, errors } = filterOf(request);
      if (errors) {
        const lang = dashboardLanguage(request);
        const w = WORDS[lang];
        const text = errors.from ? `${w.from}: ${errors.from}` : `${w.to}: ${errors.to ?? ""}`;
        throw new DashboardError(422, messages(lang).refused, text, true);
      }
      const name = `payments-${ctx.now().toISOString().slice(0, 10)}.csv`;
      return reply
        .type("text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="${name}"`)
        .header("cache-control", "no-store")
        .send(Readable.from(ctx.services().payments.csv(session.merchantId, filter)));
    },
  );
  scope.get(
    "/payments",
    { config: { dashboard: { permission: PAGE_PERMISSIONS.payments } } },
    async (request, reply) => {
      const session = sessionOf(request);
      const { q, filter, errors } = filterOf(request);
      const page = Math.max(1, Math.min(10_000, Number.parseInt(q.page ?? "1", 10) || 1));
      const { payments, db } = ctx.services();
      const [result, gateways, summary] = await Promise.all([
        errors
          ? NOTHING
          : payments.list(session.merchantId, filter, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
        merchantsRepo.listGateways(db, session.merchantId),
        errors ? NO_SUMMARY : payments.summary(session.merchantId, filter),
      ]);
      const lang = dashboardLanguage(request);
      const w = WORDS[lang];
      const kept = { q: q.q, state: filter.state, pg_code: filter.pgCode, from: q.from, to: q.to };
      const filtering = Boolean(q.q || filter.state || filter.pgCode || q.from || q.to);
      return render(
        ctx,
        request,
        reply,
        { title: w.title, current: "payments", translated: true },
        <>
          {can(session.user, PAGE_PERMISSIONS.paymentRequest) && (
            <p>
              <a href="/dashboard/payments/new">{w.create}</a>
            </p>
          )}
          <details class="filters-toggle" open={filtering}>
            <summary>{filtering ? w.filters_on : w.filters}</summary>
            <form
              method="get"
              action="/dashboard/payments"
              class="filters"
              role="search"
              aria-label={w.filters_label}
            >
              <Field
                name="q"
                label={w.search}
                type="search"
                value={q.q}
                hint={w.search_hint}
                input={{ class: "wide" }}
              />
              <SelectField
                name="state"
                label={w.state}
                value={filter.state}
                options={[
                  { value: "", text: w.any_state },
                  ...STATES.map((s) => ({ value: s, text: label(s, lang) })),
                ]}
              />
              <SelectField
                name="pg_code"
                label={w.gateway}
                value={filter.pgCode}
                options={[
                  { value: "", text: w.any_gateway },
                  ...gateways.map((g) => ({ value: g.pg_code, text: `${g.name} (${g.pg_code})` })),
                ]}
              />
              <Field name="from" label={w.from} type="date" value={q.from} error={errors?.from} />
              <Field name="to" label={w.to} type="date" value={q.to} error={errors?.to} />
              <div class="field">
                <button type="submit">{w.filter}</button>
              </div>
            </form>
          </details>
          <p class="lead" role="status">
            <strong>{summary.count === 1 ? w.count_one : format(w.count, { n: summary.count })}</strong>
            {summary.currencies.length > 0 && w.totals}
            {summary.currencies.map((c, i) => (
              <>
                {i > 0 && w.separator}
                {/* Amounts isolated left to right, the words around them in the page's direction. */}
                {format(w.total, {
                  total: isolate(lang, `${c.total} ${c.currency_code}`),
                  paid: isolate(lang, c.paid_or_authorized),
                })}
              </>
            ))}
            .{" "}
            <a href={`/dashboard/payments/export.csv${query(kept)}`} download>
              {w.export}
            </a>
          </p>
          {result.items.length ? (
            <table class="stack">
              <caption>{format(w.caption, { page })}</caption>
              <thead>
                <tr>
                  <th scope="col" class="num">
                    {w.amount}
                  </th>
                  <th scope="col">{w.state}</th>
                  <th scope="col">{w.customer}</th>
                  <th scope="col">{w.order}</th>
                  <th scope="col">{w.gateway}</th>
                  <th scope="col">{w.created}</th>
                </tr>
              </thead>
              <tbody>
                {result.items.map((p) => (
                  <tr>
                    <td data-label={w.amount} class="num">
                      <a href={`/dashboard/payments/${p.session_id}`}>
                        <bdi dir="ltr">{`${p.amount} ${p.currency_code}`}</bdi>
                      </a>
                    </td>
                    <td data-label={w.state}>
                      <Badge state={nowState(p)} text={label(nowState(p), lang)} />
                    </td>
                    <td data-label={w.customer}>
                      <bdi>{p.customer ?? "—"}</bdi>
                    </td>
                    <td data-label={w.order}>
                      <bdi>{p.order_no ?? "—"}</bdi>
                    </td>
                    <td data-label={w.gateway}>
                      <bdi>{p.pg_code ?? "—"}</bdi>
                    </td>
                    <td data-label={w.created}>
                      <Time value={p.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p>{w.none}</p>
          )}
          <nav class="pager" aria-label={w.pages}>
            {page > 1 && (
              <a href={`/dashboard/payments${query({ ...kept, page: page - 1 })}`} rel="prev">
                {w.previous}
              </a>
            )}
            {result.hasMore && (
              <a href={`/dashboard/payments${query({ ...kept, page: page + 1 })}`} rel="next">
                {w.next}
              </a>
            )}
          </nav>
        </>,
        errors ? 422 : 200,
      );
    },
  );
}
