/**
 * Webhook endpoints: the list (the seed's destinations first, read-only here), add, change,
 * enable/disable, delete (after a confirmation), and the replay of what a re-enabled endpoint
 * missed. The same service as `/v1/webhooks/endpoints`, so the rules and messages are the API's.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { PAYLOAD_VERSIONS } from "@svc/webhooks/sign";
import { AppError } from "../../http/problem.js";
import { sendTestWebhook } from "../../operations/test-webhook.js";
import { EVENT_TYPES } from "../../webhooks/outbox.js";
import { type EndpointInput, type EndpointView, SUBSCRIBABLE } from "../../webhooks/endpoints.service.js";
import {
  type DashboardContext,
  DashboardError,
  formOf,
  redirectWithFlash,
  render,
  sessionOf,
  pathParam,
} from "../context.js";
import {
  badge,
  checkbox,
  errorSummary,
  esc,
  field,
  PAGE_PERMISSIONS,
  postForm,
  selectField,
  time,
} from "../html.js";

const ID = /^we_[a-z2-7]{1,40}$/;
const BASE = "/dashboard/webhooks/endpoints";

/** A field's label, for messages that name it. */
const LABELS: Record<string, string> = {
  url: "URL",
  description: "Description",
  event_types: "Events",
  headers: "Custom headers",
  payload_version: "Payload version",
};

function statusOf(e: EndpointView): string {
  if (!e.enabled) return e.disabled_reason === "failing" ? "disabled (failing)" : "disabled";
  return e.failing_since ? "failing" : "enabled";
}

function eventsText(types: string[]): string {
  return types[0] === "*" ? "All events" : types.join(", ");
}

/** "Name: value" lines into headers; the API's validation then names each bad one. */
export function parseHeaders(text: string): { headers: Record<string, string> } | { error: string } {
  const headers: Record<string, string> = {};
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) return { error: `Custom headers: line ${i + 1} must be "Name: value".` };
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { headers };
}

function inputOf(
  form: Record<string, string>,
  editing: boolean,
): { input: EndpointInput } | { error: string } {
  const parsed = parseHeaders(form.headers ?? "");
  if ("error" in parsed) return parsed;
  const all = form.event_all === "on";
  return {
    input: {
      url: (form.url ?? "").trim(),
      description: (form.description ?? "").trim(),
      event_types: all ? ["*"] : SUBSCRIBABLE.filter((t) => form[`event_${t}`] === "on"),
      headers: parsed.headers,
      include_metadata: form.include_metadata === "on",
      ...(form.payload_version ? { payload_version: form.payload_version } : {}),
      ...(editing ? { enabled: form.enabled === "on" } : {}),
    },
  };
}

/** The API's field errors as "Label: message" lines, and per field for the inputs. */
function errorsOf(error: AppError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, msgs] of Object.entries(error.errors ?? {})) {
    const key = k.startsWith("headers.") ? "headers" : k;
    const label = k.startsWith("headers.") ? `Custom header ${k.slice(8)}` : (LABELS[k] ?? k);
    out[key] = out[key] ? `${out[key]} ${label}: ${msgs[0]}` : `${label}: ${msgs[0]}`;
  }
  return out;
}

async function listPage(ctx: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  const session = sessionOf(request);
  const endpoints = await ctx.services().endpoints.list(session.merchantId);
  const rows = endpoints
    .map((e) => {
      const title = e.editable
        ? e.description
        : e.kind === "general"
          ? "General configuration"
          : `Plugin ${e.id.slice(7).replace("_", " ")}`;
      const href = e.editable ? `${BASE}/${esc(e.id)}` : "/dashboard/webhooks";
      // Named by its description when it has one; else the URL is the link.
      const name = title
        ? `<a href="${href}">${esc(title)}</a><br><code class="url">${esc(e.url)}</code>`
        : `<a href="${href}"><code class="url">${esc(e.url)}</code></a>`;
      return `<tr><td data-label="Endpoint">${name}</td><td data-label="Events">${esc(eventsText(e.event_types))}</td><td data-label="Status">${badge(statusOf(e))}${e.last_error && e.failing_since ? `<br><span class="hint">${esc(e.last_error.slice(0, 120))}</span>` : ""}</td><td data-label="Version">${esc(e.payload_version)}</td></tr>`;
    })
    .join("");
  const table = endpoints.length
    ? `<table class="stack"><caption>Where your webhooks go</caption><thead><tr><th scope="col">Endpoint</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Version</th></tr></thead><tbody>${rows}</tbody></table>`
    : `<p>No endpoints yet. Add one to receive payment and operation events at a URL of yours.</p>`;
  return render(
    ctx,
    request,
    reply,
    { title: "Webhook endpoints", current: "webhooks" },
    `<p class="actions"><a class="button" href="${BASE}/new">Add endpoint</a></p>
<p class="hint">The general operations URL and the plugin URLs are set in <a href="/dashboard/webhooks">Webhook settings</a>; they are listed here too. An endpoint of yours gets the event types you choose, with your own headers.</p>
${table}`,
  );
}

