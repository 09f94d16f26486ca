/** @jsxImportSource preact */
/**
 * One payment: its details, derived totals and child transactions, its checkout link while the
 * customer can still pay, its timeline, and the operation forms the user is allowed to use.
 * English and Arabic.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { formatAmount } from "@svc/protocol";
import { paymentsRepo } from "../../payments/payments.repo.js";
import { releasedByCapture } from "../../payments/totals.js";
import { type TimelineOperation, timelineRepo } from "../../payments/timeline.repo.js";
import { renderFragment, type VNode } from "../../pages/jsx.js";
import { type DashboardContext, pathParam, render, sessionOf } from "../context.js";
import { type DashboardLanguage, dashboardLanguage, format, isolate } from "../i18n.js";
import { displayState, label } from "../labels.js";
import { Badge, Ltr, PAGE_PERMISSIONS, Time } from "../ui.js";

const WORDS = {
  en: {
    title: "Payment {id}",
    all_payments: "All payments",
    no_children: "No refunds, captures or voids yet.",
    children: "Child transactions",
    children_caption: "Refunds, captures and voids of this payment",
    children_waiting: " (a queued operation is awaiting the gateway's final result)",
    operation: "Operation",
    amount: "Amount",
    state: "State",
    reference: "Reference",
    done_by: "Made through",
    child_session: "Child session",
    created: "Created",
    customer: "Customer",
    name: "Name",
    email: "Email",
    phone: "Phone",
    customer_id: "Customer id",
    details: "Details",
    order_no: "Order number",
    session: "Session",
    kind: "Kind",
    created_through: "Created through",
    gateway: "Gateway",
    paid_with: "Paid with",
    completed: "Completed",
    expires: "Expires",
    totals: "Totals",
    totals_hint: "Derived from the child transactions.",
    captured: "Captured",
    refunded: "Refunded",
    voided: "Voided",
    capturable: "Still capturable",
    refundable: "Still refundable",
    released: "Released by the gateway",
    released_hint:
      "This gateway captures an authorization once: when part of it was captured, it released the rest to the customer.",
    checkout_link: "Checkout link",
    checkout_link_copy: "checkout link",
    checkout_link_hint: "Send this link to the customer to pay:",
    discrepancy_one: "The gateway reported an operation that breaks the money rules",
    discrepancy_many: "The gateway reported operations that break the money rules",
    discrepancy_note: "Not applied to the totals below.",
    review: "Review the discrepancies",
    unknown_one: "The outcome of an operation is unknown",
    unknown_many: "The outcomes of operations are unknown",
    unknown_note:
      "svc will not send it again. It counts as in progress in the totals below until it is settled: check it in the gateway's portal, then",
    unknown_settle: "settle it as done or not done",
    late_one: "The gateway took a payment after its attempt closed",
    late_many: "The gateway took payments after their attempt closed",
    late_note: "Not counted in the totals below: refund it on the gateway's portal, then",
    late_resolve: "mark it resolved",
    timeline: "Timeline",
    timeline_log: "Every webhook of this payment in the delivery log",
    t_created: "{kind} of {amount} created through the {via}",
    via_api: "API",
    via_dashboard: "dashboard",
    t_chose: "The customer chose {form}",
    t_gateway: "Gateway {pg}: {status}.",
    t_operation: "{op} of {amount}: {state}",
    t_reference: "Reference {ref}.",
    t_reason: "Reason:",
    by_gateway: "reported by the gateway (done in its own dashboard)",
    by_dashboard: "by {who} in the dashboard",
    a_dashboard_user: "a dashboard user",
    by_api: "through the operations API",
    by_api_person: "through the operations API ({who})",
    t_webhook: "Webhook {event}: {outcome}",
    // An operation webhook's `result`, in the timeline's title.
    result_success: "success",
    result_queued: "queued",
    result_rejected: "rejected",
    list: ", ",
    w_failed: "{failed} of {n} destinations failed",
    w_retrying: "being delivered ({n} retrying)",
    w_delivered_one: "delivered to 1 destination",
    w_delivered: "delivered to {n} destinations",
    t_discrepancy: "The gateway reported a {op} of {amount} that breaks a money rule ({status})",
    t_unknown: "The answer to the {op} of {amount} was lost: its outcome is unknown ({status})",
    t_late: "The gateway took {amount} after the attempt closed ({status})",
    status_open: "open",
    status_resolved: "resolved",
    status_done: "settled as done",
    status_not_done: "settled as not done",
  },
  ar: {
    title: "عملية الدفع {id}",
    all_payments: "كل المدفوعات",
    no_children: "لا استردادات ولا تحصيلات ولا إبطالات بعد.",
    children: "المعاملات الفرعية",
    children_caption: "استردادات هذه الدفعة وتحصيلاتها وإبطالاتها",
    children_waiting: " (عملية في انتظار النتيجة النهائية من البوابة)",
    operation: "العملية",
    amount: "المبلغ",
    state: "الحالة",
    reference: "المرجع",
    done_by: "أُجريت عبر",
    child_session: "الجلسة الفرعية",
    created: "تاريخ الإنشاء",
    customer: "العميل",
    name: "الاسم",
    email: "البريد الإلكتروني",
    phone: "الهاتف",
    customer_id: "معرّف العميل",
    details: "التفاصيل",
    order_no: "رقم الطلب",
    session: "الجلسة",
    kind: "النوع",
    created_through: "أُنشئت عبر",
    gateway: "بوابة الدفع",
    paid_with: "وسيلة الدفع",
    completed: "اكتملت",
    expires: "تنتهي صلاحيتها",
    totals: "المجاميع",
    totals_hint: "محسوبة من المعاملات الفرعية.",
    captured: "المحصَّل",
    refunded: "المسترد",
    voided: "المُبطل",
    capturable: "المتبقي للتحصيل",
    refundable: "المتبقي للاسترداد",
    released: "ما أفرجت عنه البوابة",
    released_hint: "تحصّل هذه البوابة التفويض مرة واحدة: عند تحصيل جزء منه، أفرجت عن الباقي للعميل.",
    checkout_link: "رابط الدفع",
    checkout_link_copy: "رابط الدفع",
    checkout_link_hint: "أرسل هذا الرابط إلى العميل ليدفع:",
    discrepancy_one: "أبلغت البوابة عن عملية تخالف قواعد المبالغ",
    discrepancy_many: "أبلغت البوابة عن عمليات تخالف قواعد المبالغ",
    discrepancy_note: "لم تُحتسب في المجاميع أدناه.",
    review: "راجع الفروقات",
    unknown_one: "نتيجة عملية غير معروفة",
    unknown_many: "نتائج عمليات غير معروفة",
    unknown_note:
      "لن يعيد svc إرسالها. تُحتسب قيد التنفيذ في المجاميع أدناه حتى تُسوّى: راجعها في بوابة التاجر لدى البوابة، ثم",
    unknown_settle: "سوِّها على أنها تمّت أو لم تتم",
    late_one: "أخذت البوابة دفعة بعد إغلاق محاولتها",
    late_many: "أخذت البوابة دفعات بعد إغلاق محاولاتها",
    late_note: "لم تُحتسب في المجاميع أدناه: استردّها في بوابة التاجر لدى البوابة، ثم",
    late_resolve: "علّمها محلولة",
    timeline: "التسلسل الزمني",
    timeline_log: "كل رسائل الويب هوك لهذه الدفعة في سجل التسليم",
    t_created: "{kind} بمبلغ {amount}، أُنشئ عبر {via}",
    via_api: "واجهة البرمجة",
    via_dashboard: "لوحة التحكم",
    t_chose: "اختار العميل {form}",
    t_gateway: "البوابة {pg}: {status}.",
    t_operation: "{op} بمبلغ {amount}: {state}",
    t_reference: "المرجع {ref}.",
    t_reason: "السبب:",
    by_gateway: "أبلغت عنها البوابة (نُفِّذت في لوحة تحكمها)",
    by_dashboard: "نفّذها {who} في لوحة التحكم",
    a_dashboard_user: "مستخدم للوحة التحكم",
    by_api: "عبر واجهة العمليات البرمجية",
    by_api_person: "عبر واجهة العمليات البرمجية ({who})",
    t_webhook: "ويب هوك {event}: {outcome}",
    result_success: "نجحت",
    result_queued: "في قائمة الانتظار",
    result_rejected: "رُفضت",
    list: "، ",
    w_failed: "فشلت {failed} من أصل {n} وجهات",
    w_retrying: "قيد التسليم (إعادة المحاولة: {n})",
    w_delivered_one: "سُلِّم إلى وجهة واحدة",
    w_delivered: "سُلِّم إلى {n} وجهات",
    t_discrepancy: "أبلغت البوابة عن {op} بمبلغ {amount} يخالف قاعدة للمبالغ ({status})",
    t_unknown: "ضاع الرد على {op} بمبلغ {amount}: نتيجته غير معروفة ({status})",
    t_late: "أخذت البوابة {amount} بعد إغلاق المحاولة ({status})",
    status_open: "مفتوح",
    status_resolved: "محلول",
    status_done: "سُوّي على أنه تمّ",
    status_not_done: "سُوّي على أنه لم يتم",
  },
} satisfies Record<DashboardLanguage, Record<string, string>>;

type Words = (typeof WORDS)["en"];

const SESSION_ID = /^sess_[a-z2-7]{1,40}$/;

/** A payment page's open discrepancies, by kind, each kind with its own heading and advice. */
const DISCREPANCY_KINDS = ["unknown_outcome", "gateway_operation", "late_payment"] as const;

