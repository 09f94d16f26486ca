/**
 * One payment: its details, derived totals and child transactions, its checkout link while the
 * customer can still pay, and the operation forms the user is allowed to use.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type DashboardContext, render, sessionOf } from "../context.js";
import { badge, esc, PAGE_PERMISSIONS, time } from "../html.js";

export type PaymentView = Awaited<ReturnType<ReturnType<DashboardContext["services"]>["payments"]["view"]>>;

const SESSION_ID = /^sess_[a-z2-7]{1,40}$/;

/** The child transactions table; `data-pending` marks it for refreshing while one is queued. */
export function childrenFragment(p: PaymentView): string {
  if (p.transactions.length === 0) return `<p>No refunds, captures or voids yet.</p>`;
  const pending = p.transactions.some((c) => /_(queued|pending)$/.test(c.state));
  return `<table${pending ? " data-pending" : ""}><caption>Refunds, captures and voids of this payment${pending ? " (a queued operation is awaiting the gateway's final result)" : ""}</caption><thead><tr><th scope="col">Operation</th><th scope="col" class="num">Amount</th><th scope="col">State</th><th scope="col">Reference</th><th scope="col">Source</th><th scope="col">Child session</th><th scope="col">Created</th></tr></thead><tbody>${p.transactions
    .map(
      (c) =>
        `<tr><td>${esc(c.operation)}</td><td class="num">${esc(c.amount)} ${esc(c.currency_code)}</td><td>${badge(c.state)}</td><td><code>${esc(c.reference_number)}</code></td><td>${esc(c.source)}</td><td><code>${esc(c.session_id)}</code></td><td>${time(c.created_at)}</td></tr>`,
    )
    .join("")}</tbody></table>`;
}

function details(p: PaymentView, checkoutUrl: string | undefined): string {
  const facts: [string, string][] = [
    ["Session", `<code>${esc(p.session_id)}</code>`],
    ["Order number", esc(p.order_no ?? "—")],
    ["State", badge(p.state)],
    ["Amount", `${esc(p.amount)} ${esc(p.currency_code)}`],
    ["Operation", esc(p.operation)],
    ["Type", esc(p.type)],
    ["Created via", esc(p.created_via)],
    ["Gateway", esc(p.pg_code ?? "—")],
    ["Form of payment", esc(p.form_of_payment ?? "—")],
    ["Customer id", esc(p.customer_id ?? "—")],
    ["Created", time(p.created_at)],
    ["Completed", time(p.completed_at)],
    ["Expires", time(p.expires_at)],
  ];
  const totals: [string, string][] = [
    ["Captured", p.captured_amount],
    ["Refunded", p.refunded_amount],
    ["Voided", p.voided_amount],
    ["Still capturable", p.capturable_amount],
    ["Still refundable", p.refundable_amount],
  ];
  const link = checkoutUrl
    ? `<section aria-labelledby="link-h"><h2 id="link-h">Checkout link</h2><p>Send this link to the customer to pay:</p><p class="actions"><a class="mono" id="checkout-link" data-copy="checkout link" href="${esc(checkoutUrl)}">${esc(checkoutUrl)}</a></p></section>`
    : "";
  return `${link}<div class="grid"><section aria-labelledby="details-h"><h2 id="details-h">Details</h2><dl class="facts">${facts.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join("")}</dl></section>
<section aria-labelledby="totals-h"><h2 id="totals-h">Totals</h2><p class="hint">Derived from the child transactions.</p><dl class="facts">${totals.map(([k, v]) => `<dt>${k}</dt><dd>${esc(v)} ${esc(p.currency_code)}</dd>`).join("")}</dl></section></div>`;
}

/** Extra sections below the details: the operation forms (see operations.ts). */
export type PaymentSections = (
  request: FastifyRequest,
  p: PaymentView,
  formState: OperationFormState,
) => string;

export interface OperationFormState {
  operation?: string;
  amount?: string;
  error?: string;
  /** The form's idempotency key, kept when the outcome is unknown so submitting again recovers it. */
  idempotencyKey?: string;
}

export async function renderPayment(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  sessionId: string,
  options: { status?: number; formState?: OperationFormState; sections?: PaymentSections } = {},
): Promise<FastifyReply> {
  const session = sessionOf(request);
  const p = await ctx.services().payments.status(session.merchantId, { sessionId });
  const payable = p.state === "created" || p.state === "pending";
  const checkoutUrl = payable ? `${ctx.config.publicUrl}/pay/${p.session_id}` : undefined;
  const children = `<section aria-labelledby="children-h"><h2 id="children-h">Child transactions</h2><div id="children" aria-live="polite" data-poll="/dashboard/payments/${esc(p.session_id)}/transactions">${childrenFragment(p)}</div></section>`;
  const extra = options.sections?.(request, p, options.formState ?? {}) ?? "";
  const open = await ctx.services().discrepancies.list(session.merchantId, {
    status: "open",
    sessionId: p.session_id,
    limit: 20,
  });
  const discrepancies = open.discrepancies.length
    ? `<div class="notice error" role="alert"><h2>The gateway reported ${open.discrepancies.length === 1 ? "an operation that breaks" : "operations that break"} the money rules</h2><ul>${open.discrepancies
        .map(
          (d) => `<li>${esc(d.operation)} of ${esc(d.amount)} ${esc(d.currency_code)}: ${esc(d.detail)}</li>`,
        )
        .join(
          "",
        )}</ul><p>Not applied to the totals below. <a href="/dashboard/discrepancies">Review the discrepancies</a>.</p></div>`
    : "";
  return render(
    ctx,
    request,
    reply,
    { title: `Payment ${p.order_no ?? p.session_id}`, current: "payments" },
    `<p><a href="/dashboard/payments">All payments</a></p>${discrepancies}${details(p, checkoutUrl)}${extra}${children}`,
    options.status ?? 200,
  );
}

export function paymentPages(
  scope: FastifyInstance,
  ctx: DashboardContext,
  sections?: PaymentSections,
): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.payments } };
  const idOf = (request: FastifyRequest) => {
    const id = (request.params as { session_id: string }).session_id;
    return SESSION_ID.test(id) ? id : "sess_unknown";
  };

  scope.get("/payments/:session_id", { config }, async (request, reply) =>
    renderPayment(ctx, request, reply, idOf(request), sections ? { sections } : {}),
  );

  // The children table alone, for the page's script to refresh while an operation is queued.
  scope.get("/payments/:session_id/transactions", { config }, async (request, reply) => {
    const p = await ctx
      .services()
      .payments.status(sessionOf(request).merchantId, { sessionId: idOf(request) });
    return reply.type("text/html; charset=utf-8").send(childrenFragment(p));
  });
}
