/** @jsxImportSource preact */
/**
 * The delivery log: every webhook message, newest first, with its destinations and each attempt
 * (time, status, latency, response excerpt); filters by status, session and date; replay of one
 * message, and of every failed delivery since a date. English and Arabic.
 */
import type { FastifyInstance } from "fastify";
import { auditDone } from "../../audit/audit.js";
import { AppError } from "../../http/problem.js";
import {
  type DashboardContext,
  formOf,
  queryOf,
  redirectWithFlash,
  render,
  sessionOf,
  pathParam,
} from "../context.js";
import type { VNode } from "../../pages/jsx.js";
import { dayField } from "../date-filter.js";
import { type DashboardLanguage, dashboardLanguage, format, isolate } from "../i18n.js";
import { label } from "../labels.js";
import { Badge, Field, PAGE_PERMISSIONS, PostForm, SelectField, Time } from "../ui.js";

const WORDS = {
  en: {
    title: "Delivery log",
    test: "Test webhook",
    endpoint_disabled: "An endpoint was disabled",
    op_title: "{op} of {amount} {result}",
    r_success: "succeeded",
    r_queued: "queued at the gateway",
    r_rejected: "rejected by the gateway",
    payment_title: "Payment {state}: {amount}",
    succeeded: "delivered",
    failed: "failed",
    retrying: "retrying",
    pending: "waiting",
    to: "To",
    attempt_one: "1 attempt",
    attempts: "{n} attempts",
    next: "next",
    attempts_caption: "Attempts to {url}, oldest first",
    attempts_moved_caption: "Attempts, oldest first: to {url} since a replay sent it there",
    sent_to: "Sent to",
    time: "Time",
    status: "Status",
    latency: "Latency",
    response: "Response or error",
    no_response: "no response",
    no_attempt: "No attempt yet.",
    replay_to: "Replay to {urls}",
    and: " and ",
    /** Between the items of a list: a Latin comma in English, an Arabic one in Arabic. */
    list: ", ",
    send_to: "Send to {url}",
    event: "Event",
    message: "Message",
    created: "Created",
    payment: "Payment",
    order: "Order",
    reference: "Reference",
    initiator: "Initiator",
    payload: "Payload",
    payload_copy: "payload",
    urls_changed: "Your webhook URLs changed since: it was sent to {urls}.",
    filters: "Filters",
    filters_on: "Filters (on)",
    filters_label: "Deliveries",
    any_status: "Any status",
    // One line, no hint under it: the filters' labels and boxes stay in line.
    session: "Session (parent or child)",
    since: "Since",
    until: "Until",
    filter: "Filter",
    replay_h: "Replay failed deliveries",
    failed_from: "Failed from",
    failed_from_hint: "Empty: from the first.",
    failed_until: "Failed until",
    failed_until_hint: "Empty: to now. The day is included.",
    replay_all: "Replay all failed",
    newest: "The newest {n} messages matching the filters.",
    kept: "A message is kept {days} after its last delivery, then deleted.",
    kept_all: "Every message is kept.",
    none: "No webhook messages match these filters.",
    replayed_one: "Message {id} is queued again for 1 destination.",
    replayed: "Message {id} is queued again for {n} destinations.",
    still: "Message {id} is still being delivered; replay it once it has finished.",
    sent: "Message {id} is queued for {url}.",
    many_one: "1 failed delivery is queued again.",
    many: "{n} failed deliveries are queued again.",
    many_none: "There are no failed deliveries to replay.",
    skipped_one:
      "1 destination is left out: its endpoint is disabled or deleted now, or the message goes to its URL already.",
    skipped_many:
      "{n} destinations are left out: their endpoints are disabled or deleted now, or the message goes to their URLs already.",
    only_skipped:
      "Message {id} is not queued again: its endpoints are disabled or deleted now, or it goes to their URLs already. Enable the endpoint, or send the message to a current destination.",
    many_only_skipped:
      "No failed delivery is queued again: each of them ({n}) went to an endpoint that is disabled or deleted now, or its message goes to that URL already.",
  },
  ar: {
    title: "سجل التسليم",
    test: "ويب هوك تجريبي",
    endpoint_disabled: "عُطِّلت نقطة ويب هوك",
    op_title: "{op} بمبلغ {amount}: {result}",
    r_success: "نجح",
    r_queued: "في انتظار البوابة",
    r_rejected: "رفضته البوابة",
    payment_title: "الدفعة {state}: {amount}",
    succeeded: "سُلِّمت",
    failed: "فشلت",
    retrying: "قيد إعادة المحاولة",
    pending: "في الانتظار",
    to: "إلى",
    attempt_one: "محاولة واحدة",
    attempts: "المحاولات: {n}",
    next: "التالية",
    attempts_caption: "المحاولات إلى {url}، الأقدم أولاً",
    attempts_moved_caption: "المحاولات، الأقدم أولاً: إلى {url} منذ أن أعادت إعادةُ الإرسال توجيهها إليه",
    sent_to: "أُرسلت إلى",
    time: "الوقت",
    status: "الحالة",
    latency: "زمن الاستجابة",
    response: "الرد أو الخطأ",
    no_response: "لا رد",
    no_attempt: "لا محاولة بعد.",
    replay_to: "إعادة الإرسال إلى {urls}",
    and: " و",
    list: "، ",
    send_to: "الإرسال إلى {url}",
    event: "الحدث",
    message: "الرسالة",
    created: "تاريخ الإنشاء",
    payment: "الدفعة",
    order: "الطلب",
    reference: "المرجع",
    initiator: "المنفِّذ",
    payload: "المحتوى",
    payload_copy: "المحتوى",
    urls_changed: "تغيّرت عناوين الويب هوك منذ ذلك الحين: أُرسلت إلى {urls}.",
    filters: "التصفية",
    filters_on: "التصفية (مفعّلة)",
    filters_label: "عمليات التسليم",
    any_status: "أي حالة",
    session: "الجلسة (الأصلية أو الفرعية)",
    since: "من",
    until: "إلى",
    filter: "تصفية",
    replay_h: "إعادة إرسال عمليات التسليم الفاشلة",
    failed_from: "فشلت من",
    failed_from_hint: "فارغ: من البداية.",
    failed_until: "فشلت حتى",
    failed_until_hint: "فارغ: حتى الآن. اليوم نفسه مشمول.",
    replay_all: "إعادة إرسال كل الفاشلة",
    newest: "أحدث الرسائل المطابقة للتصفية (حتى {n}).",
    kept: "تُحفظ الرسالة {days} بعد آخر تسليم لها، ثم تُحذف.",
    kept_all: "تُحفظ كل الرسائل.",
    none: "لا رسائل ويب هوك تطابق هذه التصفية.",
    replayed_one: "أُعيدت الرسالة {id} إلى الانتظار لوجهة واحدة.",
    replayed: "أُعيدت الرسالة {id} إلى الانتظار لعدد {n} من الوجهات.",
    still: "الرسالة {id} ما زالت قيد التسليم؛ أعد إرسالها بعد انتهائها.",
    sent: "الرسالة {id} في الانتظار للإرسال إلى {url}.",
    many_one: "أُعيدت عملية تسليم فاشلة واحدة إلى الانتظار.",
    many: "أُعيدت عمليات تسليم فاشلة إلى الانتظار (العدد: {n}).",
    many_none: "لا عمليات تسليم فاشلة لإعادة إرسالها.",
    skipped_one: "استُثنيت وجهة واحدة: نقطتها معطّلة أو محذوفة الآن، أو أن الرسالة تُرسل إلى عنوانها أصلًا.",
    skipped_many:
      "استُثنيت وجهات (العدد: {n}): نقاطها معطّلة أو محذوفة الآن، أو أن الرسالة تُرسل إلى عناوينها أصلًا.",
    only_skipped:
      "لم تُعَد الرسالة {id} إلى الانتظار: نقاطها معطّلة أو محذوفة الآن، أو أنها تُرسل إلى عناوينها أصلًا. فعّل النقطة، أو أرسل الرسالة إلى وجهة حالية.",
    many_only_skipped:
      "لم تُعَد أي عملية تسليم فاشلة إلى الانتظار: كلها (العدد: {n}) كانت لنقاط معطّلة أو محذوفة الآن، أو أن رسالتها تُرسل إلى ذلك العنوان أصلًا.",
  },
} satisfies Record<DashboardLanguage, Record<string, string>>;

