/**
 * One payment: its details, derived totals and child transactions, its checkout link while the
 * customer can still pay, and the operation forms the user is allowed to use.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type DashboardContext, render, sessionOf, pathParam } from "../context.js";
import { formatAmount } from "@svc/protocol";
import { type TimelineOperation, timelineRepo } from "../../payments/timeline.repo.js";
import { badge, esc, PAGE_PERMISSIONS, time } from "../html.js";
import { displayState, label } from "../labels.js";

export type PaymentView = Awaited<ReturnType<ReturnType<DashboardContext["services"]>["payments"]["view"]>>;

const SESSION_ID = /^sess_[a-z2-7]{1,40}$/;

/** The child transactions table; `data-pending` marks it for refreshing while one is queued. */
export function childrenFragment(p: PaymentView): string {
  if (p.transactions.length === 0) return `<p>No refunds, captures or voids yet.</p>`;
  const pending = p.transactions.some((c) => /_(queued|pending)$/.test(c.state));
  return `<table class="stack"${pending ? " data-pending" : ""}><caption>Refunds, captures and voids of this payment${pending ? " (a queued operation is awaiting the gateway's final result)" : ""}</caption><thead><tr><th scope="col">Operation</th><th scope="col" class="num">Amount</th><th scope="col">State</th><th scope="col">Reference</th><th scope="col">Done by</th><th scope="col">Child session</th><th scope="col">Created</th></tr></thead><tbody>${p.transactions
    .map(
      (c) =>
        `<tr><td data-label="Operation">${esc(label(c.operation))}</td><td data-label="Amount" class="num">${esc(c.amount)} ${esc(c.currency_code)}</td><td data-label="State">${badge(c.state, label(c.state))}</td><td data-label="Reference"><code>${esc(c.reference_number)}</code></td><td data-label="Done by">${esc(label(c.source))}</td><td data-label="Child session"><code>${esc(c.session_id)}</code></td><td data-label="Created">${time(c.created_at)}</td></tr>`,
    )
    .join("")}</tbody></table>`;
}