async function formPage(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  endpoint: EndpointView | undefined,
  shown: { values?: Record<string, string>; errors?: Record<string, string>; missed?: number } = {},
  status = 200,
) {
  const session = sessionOf(request);
  const v = shown.values;
  const e = shown.errors ?? {};
  const types = endpoint?.event_types ?? ["*"];
  const checked = (name: string, fallback: boolean) => (v ? v[name] === "on" : fallback);
  const events = `<fieldset${e.event_types ? ' aria-describedby="f-events-error" aria-invalid="true"' : ""}><legend>Events</legend>
${checkbox({ name: "event_all", label: "All events, including ones added later", checked: checked("event_all", types[0] === "*") })}
${SUBSCRIBABLE.map((t) =>
  checkbox({
    name: `event_${t}`,
    label: t,
    hint: EVENT_TYPES.find((x) => x.type === t)!.description,
    checked: checked(`event_${t}`, types.includes(t)),
  }),
).join(
  "",
)}${e.event_types ? `<p class="field-error" id="f-events-error">${esc(e.event_types)}</p>` : ""}</fieldset>`;
  const headersText =
    v?.headers ??
    Object.entries(endpoint?.headers ?? {})
      .map(([k, val]) => `${k}: ${val}`)
      .join("\n");
  const headersField = `<div class="field"><label for="f-headers">Custom headers</label><p class="hint" id="f-headers-hint">One "Name: value" per line, sent with every request (for example a token your firewall checks). Not the signature headers.</p><textarea id="f-headers" name="headers" rows="3" class="wide" aria-describedby="f-headers-hint${e.headers ? " f-headers-error" : ""}"${e.headers ? ' aria-invalid="true"' : ""}>${esc(headersText)}</textarea>${e.headers ? `<p class="field-error" id="f-headers-error">${esc(e.headers)}</p>` : ""}</div>`;
  const action = endpoint ? `${BASE}/${endpoint.id}` : BASE;
  const form = postForm(
    action,
    session.csrfToken,
    `${field({ name: "url", label: "URL", type: "url", value: v?.url ?? endpoint?.url ?? "", error: e.url, input: { class: "wide", required: true, placeholder: "https://shop.example.com/webhooks/svc" } })}
${field({ name: "description", label: "Description (optional)", value: v?.description ?? endpoint?.description ?? "", error: e.description, input: { class: "wide", maxlength: "200" } })}
${events}
${headersField}
${checkbox({ name: "include_metadata", label: "Add the payment's metadata to operation webhooks", checked: checked("include_metadata", endpoint?.include_metadata ?? false), hint: "Payment events always carry it. The operation webhook's fields are fixed by the contract, so it is added only where you ask." })}
${selectField({ name: "payload_version", label: "Payload version", value: v?.payload_version ?? endpoint?.payload_version ?? PAYLOAD_VERSIONS[PAYLOAD_VERSIONS.length - 1], options: PAYLOAD_VERSIONS.map((p) => ({ value: p, text: p })), error: e.payload_version })}
${endpoint ? checkbox({ name: "enabled", label: "Enabled: send webhooks to this endpoint", checked: checked("enabled", endpoint.enabled), hint: "Off: nothing is sent; what it misses is kept, and can be replayed when you turn it on again." }) : ""}
<button type="submit">${endpoint ? "Save endpoint" : "Add endpoint"}</button>`,
  );
  const health = endpoint
    ? `<section aria-labelledby="health-h"><h2 id="health-h">Health</h2><dl class="facts"><dt>Status</dt><dd>${badge(statusOf(endpoint))}</dd><dt>Failing since</dt><dd>${time(endpoint.failing_since)}</dd><dt>Last error</dt><dd>${esc(endpoint.last_error ?? "—")}</dd><dt>Disabled</dt><dd>${time(endpoint.disabled_at)}</dd></dl>
${
  shown.missed && endpoint.enabled
    ? `<div class="notice" role="status"><p>${shown.missed === 1 ? "1 delivery to this endpoint was" : `${shown.missed} deliveries to this endpoint were`} not received while it was failing or disabled.</p>${postForm(`${BASE}/${endpoint.id}/replay`, session.csrfToken, `<button type="submit">Replay ${shown.missed} missed ${shown.missed === 1 ? "delivery" : "deliveries"} to ${esc(endpoint.url)}</button>`)}</div>`
    : ""
}
${endpoint.enabled ? postForm(`${BASE}/${endpoint.id}/test`, session.csrfToken, `<button type="submit" class="secondary">Send a test webhook to this endpoint</button>`) : ""}
<p><a href="/dashboard/deliveries">Delivery log</a></p></section>
<section aria-labelledby="del-h"><h2 id="del-h">Delete</h2>${postForm(`${BASE}/${endpoint.id}/delete`, session.csrfToken, `<button type="submit" class="danger">Delete this endpoint…</button>`)}</section>`
    : "";
  return render(
    ctx,
    request,
    reply,
    { title: endpoint ? "Webhook endpoint" : "Add a webhook endpoint", current: "webhooks" },
    `${errorSummary(Object.values(e))}<p><a href="${BASE}">All endpoints</a></p>${form}${health}`,
    status,
  );
}