type Words = (typeof WORDS)["en"];
/** Left to right inside an Arabic sentence (U+2066 … U+2069): amounts, ids, URLs. */
const iso = (w: Words, text: string) => isolate(w === WORDS.ar ? "ar" : "en", text);

/** After a replay's count: how many deliveries it left out (their endpoint disabled or deleted), if any. */
const skippedNote = (w: Words, skipped: number) =>
  skipped ? ` ${format(skipped === 1 ? w.skipped_one : w.skipped_many, { n: skipped })}` : "";

const STATUSES = ["pending", "retrying", "succeeded", "failed"] as const;
type Status = (typeof STATUSES)[number];
const MESSAGE_ID = /^msg_[a-z2-7]{1,40}$/;
export const LOG_PAGE_SIZE = 50;

/**
 * "90 days" / "90 يومًا": the noun after an Arabic number agrees with its last two digits (3–10
 * plural, 11–99 singular accusative, else singular).
 */
function dayCount(n: number, lang: DashboardLanguage): string {
  if (lang === "en") return `${n} days`; // 7 at the least (config.ts)
  const last = n % 100;
  return `${n} ${last >= 3 && last <= 10 ? "أيام" : last >= 11 ? "يومًا" : "يوم"}`;
}
const EXCERPT_CHARS = 300;

