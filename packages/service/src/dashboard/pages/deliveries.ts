/**
 * The delivery log: every webhook message, newest first, with its destinations and each attempt
 * (time, status, latency, response excerpt); filters by status, session and date; replay of one
 * message, and of every failed delivery since a date.
 */
import type { FastifyInstance } from "fastify";
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
import { badge, esc, field, PAGE_PERMISSIONS, postForm, selectField, time } from "../html.js";
import { label } from "../labels.js";

const STATUSES = ["pending", "retrying", "succeeded", "failed"] as const;
type Status = (typeof STATUSES)[number];
const MESSAGE_ID = /^msg_[a-z2-7]{1,40}$/;
export const LOG_PAGE_SIZE = 50;
const EXCERPT_CHARS = 300;

type Message = Awaited<
  ReturnType<ReturnType<DashboardContext["services"]>["messages"]["list"]>
>["messages"][number];

function dayStart(value: string | undefined): Date | undefined {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const d = new Date(`${value}T00:00:00Z`);
  // Years outside 1970–9999 are no filter any store can take: ignored like a malformed date.
  return Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1970 ? undefined : d;
}

/** The end of a date filter: the start of the next day, so "until 2026-11-21" includes that day. */
function dayEnd(value: string | undefined): Date | undefined {
  const start = dayStart(value);
  return start && new Date(start.getTime() + 24 * 3600 * 1000);
}

function excerpt(text: string | null): string {
  if (!text) return "—";
  const short = text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
  return `<pre>${esc(short)}</pre>`;
}

/** What a message says, in words: "Refund of 2.500 KWD succeeded", "Payment paid: 86.000 KWD", "Test webhook". */
export function messageTitle(m: Pick<Message, "event_type" | "kind" | "result" | "payload">): string {
  const p = (m.payload ?? {}) as Record<string, unknown>;
  const money = (amount: unknown, currency: unknown) =>
    typeof amount === "string" ? `${amount}${typeof currency === "string" ? ` ${currency}` : ""}` : "";
  if (m.event_type === "webhook.test") return "Test webhook";
  if (m.event_type === "webhook.endpoint_disabled") return "An endpoint was disabled";
  if (m.kind === "operation") {
    const txn = (p.txn ?? {}) as Record<string, unknown>;
    const verb = label(String(p.operation ?? "operation"));
    const result =
      m.result === "success"
        ? "succeeded"
        : m.result === "queued"
          ? "queued at the gateway"
          : m.result === "rejected"
            ? "rejected by the gateway"
            : String(m.result ?? "");
    return `${verb} of ${money(p.amount, txn.currency_code)} ${result}`.replace(/ {2,}/g, " ");
  }
  return `Payment ${label(String(m.result ?? "")).toLowerCase()}: ${money(p.amount, p.currency_code)}`;
}

const DELIVERY_TEXT: Record<string, string> = {
  succeeded: "delivered",
  failed: "failed",
  retrying: "retrying",
  pending: "waiting",
};

function messageSection(m: Message, csrf: string, others: { url: string }[]): string {
  const payload = (m.payload ?? {}) as Record<string, unknown>;
  const deliveries = m.deliveries
    .map((d) => {
      const n = d.attempts.length;
      const rows = n
        ? d.attempts
            .map(
              (a) =>
                `<tr><td data-label="Time">${time(a.attempted_at)}</td><td data-label="Status">${a.status_code ?? "no response"}</td><td data-label="Latency" class="num">${a.latency_ms} ms</td><td data-label="Response or error">${a.error ? `<p>${esc(a.error)}</p>` : ""}${excerpt(a.response_body)}</td></tr>`,
            )
            .join("")
        : `<tr><td colspan="4">No attempt yet.</td></tr>`;
      return `<details class="delivery"><summary>To <span class="mono url">${esc(d.url)}</span>: ${badge(d.status, DELIVERY_TEXT[d.status] ?? d.status)} ${n} ${n === 1 ? "attempt" : "attempts"}${d.next_attempt_at ? `, next ${time(d.next_attempt_at)}` : ""}</summary>
<table class="stack"><caption>Attempts to ${esc(d.url)}, oldest first</caption><thead><tr><th scope="col">Time</th><th scope="col">Status</th><th scope="col" class="num">Latency</th><th scope="col">Response or error</th></tr></thead><tbody>${rows}</tbody></table></details>`;
    })
    .join("");
  const done = m.status === "succeeded" || m.status === "failed";
  const urls = m.deliveries.map((d) => d.url);
  const replay = done
    ? postForm(
        `/dashboard/deliveries/${m.id}/replay`,
        csrf,
        `<button type="submit" class="secondary">Replay to ${esc(urls.join(" and "))}</button>`,
      )
    : "";
  const sendTo = others
    .map((o) =>
      postForm(
        `/dashboard/deliveries/${m.id}/send`,
        csrf,
        `<input type="hidden" name="url" value="${esc(o.url)}"><button type="submit" class="secondary">Send to ${esc(o.url)}</button>`,
      ),
    )
    .join("");
  const isTest = m.event_type === "webhook.test";
  const pretty = JSON.stringify(payload, null, 2);
  return `<article aria-labelledby="h-${esc(m.id)}" class="message"><h2 id="h-${esc(m.id)}">${esc(messageTitle(m))} ${badge(m.status, DELIVERY_TEXT[m.status] ?? m.status)}</h2>
<dl class="facts"><dt>Event</dt><dd><code>${esc(m.event_type)}</code></dd><dt>Message</dt><dd><code>${esc(m.id)}</code></dd><dt>Created</dt><dd>${time(m.created_at)}</dd>${isTest ? "" : `<dt>Payment</dt><dd><a href="/dashboard/payments/${esc(m.session_id)}"><code>${esc(m.session_id)}</code></a></dd>`}${payload.order_no ? `<dt>Order</dt><dd>${esc(payload.order_no)}</dd>` : ""}${m.reference_number ? `<dt>Reference</dt><dd><code>${esc(m.reference_number)}</code></dd>` : ""}${payload.initiator ? `<dt>Initiator</dt><dd>${esc((payload.initiator as { username?: string }).username)}</dd>` : ""}</dl>
${deliveries}<details class="payload"><summary>Payload</summary><pre class="json" id="payload-${esc(m.id)}" data-copy="payload">${esc(pretty)}</pre></details>
<div class="actions">${replay}${sendTo}</div>${others.length ? `<p class="hint">Your webhook URLs changed since: it was sent to ${esc(urls.join(", "))}.</p>` : ""}</article>`;
}