function details(p: PaymentView, checkoutUrl: string | undefined): string {
  const state = displayState(p);
  const name = [p.customer_first_name, p.customer_last_name].filter(Boolean).join(" ");
  const customer: [string, string][] = [
    ["Name", esc(name || "—")],
    [
      "Email",
      p.customer_email ? `<a href="mailto:${esc(p.customer_email)}">${esc(p.customer_email)}</a>` : "—",
    ],
    ["Phone", esc(p.customer_phone ?? "—")],
    ["Customer id", p.customer_id ? `<code>${esc(p.customer_id)}</code>` : "—"],
  ];
  const facts: [string, string][] = [
    ["Order number", esc(p.order_no ?? "—")],
    ["Session", `<code>${esc(p.session_id)}</code>`],
    ["Kind", `${esc(label(p.operation))} · ${esc(label(p.type))}`],
    ["Created through", esc(label(p.created_via))],
    ["Gateway", p.pg_code ? `<code>${esc(p.pg_code)}</code>` : "—"],
    ["Paid with", esc(label(p.form_of_payment))],
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
  const dl = (rows: [string, string][]) =>
    `<dl class="facts">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join("")}</dl>`;
  return `<p class="summary"><span class="big">${esc(p.amount)} ${esc(p.currency_code)}</span> ${badge(state, label(state))}${name ? ` <span>${esc(name)}</span>` : ""}</p>${link}<div class="grid"><section aria-labelledby="customer-h"><h2 id="customer-h">Customer</h2>${dl(customer)}</section>
<section aria-labelledby="details-h"><h2 id="details-h">Details</h2>${dl(facts)}</section>
<section aria-labelledby="totals-h"><h2 id="totals-h">Totals</h2><p class="hint">Derived from the child transactions.</p>${dl(totals.map(([k, v]) => [k, `${esc(v)} ${esc(p.currency_code)}`]))}</section></div>`;
}

interface TimelineEvent {
  at: Date;
  title: string;
  detail?: string;
  tone?: "good" | "bad" | "wait";
}

/** Who did an operation, and from where. */
function whoDid(o: TimelineOperation): string {
  const person = o.initiator
    ? [o.initiator.first_name, o.initiator.last_name].filter(Boolean).join(" ") || o.initiator.username || ""
    : "";
  if (o.via === "gateway" || o.source === "pg") return "reported by the gateway (done in its own dashboard)";
  if (o.via === "dashboard") return `by ${person || "a dashboard user"} in the dashboard`;
  return `through the operations API${person ? ` (${person})` : ""}`;
}

/** The payment's story, oldest first: creation, the attempt, the outcome, operations, webhooks, discrepancies. */
export async function timelineOf(
  ctx: DashboardContext,
  merchantId: string,
  p: PaymentView,
): Promise<TimelineEvent[]> {
  const db = ctx.services().db;
  const [attempts, operations, messages, discrepancies] = await Promise.all([
    timelineRepo.attempts(db, p.session_id),
    timelineRepo.operations(db, p.session_id),
    timelineRepo.messages(db, merchantId, p.session_id),
    timelineRepo.discrepancies(db, merchantId, p.session_id),
  ]);
  const money = (minor: number) => `${formatAmount(minor, p.currency_code)} ${p.currency_code}`;
  const events: TimelineEvent[] = [
    {
      at: new Date(p.created_at),
      title: `${label(p.operation)} of ${p.amount} ${p.currency_code} created through the ${p.created_via === "api" ? "API" : "dashboard"}`,
    },
  ];
  for (const a of attempts)
    events.push({
      at: a.created_at,
      title: `The customer chose ${label(a.form_of_payment)}`,
      detail: `Gateway ${a.pg_code}: ${label(a.status).toLowerCase()}.`,
      ...(a.status === "declined" || a.status === "error" ? { tone: "bad" as const } : {}),
    });
  if (p.completed_at && ["paid", "authorized", "failed", "canceled", "expired"].includes(p.state))
    events.push({
      at: new Date(p.completed_at),
      title: label(p.state),
      tone: p.state === "paid" || p.state === "authorized" ? "good" : "bad",
    });
  for (const o of operations)
    events.push({
      at: o.created_at,
      title: `${label(o.operation)} of ${money(Number(o.amount_minor))}: ${label(o.state).toLowerCase()}`,
      detail: `${whoDid(o)}. Reference ${o.reference_number}.${o.reason ? ` Reason: ${o.reason}` : ""}`,
      tone: /_rejected$/.test(o.state) ? "bad" : /_(queued|pending)$/.test(o.state) ? "wait" : "good",
    });
  for (const m of messages) {
    const n = (k: string) => m.statuses[k] ?? 0;
    const outcome =
      n("failed") > 0
        ? `${n("failed")} of ${m.urls.length} destinations failed`
        : n("pending") + n("retrying") > 0
          ? `being delivered (${n("retrying")} retrying)`
          : `delivered to ${m.urls.length} ${m.urls.length === 1 ? "destination" : "destinations"}`;
    events.push({
      at: m.created_at,
      title: `Webhook ${m.event_type}${m.result && m.event_type === "operation" ? ` (${m.result})` : ""}: ${outcome}`,
      detail: m.urls.join(", "),
      tone: n("failed") > 0 ? "bad" : n("pending") + n("retrying") > 0 ? "wait" : "good",
    });
  }
  for (const d of discrepancies)
    events.push({
      at: d.created_at,
      title: `The gateway reported a ${d.operation} of ${d.amount} ${d.currency_code} that breaks a money rule (${d.status})`,
      detail: d.detail,
      tone: "bad",
    });
  return events.sort((x, y) => x.at.getTime() - y.at.getTime());
}

function timelineHtml(events: TimelineEvent[], sessionId: string): string {
  return `<section aria-labelledby="timeline-h"><h2 id="timeline-h">Timeline</h2><ol class="timeline">${events
    .map(
      (e) =>
        `<li${e.tone ? ` class="${e.tone}"` : ""}>${time(e.at)}<p class="what">${esc(e.title)}</p>${e.detail ? `<p class="hint">${esc(e.detail)}</p>` : ""}</li>`,
    )
    .join(
      "",
    )}</ol><p><a href="/dashboard/deliveries?session_id=${esc(sessionId)}">Every webhook of this payment in the delivery log</a></p></section>`;
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
    `<p><a href="/dashboard/payments">All payments</a></p>${discrepancies}${details(p, checkoutUrl)}${extra}${children}${timelineHtml(await timelineOf(ctx, session.merchantId, p), p.session_id)}`,
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
    const id = pathParam(request, "session_id");
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