type Message = Awaited<
  ReturnType<ReturnType<DashboardContext["services"]>["messages"]["list"]>
>["messages"][number];

function Excerpt({ text }: { text: string | null }): VNode | string {
  if (!text) return "—";
  return <pre dir="ltr">{text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text}</pre>;
}

/** What a message says, in words: "Refund of 2.500 KWD succeeded", "Payment paid: 86.000 KWD", "Test webhook". */
export function messageTitle(
  m: Pick<Message, "event_type" | "kind" | "result" | "payload">,
  lang: DashboardLanguage = "en",
): string {
  const w = WORDS[lang];
  const p = (m.payload ?? {}) as Record<string, unknown>;
  const money = (amount: unknown, currency: unknown) =>
    typeof amount === "string"
      ? iso(w, `${amount}${typeof currency === "string" ? ` ${currency}` : ""}`)
      : "";
  if (m.event_type === "webhook.test") return w.test;
  if (m.event_type === "webhook.endpoint_disabled") return w.endpoint_disabled;
  if (m.kind === "operation") {
    const txn = (p.txn ?? {}) as Record<string, unknown>;
    const result =
      m.result === "success"
        ? w.r_success
        : m.result === "queued"
          ? w.r_queued
          : m.result === "rejected"
            ? w.r_rejected
            : String(m.result ?? "");
    return format(w.op_title, {
      op: label(String(p.operation ?? "operation"), lang),
      amount: money(p.amount, txn.currency_code),
      result,
    }).replace(/ {2,}/g, " ");
  }
  const state = label(String(m.result ?? ""), lang);
  return format(w.payment_title, {
    state: lang === "en" ? state.toLowerCase() : state,
    amount: money(p.amount, p.currency_code),
  });
}

const statusText = (w: Words, status: string) =>
  status === "succeeded" || status === "failed" || status === "retrying" || status === "pending"
    ? w[status]
    : status;

