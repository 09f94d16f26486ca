/**
 * The payments list: search, filters (state, date range, gateway), the count and totals of what
 * matches, pagination, and the matching payments as CSV (streamed, any size).
 */
import { Readable } from "node:stream";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { merchantsRepo } from "../../merchants/merchants.repo.js";
import { type DashboardContext, queryOf, render, sessionOf } from "../context.js";
import { badge, can, esc, field, PAGE_PERMISSIONS, query, selectField, time } from "../html.js";
import { label } from "../labels.js";

export const PAGE_SIZE = 25;
const STATES = ["created", "pending", "attempted", "authorized", "paid", "failed", "canceled", "expired"];
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function day(value: string | undefined, plusDays = 0): Date | undefined {
  if (!value || !DATE.test(value)) return undefined;
  const d = new Date(`${value}T00:00:00Z`);
  // Years outside 1970–9999 are no filter any store can take: ignored like a malformed date.
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1970) return undefined;
  return new Date(d.getTime() + plusDays * 86_400_000);
}

/** The list's filter from the query string (what the page and the export share). */
function filterOf(request: FastifyRequest) {
  const q = queryOf(request);
  return {
    q,
    filter: {
      search: q.q,
      state: STATES.includes(q.state ?? "") ? q.state : undefined,
      pgCode: q.pg_code || undefined,
      from: day(q.from),
      to: day(q.to, 1),
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
      const { filter } = filterOf(request);
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
      const { q, filter } = filterOf(request);
      const page = Math.max(1, Math.min(10_000, Number.parseInt(q.page ?? "1", 10) || 1));
      const { payments, db } = ctx.services();
      const [result, gateways, summary] = await Promise.all([
        payments.list(session.merchantId, filter, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
        merchantsRepo.listGateways(db, session.merchantId),
        payments.summary(session.merchantId, filter),
      ]);
      const kept = { q: q.q, state: filter.state, pg_code: filter.pgCode, from: q.from, to: q.to };
      const filtering = Boolean(q.q || filter.state || filter.pgCode || q.from || q.to);
      const filters = `<details class="filters-toggle"${filtering ? " open" : ""}><summary>Search and filters${filtering ? " (on)" : ""}</summary><form method="get" action="/dashboard/payments" class="filters" role="search" aria-label="Payments">
${field({ name: "q", label: "Search", type: "search", value: q.q, hint: "session_id, order_no or customer", input: { class: "wide" } })}
${selectField({ name: "state", label: "State", value: filter.state, options: [{ value: "", text: "Any state" }, ...STATES.map((s) => ({ value: s, text: label(s) }))] })}
${selectField({ name: "pg_code", label: "Gateway", value: filter.pgCode, options: [{ value: "", text: "Any gateway" }, ...gateways.map((g) => ({ value: g.pg_code, text: `${g.name} (${g.pg_code})` }))] })}
${field({ name: "from", label: "From", type: "date", value: q.from })}
${field({ name: "to", label: "To", type: "date", value: q.to })}
<div class="field"><button type="submit">Filter</button></div></form></details>`;
      const rows = result.items
        .map((p) => {
          const state = p.state;
          return `<tr><td data-label="Amount" class="num"><a href="/dashboard/payments/${esc(p.session_id)}">${esc(p.amount)} ${esc(p.currency_code)}</a></td>
<td data-label="State">${badge(state, label(state))}</td><td data-label="Customer">${esc(p.customer ?? "—")}</td><td data-label="Order">${esc(p.order_no ?? "—")}</td><td data-label="Gateway">${esc(p.pg_code ?? "—")}</td><td data-label="Created">${time(p.created_at)}</td></tr>`;
        })
        .join("");
      const totals = summary.currencies
        .map(
          (c) => `${esc(c.total)} ${esc(c.currency_code)} (${esc(c.paid_or_authorized)} paid or authorized)`,
        )
        .join("; ");
      const counted = `<p class="lead" role="status"><strong>${summary.count} ${summary.count === 1 ? "payment" : "payments"}</strong>${totals ? `: ${totals}` : ""}. <a href="/dashboard/payments/export.csv${query(kept)}" download>Export these as CSV</a></p>`;
      const table = result.items.length
        ? `<table class="stack"><caption>Payments, newest first (page ${page})</caption><thead><tr><th scope="col" class="num">Amount</th><th scope="col">State</th><th scope="col">Customer</th><th scope="col">Order</th><th scope="col">Gateway</th><th scope="col">Created</th></tr></thead><tbody>${rows}</tbody></table>`
        : `<p>No payments match these filters.</p>`;
      const pager = `<nav class="pager" aria-label="Pages">${page > 1 ? `<a href="/dashboard/payments${query({ ...kept, page: page - 1 })}" rel="prev">Previous page</a>` : ""}${result.hasMore ? `<a href="/dashboard/payments${query({ ...kept, page: page + 1 })}" rel="next">Next page</a>` : ""}</nav>`;
      const create = can(session.user, PAGE_PERMISSIONS.paymentRequest)
        ? `<p><a href="/dashboard/payments/new">Create a payment request</a></p>`
        : "";
      return render(
        ctx,
        request,
        reply,
        { title: "Payments", current: "payments" },
        `${create}${filters}${counted}${table}${pager}`,
      );
    },
  );
}