export function deliveryPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.deliveries } };

  scope.get("/deliveries", { config }, async (request, reply) => {
    const session = sessionOf(request);
    const q = queryOf(request);
    const status = STATUSES.includes(q.status as Status) ? (q.status as Status) : undefined;
    const sessionId = q.session_id?.trim() || undefined;
    const since = dayStart(q.since);
    const until = dayEnd(q.until);
    const { messages } = await ctx
      .services()
      .messages.list(session.merchantId, { status, sessionId, since, until, limit: LOG_PAGE_SIZE });
    const filtering = Boolean(status || sessionId || q.since || q.until);
    const filters = `<details class="filters-toggle"${filtering ? " open" : ""}><summary>Filters${filtering ? " (on)" : ""}</summary><form method="get" action="/dashboard/deliveries" class="filters" role="search" aria-label="Deliveries">
${selectField({ name: "status", label: "Status", value: status, options: [{ value: "", text: "Any status" }, ...STATUSES.map((s) => ({ value: s, text: DELIVERY_TEXT[s] ?? s }))] })}
${field({ name: "session_id", label: "Session", value: sessionId, hint: "Parent or child session_id" })}
${field({ name: "since", label: "Since", type: "date", value: q.since })}
${field({ name: "until", label: "Until", type: "date", value: q.until })}
<div class="field"><button type="submit">Filter</button></div></form></details>`;
    const replayAll = postForm(
      "/dashboard/deliveries/replay",
      session.csrfToken,
      `<div class="filters">${field({ name: "failed_since", label: "Failed from", type: "date", value: q.since, hint: "Empty: from the first." })}${field({ name: "failed_until", label: "Failed until", type: "date", value: q.until, hint: "Empty: to now. The day is included." })}<div class="field"><button type="submit">Replay all failed</button></div></div>`,
    );
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
    const list = messages.length
      ? messages.map((m, i) => messageSection(m, session.csrfToken, others[i]!)).join("")
      : `<p role="status">No webhook messages match these filters.</p>`;
    return render(
      ctx,
      request,
      reply,
      { title: "Delivery log", current: "deliveries" },
      `${filters}<section aria-labelledby="replay-h"><h2 id="replay-h">Replay failed deliveries</h2>${replayAll}</section>
<p class="muted">The newest ${LOG_PAGE_SIZE} messages matching the filters.</p>${list}`,
    );
  });

  scope.post("/deliveries/:message_id/replay", { config }, async (request, reply) => {
    const id = pathParam(request, "message_id");
    if (!MESSAGE_ID.test(id)) throw new AppError("not_found", "There is no such webhook message.");
    const { replayed } = await ctx.services().messages.replay(sessionOf(request).merchantId, id);
    return redirectWithFlash(ctx, request, reply, "/dashboard/deliveries", {
      kind: replayed ? "success" : "info",
      text: replayed
        ? `Message ${id} is queued again for ${replayed} destination${replayed === 1 ? "" : "s"}.`
        : `Message ${id} is still being delivered; replay it once it has finished.`,
    });
  });

  scope.post("/deliveries/:message_id/send", { config }, async (request, reply) => {
    const id = pathParam(request, "message_id");
    if (!MESSAGE_ID.test(id)) throw new AppError("not_found", "There is no such webhook message.");
    const url = formOf(request).url ?? "";
    try {
      await ctx.services().messages.sendTo(sessionOf(request).merchantId, id, url);
    } catch (error) {
      if (!(error instanceof AppError) || error.code === "not_found") throw error;
      return redirectWithFlash(ctx, request, reply, "/dashboard/deliveries", {
        kind: "error",
        text: error.message,
      });
    }
    return redirectWithFlash(ctx, request, reply, "/dashboard/deliveries", {
      kind: "success",
      text: `Message ${id} is queued for ${url}.`,
    });
  });

  scope.post("/deliveries/replay", { config }, async (request, reply) => {
    const form = formOf(request);
    const { replayed } = await ctx.services().messages.replayMany(sessionOf(request).merchantId, {
      status: "failed",
      since: dayStart(form.failed_since),
      until: dayEnd(form.failed_until),
    });
    return redirectWithFlash(ctx, request, reply, "/dashboard/deliveries", {
      kind: replayed ? "success" : "info",
      text: replayed
        ? `${replayed} failed deliver${replayed === 1 ? "y is" : "ies are"} queued again.`
        : "There are no failed deliveries to replay.",
    });
  });
}