function MessageSection({
  m,
  csrf,
  others,
  endpointUrls,
  w,
}: {
  m: Message;
  csrf: string;
  others: { url: string }[];
  /** Where each enabled endpoint is now, by id: a replay of its delivery goes there. */
  endpointUrls: Map<string, string>;
  w: Words;
}): VNode {
  const payload = (m.payload ?? {}) as Record<string, unknown>;
  const done = m.status === "succeeded" || m.status === "failed";
  const urls = m.deliveries.map((d) => d.url);
  const replayTo = [
    ...new Set(m.deliveries.map((d) => (d.endpoint_id && endpointUrls.get(d.endpoint_id)) || d.url)),
  ];
  // A current URL the replay goes to already is not offered again as a "Send to".
  const sendTo = others.filter((o) => !replayTo.includes(o.url));
  const isTest = m.event_type === "webhook.test";
  const lang: DashboardLanguage = w === WORDS.ar ? "ar" : "en";
  return (
    <article aria-labelledby={`h-${m.id}`} class="message">
      <h2 id={`h-${m.id}`}>
        {messageTitle(m, lang)} <Badge state={m.status} text={statusText(w, m.status)} />
      </h2>
      <dl class="facts">
        <dt>{w.event}</dt>
        <dd>
          <code>{m.event_type}</code>
        </dd>
        <dt>{w.message}</dt>
        <dd>
          <code>{m.id}</code>
        </dd>
        <dt>{w.created}</dt>
        <dd>
          <Time value={m.created_at} />
        </dd>
        {!isTest && (
          <>
            <dt>{w.payment}</dt>
            <dd>
              <a href={`/dashboard/payments/${m.session_id}`}>
                <code>{m.session_id}</code>
              </a>
            </dd>
          </>
        )}
        {payload.order_no ? (
          <>
            <dt>{w.order}</dt>
            <dd>{String(payload.order_no)}</dd>
          </>
        ) : null}
        {m.reference_number && (
          <>
            <dt>{w.reference}</dt>
            <dd>
              <code>{m.reference_number}</code>
            </dd>
          </>
        )}
        {payload.initiator ? (
          <>
            <dt>{w.initiator}</dt>
            <dd>{String((payload.initiator as { username?: string }).username ?? "")}</dd>
          </>
        ) : null}
      </dl>
      {m.deliveries.map((d) => {
        const n = d.attempts.length;
        // A replay can send a delivery to where its endpoint is now: earlier attempts say where they went.
        const moved = d.attempts.some((a) => a.url !== d.url);
        return (
          <details class="delivery">
            <summary>
              {w.to} <span class="mono url">{d.url}</span>:{" "}
              <Badge state={d.status} text={statusText(w, d.status)} />{" "}
              {n === 1 ? w.attempt_one : format(w.attempts, { n })}
              {d.next_attempt_at && (
                <>
                  {w.list}
                  {w.next} <Time value={d.next_attempt_at} />
                </>
              )}
            </summary>
            <table class="stack">
              <caption>
                {format(moved ? w.attempts_moved_caption : w.attempts_caption, { url: iso(w, d.url) })}
              </caption>
              <thead>
                <tr>
                  <th scope="col">{w.time}</th>
                  <th scope="col">{w.status}</th>
                  <th scope="col" class="num">
                    {w.latency}
                  </th>
                  <th scope="col">{w.response}</th>
                </tr>
              </thead>
              <tbody>
                {n ? (
                  d.attempts.map((a) => (
                    <tr>
                      <td data-label={w.time}>
                        <Time value={a.attempted_at} />
                      </td>
                      <td data-label={w.status}>{a.status_code ?? w.no_response}</td>
                      <td data-label={w.latency} class="num">
                        <bdi dir="ltr">{`${a.latency_ms} ms`}</bdi>
                      </td>
                      <td data-label={w.response}>
                        {a.url !== d.url && (
                          <p>
                            {w.sent_to} <span class="mono url">{a.url}</span>
                          </p>
                        )}
                        {a.error && <p dir="ltr">{a.error}</p>}
                        <Excerpt text={a.response_body} />
                      </td>
                    </tr>
                  ))
                ) : (
                  <tr>
                    <td colSpan={4}>{w.no_attempt}</td>
                  </tr>
                )}
              </tbody>
            </table>
          </details>
        );
      })}
      <details class="payload">
        <summary>{w.payload}</summary>
        <pre class="json" id={`payload-${m.id}`} data-copy={w.payload_copy} dir="ltr">
          {JSON.stringify(payload, null, 2)}
        </pre>
      </details>
      <div class="actions">
        {done && (
          <PostForm action={`/dashboard/deliveries/${m.id}/replay`} csrf={csrf}>
            <button type="submit" class="secondary">
              {format(w.replay_to, { urls: replayTo.map((u) => iso(w, u)).join(w.and) })}
            </button>
          </PostForm>
        )}
        {sendTo.map((o) => (
          <PostForm action={`/dashboard/deliveries/${m.id}/send`} csrf={csrf}>
            <input type="hidden" name="url" value={o.url} />
            <button type="submit" class="secondary">
              {format(w.send_to, { url: iso(w, o.url) })}
            </button>
          </PostForm>
        ))}
      </div>
      {sendTo.length > 0 && (
        <p class="hint">{format(w.urls_changed, { urls: urls.map((u) => iso(w, u)).join(w.list) })}</p>
      )}
    </article>
  );
}