export type PaymentView = Awaited<ReturnType<ReturnType<DashboardContext["services"]>["payments"]["view"]>>;

/** The child transactions table; `data-pending` marks it for refreshing while one is queued. */
function Children({ p, lang }: { p: PaymentView; lang: DashboardLanguage }): VNode {
  const w = WORDS[lang];
  if (p.transactions.length === 0) return <p>{w.no_children}</p>;
  const pending = p.transactions.some((c) => /_(queued|pending)$/.test(c.state));
  return (
    <table class="stack" data-pending={pending || undefined}>
      <caption>
        {w.children_caption}
        {pending ? w.children_waiting : ""}
      </caption>
      <thead>
        <tr>
          <th scope="col">{w.operation}</th>
          <th scope="col" class="num">
            {w.amount}
          </th>
          <th scope="col">{w.state}</th>
          <th scope="col">{w.reference}</th>
          <th scope="col">{w.done_by}</th>
          <th scope="col">{w.child_session}</th>
          <th scope="col">{w.created}</th>
        </tr>
      </thead>
      <tbody>
        {p.transactions.map((c) => (
          <tr>
            <td data-label={w.operation}>{label(c.operation, lang)}</td>
            <td data-label={w.amount} class="num">
              <Ltr>{`${c.amount} ${c.currency_code}`}</Ltr>
            </td>
            <td data-label={w.state}>
              <Badge state={c.state} text={label(c.state, lang)} />
            </td>
            <td data-label={w.reference}>
              <code>{c.reference_number}</code>
            </td>
            <td data-label={w.done_by}>{label(c.source, lang)}</td>
            <td data-label={w.child_session}>
              <code>{c.session_id}</code>
            </td>
            <td data-label={w.created}>
              <Time value={c.created_at} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The children table as HTML, for the page's script to refresh while an operation is queued. */
export function childrenFragment(p: PaymentView, lang: DashboardLanguage = "en"): string {
  return renderFragment(<Children p={p} lang={lang} />);
}

function Facts({ rows }: { rows: [string, VNode | string][] }): VNode {
  return (
    <dl class="facts">
      {rows.map(([k, v]) => (
        <>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </>
      ))}
    </dl>
  );
}

function Details({
  p,
  checkoutUrl,
  released,
  lang,
}: {
  p: PaymentView;
  checkoutUrl: string | undefined;
  /** What a gateway that captures once released (formatted), or undefined: nothing released. */
  released: string | undefined;
  lang: DashboardLanguage;
}): VNode {
  const w = WORDS[lang];
  const state = displayState(p);
  const name = [p.customer_first_name, p.customer_last_name].filter(Boolean).join(" ");
  const code = (v: string | null | undefined) => (v ? <code>{v}</code> : "—");
  const money = (v: string) => <Ltr>{`${v} ${p.currency_code}`}</Ltr>;
  return (
    <>
      <p class="summary">
        <span class="big">
          <Ltr>{`${p.amount} ${p.currency_code}`}</Ltr>
        </span>{" "}
        <Badge state={state} text={label(state, lang)} />
        {name && (
          <>
            {" "}
            <span>{name}</span>
          </>
        )}
      </p>
      {checkoutUrl && (
        <section aria-labelledby="link-h">
          <h2 id="link-h">{w.checkout_link}</h2>
          <p>{w.checkout_link_hint}</p>
          <p class="actions">
            <a class="mono" id="checkout-link" data-copy={w.checkout_link_copy} href={checkoutUrl} dir="ltr">
              {checkoutUrl}
            </a>
          </p>
        </section>
      )}
      <div class="grid">
        <section aria-labelledby="customer-h">
          <h2 id="customer-h">{w.customer}</h2>
          <Facts
            rows={[
              [w.name, name || "—"],
              [
                w.email,
                p.customer_email ? <a href={`mailto:${p.customer_email}`}>{p.customer_email}</a> : "—",
              ],
              [w.phone, p.customer_phone ? <Ltr>{p.customer_phone}</Ltr> : "—"],
              [w.customer_id, code(p.customer_id)],
            ]}
          />
        </section>
        <section aria-labelledby="details-h">
          <h2 id="details-h">{w.details}</h2>
          <Facts
            rows={[
              [w.order_no, p.order_no ?? "—"],
              [w.session, code(p.session_id)],
              [w.kind, `${label(p.operation, lang)} · ${label(p.type, lang)}`],
              [w.created_through, label(p.created_via, lang)],
              [w.gateway, code(p.pg_code)],
              [w.paid_with, label(p.form_of_payment, lang)],
              [w.created, <Time value={p.created_at} />],
              [w.completed, <Time value={p.completed_at} />],
              [w.expires, <Time value={p.expires_at} />],
            ]}
          />
        </section>
        <section aria-labelledby="totals-h">
          <h2 id="totals-h">{w.totals}</h2>
          <p class="hint">{w.totals_hint}</p>
          <Facts
            rows={[
              [w.captured, money(p.captured_amount)],
              [w.refunded, money(p.refunded_amount)],
              [w.voided, money(p.voided_amount)],
              [w.capturable, money(p.capturable_amount)],
              [w.refundable, money(p.refundable_amount)],
              ...(released ? [[w.released, money(released)] as [string, VNode]] : []),
            ]}
          />
          {released && <p class="hint">{w.released_hint}</p>}
        </section>
      </div>
    </>
  );
}

interface TimelineEvent {
  /** The element's id, for links to it (an operation's: `op-<its session_id>`). */
  id?: string;
  at: Date;
  title: string;
  detail?: string | VNode;
  /** The detail is the service's English (a discrepancy's), marked so on an Arabic page. */
  english?: boolean;
  tone?: "good" | "bad" | "wait";
}

/** Who did an operation, and from where. */
function whoDid(o: TimelineOperation, w: Words): string {
  const person = o.initiator
    ? [o.initiator.first_name, o.initiator.last_name].filter(Boolean).join(" ") || o.initiator.username || ""
    : "";
  if (o.via === "gateway" || o.source === "pg") return w.by_gateway;
  if (o.via === "dashboard") return format(w.by_dashboard, { who: person || w.a_dashboard_user });
  return person ? format(w.by_api_person, { who: person }) : w.by_api;
}

/** The payment's story, oldest first: creation, the attempt, the outcome, operations, webhooks, discrepancies. */
export async function timelineOf(
  ctx: DashboardContext,
  merchantId: string,
  p: PaymentView,
  lang: DashboardLanguage = "en",
): Promise<TimelineEvent[]> {
  const w = WORDS[lang];
  const db = ctx.services().db;
  const [attempts, operations, messages, { discrepancies }] = await Promise.all([
    timelineRepo.attempts(db, p.session_id),
    timelineRepo.operations(db, p.session_id),
    timelineRepo.messages(db, merchantId, p.session_id),
    ctx.services().discrepancies.list(merchantId, { sessionId: p.session_id, limit: 100 }),
  ]);
  // Amounts and identifiers inside an Arabic sentence are isolated left to right (U+2066 … U+2069):
  // "86.000 KWD" would otherwise show as "KWD 86.000".
  const iso = (text: string) => isolate(lang, text);
  const money = (minor: number) => iso(`${formatAmount(minor, p.currency_code)} ${p.currency_code}`);
  // A label inside a sentence: lower case in English ("refunded"), as it is in Arabic.
  const inSentence = (code: string) => (lang === "en" ? label(code, lang).toLowerCase() : label(code, lang));
  const events: TimelineEvent[] = [
    {
      at: new Date(p.created_at),
      title: format(w.t_created, {
        kind: label(p.operation, lang),
        amount: iso(`${p.amount} ${p.currency_code}`),
        via: p.created_via === "api" ? w.via_api : w.via_dashboard,
      }),
    },
  ];
  for (const a of attempts)
    events.push({
      at: a.created_at,
      title: format(w.t_chose, { form: label(a.form_of_payment, lang) }),
      detail: format(w.t_gateway, { pg: iso(a.pg_code), status: inSentence(a.status) }),
      ...(a.status === "declined" || a.status === "error" ? { tone: "bad" as const } : {}),
    });
  if (p.completed_at && ["paid", "authorized", "failed", "canceled", "expired"].includes(p.state))
    events.push({
      at: new Date(p.completed_at),
      title: label(p.state, lang),
      tone: p.state === "paid" || p.state === "authorized" ? "good" : "bad",
    });
  for (const o of operations)
    events.push({
      id: `op-${o.session_id}`,
      at: o.created_at,
      title: format(w.t_operation, {
        op: label(o.operation, lang),
        amount: money(Number(o.amount_minor)),
        state: inSentence(o.state),
      }),
      // The reason is free text in any language: isolated, so it cannot reorder the sentence.
      detail: (
        <>
          {`${whoDid(o, w)}. ${format(w.t_reference, { ref: iso(o.reference_number) })}`}
          {o.reason && (
            <>
              {` ${w.t_reason} `}
              <bdi>{o.reason}</bdi>
            </>
          )}
        </>
      ),
      tone: /_rejected$/.test(o.state) ? "bad" : /_(queued|pending)$/.test(o.state) ? "wait" : "good",
    });
  for (const m of messages) {
    const n = (k: string) => m.statuses[k] ?? 0;
    const outcome =
      n("failed") > 0
        ? format(w.w_failed, { failed: n("failed"), n: m.urls.length })
        : n("pending") + n("retrying") > 0
          ? format(w.w_retrying, { n: n("retrying") })
          : m.urls.length === 1
            ? w.w_delivered_one
            : format(w.w_delivered, { n: m.urls.length });
    events.push({
      at: m.created_at,
      title: format(w.t_webhook, {
        event: `${iso(m.event_type)}${m.result && m.event_type === "operation" ? ` (${(w as Record<string, string>)[`result_${m.result}`] ?? m.result})` : ""}`,
        outcome,
      }),
      detail: m.urls.map(iso).join(w.list),
      tone: n("failed") > 0 ? "bad" : n("pending") + n("retrying") > 0 ? "wait" : "good",
    });
  }
  for (const d of discrepancies) {
    const outcome = d.resolution?.outcome;
    const status =
      d.status === "open"
        ? w.status_open
        : outcome === "done"
          ? w.status_done
          : outcome === "not_done"
            ? w.status_not_done
            : w.status_resolved;
    const values = { op: inSentence(d.operation), amount: iso(`${d.amount} ${d.currency_code}`), status };
    events.push({
      at: new Date(d.created_at),
      title: format(
        d.kind === "unknown_outcome" ? w.t_unknown : d.kind === "late_payment" ? w.t_late : w.t_discrepancy,
        values,
      ),
      // The service's words, in English.
      detail: d.detail,
      english: lang === "ar",
      tone: d.status === "open" ? (d.kind === "unknown_outcome" ? "wait" : "bad") : "good",
    });
  }
  return events.sort((x, y) => x.at.getTime() - y.at.getTime());
}

function Timeline({ events, sessionId, w }: { events: TimelineEvent[]; sessionId: string; w: Words }): VNode {
  return (
    <section aria-labelledby="timeline-h">
      <h2 id="timeline-h">{w.timeline}</h2>
      <ol class="timeline">
        {events.map((e) => (
          <li class={e.tone} id={e.id}>
            <Time value={e.at} />
            <p class="what">{e.title}</p>
            {e.detail && (
              <p class="hint" {...(e.english ? { lang: "en", dir: "ltr" } : {})}>
                {e.detail}
              </p>
            )}
          </li>
        ))}
      </ol>
      <p>
        <a href={`/dashboard/deliveries?session_id=${sessionId}`}>{w.timeline_log}</a>
      </p>
    </section>
  );
}

/** Extra sections below the details: the operation forms (see operations.ts). */
export type PaymentSections = (
  request: FastifyRequest,
  p: PaymentView,
  formState: OperationFormState,
) => VNode | null;

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
  const lang = dashboardLanguage(request);
  const w = WORDS[lang];
  // The row and its children read once, for the view and for what a gateway that captures
  // once released with a partial capture (the totals show nothing capturable then; this says
  // where the rest went).
  const { payments, db } = ctx.services();
  const tx = await payments.find(session.merchantId, { sessionId });
  const children = await paymentsRepo.children(db, tx.session_id);
  const p = await payments.view(db, tx, children);
  const releasedMinor = releasedByCapture(tx, children);
  const released = releasedMinor > 0 ? formatAmount(releasedMinor, p.currency_code) : undefined;
  const payable = p.state === "created" || p.state === "pending";
  const checkoutUrl = payable ? `${ctx.config.publicUrl}/pay/${p.session_id}` : undefined;
  const extra = options.sections?.(request, p, options.formState ?? {}) ?? null;
  const open = await ctx.services().discrepancies.list(session.merchantId, {
    status: "open",
    sessionId: p.session_id,
    limit: 20,
  });
  const events = await timelineOf(ctx, session.merchantId, p, lang);
  return render(
    ctx,
    request,
    reply,
    { title: format(w.title, { id: p.order_no ?? p.session_id }), current: "payments", translated: true },
    <>
      <p>
        <a href="/dashboard/payments">{w.all_payments}</a>
      </p>
      {open.discrepancies.length > 0 && (
        <div class="notice error" role="alert">
          {DISCREPANCY_KINDS.map((kind) => {
            const list = open.discrepancies.filter((d) => d.kind === kind);
            if (list.length === 0) return null;
            const [one, many, note, action] =
              kind === "unknown_outcome"
                ? [w.unknown_one, w.unknown_many, w.unknown_note, w.unknown_settle]
                : kind === "late_payment"
                  ? [w.late_one, w.late_many, w.late_note, w.late_resolve]
                  : [w.discrepancy_one, w.discrepancy_many, w.discrepancy_note, w.review];
            return (
              <>
                <h2>{list.length === 1 ? one : many}</h2>
                <ul>
                  {list.map((d) => (
                    <li>
                      {label(d.operation, lang)} <Ltr>{`${d.amount} ${d.currency_code}`}</Ltr>:{" "}
                      <span {...(lang === "ar" ? { lang: "en", dir: "ltr" } : {})}>{d.detail}</span>
                    </li>
                  ))}
                </ul>
                <p>
                  {note} <a href={`/dashboard/discrepancies#${list[0]!.id}`}>{action}</a>.
                </p>
              </>
            );
          })}
        </div>
      )}
      <Details p={p} checkoutUrl={checkoutUrl} released={released} lang={lang} />
      {extra}
      <section aria-labelledby="children-h">
        <h2 id="children-h">{w.children}</h2>
        <div id="children" aria-live="polite" data-poll={`/dashboard/payments/${p.session_id}/transactions`}>
          <Children p={p} lang={lang} />
        </div>
      </section>
      <Timeline events={events} sessionId={p.session_id} w={w} />
    </>,
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
    return reply.type("text/html; charset=utf-8").send(childrenFragment(p, dashboardLanguage(request)));
  });
}