export function endpointPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.webhooks } };
  const idOf = (request: FastifyRequest) => {
    const id = pathParam(request, "id");
    if (!ID.test(id)) throw new DashboardError(404, "Not found", "There is no such webhook endpoint.");
    return id;
  };
  const load = async (request: FastifyRequest) => {
    try {
      return await ctx.services().endpoints.get(sessionOf(request).merchantId, idOf(request));
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found")
        throw new DashboardError(404, "Not found", "There is no such webhook endpoint.");
      throw error;
    }
  };
  const missedOf = async (request: FastifyRequest, endpoint: EndpointView) =>
    endpoint.enabled
      ? (await ctx.services().endpoints.missed(sessionOf(request).merchantId, endpoint.id)).failed
      : 0;

  scope.get("/webhooks/endpoints", { config }, async (request, reply) => listPage(ctx, request, reply));
  scope.get("/webhooks/endpoints/new", { config }, async (request, reply) =>
    formPage(ctx, request, reply, undefined),
  );
  scope.get("/webhooks/endpoints/:id", { config }, async (request, reply) => {
    const endpoint = await load(request);
    return formPage(ctx, request, reply, endpoint, { missed: await missedOf(request, endpoint) });
  });

  scope.post("/webhooks/endpoints", { config }, async (request, reply) => {
    const form = formOf(request);
    const parsed = inputOf(form, false);
    if ("error" in parsed)
      return formPage(
        ctx,
        request,
        reply,
        undefined,
        { values: form, errors: { headers: parsed.error } },
        422,
      );
    try {
      const created = await ctx.services().endpoints.create(sessionOf(request).merchantId, parsed.input);
      return redirectWithFlash(ctx, request, reply, `${BASE}/${created.id}`, {
        kind: "success",
        text: `Endpoint added: ${created.url} gets ${eventsText(created.event_types).toLowerCase()} from the next event on.`,
      });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const errors = error.errors ? errorsOf(error) : { url: error.message };
      return formPage(ctx, request, reply, undefined, { values: form, errors }, 422);
    }
  });

  scope.post("/webhooks/endpoints/:id", { config }, async (request, reply) => {
    const endpoint = await load(request);
    const form = formOf(request);
    const parsed = inputOf(form, true);
    if ("error" in parsed)
      return formPage(
        ctx,
        request,
        reply,
        endpoint,
        { values: form, errors: { headers: parsed.error } },
        422,
      );
    try {
      const saved = await ctx
        .services()
        .endpoints.update(sessionOf(request).merchantId, endpoint.id, parsed.input);
      const n = saved.missed?.failed ?? 0;
      const text = saved.missed
        ? `Endpoint enabled. It missed ${n} ${n === 1 ? "delivery" : "deliveries"} since ${saved.missed.since.slice(0, 19).replace("T", " ")} UTC${n > 0 ? `: replay ${n === 1 ? "it" : "them"} below` : ""}.`
        : saved.enabled
          ? "Endpoint saved. Changes apply from the next event."
          : "Endpoint saved and disabled: nothing is sent to it until you enable it again.";
      return redirectWithFlash(ctx, request, reply, `${BASE}/${endpoint.id}`, { kind: "success", text });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const errors = error.errors ? errorsOf(error) : { url: error.message };
      return formPage(ctx, request, reply, endpoint, { values: form, errors }, 422);
    }
  });

  scope.post("/webhooks/endpoints/:id/test", { config }, async (request, reply) => {
    const endpoint = await load(request);
    const session = sessionOf(request);
    const { db, outbox } = ctx.services();
    try {
      const sent = await sendTestWebhook(db, outbox, session.merchantId, {
        initiator: session.user,
        now: ctx.now(),
        endpointId: endpoint.id,
      });
      return redirectWithFlash(ctx, request, reply, `${BASE}/${endpoint.id}`, {
        kind: sent.messageId ? "success" : "error",
        text: sent.messageId
          ? `Test webhook queued for ${endpoint.url}. Its attempts are in the delivery log.`
          : "Nothing was sent: the merchant has no signing secret.",
      });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return redirectWithFlash(ctx, request, reply, `${BASE}/${endpoint.id}`, {
        kind: "error",
        text: error.message,
      });
    }
  });

  scope.post("/webhooks/endpoints/:id/delete", { config }, async (request, reply) => {
    const endpoint = await load(request);
    const session = sessionOf(request);
    if (formOf(request).confirm !== "yes")
      return render(
        ctx,
        request,
        reply,
        { title: "Delete this endpoint?", current: "webhooks" },
        `<div class="notice" role="alert"><p>${esc(endpoint.url)} will get no more webhooks, and what is still waiting for it is given up. This cannot be undone.</p></div>
${postForm(`${BASE}/${endpoint.id}/delete`, session.csrfToken, `<input type="hidden" name="confirm" value="yes"><p class="actions"><button type="submit" class="danger">Delete endpoint</button> <a href="${BASE}/${esc(endpoint.id)}">Keep it</a></p>`)}`,
      );
    await ctx.services().endpoints.remove(session.merchantId, endpoint.id);
    return redirectWithFlash(ctx, request, reply, BASE, {
      kind: "success",
      text: `Endpoint ${endpoint.url} deleted.`,
    });
  });

  scope.post("/webhooks/endpoints/:id/replay", { config }, async (request, reply) => {
    const endpoint = await load(request);
    try {
      const result = await ctx.services().endpoints.replay(sessionOf(request).merchantId, endpoint.id);
      return redirectWithFlash(ctx, request, reply, `${BASE}/${endpoint.id}`, {
        kind: "success",
        text: `${result.replayed} ${result.replayed === 1 ? "delivery" : "deliveries"} queued again for ${endpoint.url}. Follow them in the delivery log.`,
      });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return redirectWithFlash(ctx, request, reply, `${BASE}/${endpoint.id}`, {
        kind: "error",
        text: error.message,
      });
    }
  });
}

/**
 * The banner every dashboard page shows while an endpoint of the merchant is disabled for failing
 * (the merchant would otherwise learn it only by missing webhooks).
 */
export function disabledBanner(endpoints: { id: string; url: string; disabled_at: string | null }[]): string {
  if (endpoints.length === 0) return "";
  const list = endpoints
    .slice(0, 3)
    .map((e) => `<a href="${BASE}/${esc(e.id)}">${esc(e.url)}</a>`)
    .join(", ");
  return `<div class="notice error" role="alert"><p><strong>${endpoints.length === 1 ? "A webhook endpoint was disabled" : `${endpoints.length} webhook endpoints were disabled`}</strong> because every delivery to ${endpoints.length === 1 ? "it" : "them"} failed for days: ${list}${endpoints.length > 3 ? ", …" : ""}. Fix the receiver, then enable it and replay what it missed.</p></div>`;
}