export function deliveryPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.deliveries } };

  scope.get("/deliveries", { config }, async (request, reply) => {
    const session = sessionOf(request);
    const q = queryOf(request);
    const status = STATUSES.includes(q.status as Status) ? (q.status as Status) : undefined;
    const sessionId = q.session_id?.trim() || undefined;
    const lang = dashboardLanguage(request);
    // "until 2026-11-21" includes that day; a date no filter can take is shown as an error, and
    // nothing is read with half a filter.
    const since = dayField(q.since, lang);
    const until = dayField(q.until, lang);
    const refused = Boolean(since.error || until.error);
    const { messages } = refused
      ? { messages: [] }
      : await ctx.services().messages.list(session.merchantId, {
          status,
          sessionId,
          since: since.start,
          until: until.end,
          limit: LOG_PAGE_SIZE,
        });
    const filtering = Boolean(status || sessionId || q.since || q.until);
    const w = WORDS[lang];
    // What the retention purge deletes (webhooks/retention.ts): said here, where messages vanish.
    const days = ctx.config.webhookRetentionDays;
    const service = ctx.services().messages;
    const others = await Promise.all(
      messages.map((m) =>
        m.event_type === "operation" || m.event_type.startsWith("payment.")
          ? service.otherDestinations(
              session.merchantId,
              m.deliveries.map((d) => d.url),
            )
          : Promise.resolve([]),
      ),
    );
    // A replay of a delivery to an endpoint goes where the endpoint is now.
    const endpointUrls = new Map(
      messages.some((m) => m.deliveries.some((d) => d.endpoint_id))
        ? (await ctx.services().endpoints.list(session.merchantId))
            .filter((e) => e.kind === "endpoint" && e.enabled)
            .map((e) => [e.id, e.url])
        : [],
    );
    return render(
      ctx,
      request,
      reply,
      { title: w.title, current: "deliveries", translated: true },
      <>
        <details class="filters-toggle" open={filtering}>
          <summary>{filtering ? w.filters_on : w.filters}</summary>
          <form
            method="get"
            action="/dashboard/deliveries"
            class="filters"
            role="search"
            aria-label={w.filters_label}
          >
            <SelectField
              name="status"
              label={w.status}
              value={status}
              options={[
                { value: "", text: w.any_status },
                ...STATUSES.map((s) => ({ value: s, text: w[s] })),
              ]}
            />
            <Field name="session_id" label={w.session} value={sessionId} />
            <Field name="since" label={w.since} type="date" value={q.since} error={since.error} />
            <Field name="until" label={w.until} type="date" value={q.until} error={until.error} />
            <div class="field">
              <button type="submit">{w.filter}</button>
            </div>
          </form>
        </details>
        <section aria-labelledby="replay-h">
          <h2 id="replay-h">{w.replay_h}</h2>
          <PostForm action="/dashboard/deliveries/replay" csrf={session.csrfToken}>
            <div class="filters">
              <Field
                name="failed_since"
                label={w.failed_from}
                type="date"
                value={q.since}
                hint={w.failed_from_hint}
              />
              <Field
                name="failed_until"
                label={w.failed_until}
                type="date"
                value={q.until}
                hint={w.failed_until_hint}
              />
              <div class="field">
                <button type="submit">{w.replay_all}</button>
              </div>
            </div>
          </PostForm>
        </section>
        <p class="muted">
          {format(w.newest, { n: LOG_PAGE_SIZE })}{" "}
          {days > 0 ? format(w.kept, { days: dayCount(days, lang) }) : w.kept_all}
        </p>
        {messages.length ? (
          messages.map((m, i) => (
            <MessageSection
              m={m}
              csrf={session.csrfToken}
              others={others[i]!}
              endpointUrls={endpointUrls}
              w={w}
            />
          ))
        ) : (
          <p role="status">{w.none}</p>
        )}
      </>,
      refused ? 422 : 200,
    );
  });

  scope.post("/deliveries/:message_id/replay", { config }, async (request, reply) => {
    const id = pathParam(request, "message_id");
    if (!MESSAGE_ID.test(id)) throw new AppError("not_found", "There is no such webhook message.");
    const w = WORDS[dashboardLanguage(request)];
    const { replayed, skipped } = await ctx.services().messages.replay(sessionOf(request).merchantId, id);
    if (replayed > 0) auditDone(request);
    return redirectWithFlash(ctx, request, reply, "/dashboard/deliveries", {
      kind: replayed ? "success" : "info",
      text: replayed
        ? format(replayed === 1 ? w.replayed_one : w.replayed, { id: iso(w, id), n: replayed }) +
          skippedNote(w, skipped)
        : format(skipped ? w.only_skipped : w.still, { id: iso(w, id) }),
    });
  });

  scope.post("/deliveries/:message_id/send", { config }, async (request, reply) => {
    const id = pathParam(request, "message_id");
    if (!MESSAGE_ID.test(id)) throw new AppError("not_found", "There is no such webhook message.");
    const url = formOf(request).url ?? "";
    try {
      await ctx.services().messages.sendTo(sessionOf(request).merchantId, id, url);
      auditDone(request);
    } catch (error) {
      if (!(error instanceof AppError) || error.code === "not_found") throw error;
      return redirectWithFlash(ctx, request, reply, "/dashboard/deliveries", {
        kind: "error",
        text: error.message,
      });
    }
    const w = WORDS[dashboardLanguage(request)];
    return redirectWithFlash(ctx, request, reply, "/dashboard/deliveries", {
      kind: "success",
      text: format(w.sent, { id: iso(w, id), url: iso(w, url) }),
    });
  });

  scope.post("/deliveries/replay", { config }, async (request, reply) => {
    const form = formOf(request);
    const lang = dashboardLanguage(request);
    const since = dayField(form.failed_since, lang);
    const until = dayField(form.failed_until, lang);
    // A bad date must not widen the replay to every failed delivery: refused, with what to send.
    const w = WORDS[lang];
    const refused = since.error
      ? `${w.failed_from}: ${since.error}`
      : until.error && `${w.failed_until}: ${until.error}`;
    if (refused)
      return redirectWithFlash(ctx, request, reply, "/dashboard/deliveries", {
        kind: "error",
        text: refused,
      });
    const { replayed, skipped } = await ctx.services().messages.replayMany(sessionOf(request).merchantId, {
      status: "failed",
      since: since.start,
      until: until.end,
    });
    if (replayed > 0) auditDone(request);
    return redirectWithFlash(ctx, request, reply, "/dashboard/deliveries", {
      kind: replayed ? "success" : "info",
      text: replayed
        ? format(replayed === 1 ? w.many_one : w.many, { n: replayed }) + skippedNote(w, skipped)
        : skipped
          ? format(w.many_only_skipped, { n: skipped })
          : w.many_none,
    });
  });
}
