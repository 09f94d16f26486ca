/**
 * Webhook settings: the general configuration, the payment webhook plugin per transaction type,
 * the signing secret (reveal, rotate) and "send test webhook". Secrets are shown only in the
 * response to the POST that asked for them, never in a link, a flash or a GET.
 */
import { TRANSACTION_TYPES, type TransactionType } from "@svc/protocol";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../../http/problem.js";
import { settingsRepo } from "../../webhooks/settings.repo.js";
import {
  type DashboardContext,
  formOf,
  redirectWithFlash,
  render,
  sessionOf,
  pathParam,
} from "../context.js";
import { checkbox, errorSummary, esc, field, PAGE_PERMISSIONS, postForm } from "../html.js";
import { sendTestWebhook } from "../../operations/test-webhook.js";

const TYPE_LABEL: Record<TransactionType, string> = {
  e_commerce: "E-commerce",
  payment_request: "Payment request",
};

interface Shown {
  secrets?: string[];
  rotated?: { secret: string; previous_secret_expires_at: string };
  errors?: Record<string, string>;
  values?: Record<string, string>;
}

async function settingsPage(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  shown: Shown = {},
  status = 200,
) {
  const session = sessionOf(request);
  const { webhookSettings } = ctx.services();
  const config = await webhookSettings.config(session.merchantId);
  const plugins = await Promise.all(
    TRANSACTION_TYPES.map((t) => webhookSettings.plugin(session.merchantId, t)),
  );
  const v = shown.values ?? {};
  const e = shown.errors ?? {};
  const general = postForm(
    "/dashboard/webhooks/config",
    session.csrfToken,
    `${checkbox({ name: "enabled", label: "Send webhooks", checked: v.enabled !== undefined ? v.enabled === "on" : config.enabled, hint: "Off stops every operation and payment webhook." })}
${field({ name: "operations_webhook_url", label: "Operations webhook URL", type: "url", value: v.operations_webhook_url ?? config.operations_webhook_url ?? "", error: e.operations_webhook_url, input: { class: "wide", placeholder: "https://shop.example.com/webhooks/svc" } })}
${checkbox({ name: "notify_api_initiated", label: "Enable webhook notifications if transaction initiated from API", checked: v.notify_api_initiated !== undefined ? v.notify_api_initiated === "on" : config.notify_api_initiated })}
${field({ name: "timeout_seconds", label: "Timeout (seconds)", type: "number", value: v.timeout_seconds ?? String(config.timeout_seconds), hint: "1 to 30 seconds.", error: e.timeout_seconds, input: { min: "1", max: "30", required: true } })}
${field({ name: "retry_schedule_seconds", label: "Retries (seconds after each failed try)", value: v.retry_schedule_seconds ?? config.retry_schedule_seconds.join(", "), hint: "Comma-separated delays; one retry per number. Empty: no retries.", error: e.retry_schedule_seconds, input: { class: "wide" } })}
<button type="submit">Save general configuration</button>`,
  );
  const pluginForms = plugins
    .map((p) =>
      postForm(
        `/dashboard/webhooks/plugins/${p.type}`,
        session.csrfToken,
        `<h3>${esc(TYPE_LABEL[p.type])}</h3>${checkbox({ name: `${p.type}_enabled`, label: `Send ${TYPE_LABEL[p.type].toLowerCase()} webhooks to this URL`, checked: p.enabled })}
${field({ name: `${p.type}_webhook_url`, label: `${TYPE_LABEL[p.type]} webhook URL`, type: "url", value: p.webhook_url ?? "", error: e[`${p.type}_webhook_url`], input: { class: "wide" } })}
<button type="submit">Save ${esc(TYPE_LABEL[p.type].toLowerCase())} plugin</button>`,
        "panel",
      ),
    )
    .join("");
  const secretShown = shown.rotated
    ? `<div class="notice success" role="status"><p>New signing secret (the previous one keeps signing until ${esc(shown.rotated.previous_secret_expires_at)}):</p><p class="actions"><code class="secret" id="secret" data-copy="signing secret">${esc(shown.rotated.secret)}</code></p></div>`
    : shown.secrets
      ? `<div class="notice" role="status"><p>Signing secrets in use, newest first:</p>${shown.secrets.map((s, i) => `<p class="actions"><code class="secret" id="secret-${i}" data-copy="signing secret">${esc(s)}</code></p>`).join("")}</div>`
      : "";
  const body = `${errorSummary(Object.values(e))}
<p class="actions"><a class="button" href="/dashboard/webhooks/endpoints">Endpoints</a> <span class="hint">More URLs of your own, each with the events it wants and custom headers.</span></p>
<section aria-labelledby="gen-h"><h2 id="gen-h">General configuration</h2>${general}</section>
<section aria-labelledby="plug-h"><h2 id="plug-h">Payment webhook plugins</h2><p class="hint">Per transaction type. Operation webhooks go to the general URL and to the plugin URL of the payment's type.</p>${pluginForms}</section>
<section aria-labelledby="sec-h"><h2 id="sec-h">Signing secret</h2>${secretShown}<div class="actions">${postForm("/dashboard/webhooks/secret/reveal", session.csrfToken, '<button type="submit" class="secondary">Reveal signing secret</button>', "inline")}${postForm("/dashboard/webhooks/secret/rotate", session.csrfToken, '<button type="submit" class="danger">Rotate signing secret…</button>', "inline")}</div></section>
<section aria-labelledby="test-h"><h2 id="test-h">Test</h2><p>Sends a sample refund webhook, signed like a real one, to every URL above and every enabled endpoint.</p>${postForm("/dashboard/webhooks/test", session.csrfToken, '<button type="submit">Send test webhook</button>')}</section>`;
  return render(ctx, request, reply, { title: "Webhook settings", current: "webhooks" }, body, status);
}

/** Parses "5, 300, 1800" into seconds; undefined when a part is not a whole number. */
export function parseSchedule(text: string): number[] | undefined {
  const parts = text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (!parts.every((p) => /^\d{1,9}$/.test(p))) return undefined;
  return parts.map(Number);
}

export function webhookPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.webhooks } };

  scope.get("/webhooks", { config }, async (request, reply) => settingsPage(ctx, request, reply));

  scope.post("/webhooks/config", { config }, async (request, reply) => {
    const form = formOf(request);
    const values = {
      ...form,
      enabled: form.enabled ?? "off",
      notify_api_initiated: form.notify_api_initiated ?? "off",
    };
    const errors: Record<string, string> = {};
    const timeout = Number(form.timeout_seconds);
    if (!Number.isInteger(timeout) || timeout < 1 || timeout > 30)
      errors.timeout_seconds = "Timeout: enter a whole number of seconds from 1 to 30.";
    const schedule = parseSchedule(form.retry_schedule_seconds ?? "");
    if (!schedule)
      errors.retry_schedule_seconds = "Retries: enter whole numbers of seconds separated by commas.";
    if (Object.keys(errors).length) return settingsPage(ctx, request, reply, { errors, values }, 422);
    try {
      await ctx.services().webhookSettings.updateConfig(sessionOf(request).merchantId, {
        enabled: form.enabled === "on",
        operations_webhook_url: (form.operations_webhook_url ?? "").trim() || null,
        notify_api_initiated: form.notify_api_initiated === "on",
        timeout_seconds: timeout,
        retry_schedule_seconds: schedule!,
      });
    } catch (error) {
      if (!(error instanceof AppError) || !error.errors) throw error;
      for (const [k, msgs] of Object.entries(error.errors))
        errors[k] = `${k === "operations_webhook_url" ? "Operations webhook URL" : "Retries"}: ${msgs[0]}`;
      return settingsPage(ctx, request, reply, { errors, values }, 422);
    }
    return redirectWithFlash(ctx, request, reply, "/dashboard/webhooks", {
      kind: "success",
      text: "General webhook configuration saved. It applies to the next operation.",
    });
  });

  scope.post("/webhooks/plugins/:type", { config }, async (request, reply) => {
    const type = pathParam(request, "type") as TransactionType;
    if (!TRANSACTION_TYPES.includes(type)) throw new AppError("not_found", "There is no such plugin type.");
    const form = formOf(request);
    const url = (form[`${type}_webhook_url`] ?? "").trim();
    try {
      await ctx.services().webhookSettings.updatePlugin(sessionOf(request).merchantId, type, {
        webhook_url: url || null,
        enabled: form[`${type}_enabled`] === "on",
      });
    } catch (error) {
      if (!(error instanceof AppError) || !error.errors) throw error;
      const message = `${TYPE_LABEL[type]} webhook URL: ${Object.values(error.errors)[0]?.[0]}`;
      return settingsPage(ctx, request, reply, { errors: { [`${type}_webhook_url`]: message } }, 422);
    }
    return redirectWithFlash(ctx, request, reply, "/dashboard/webhooks", {
      kind: "success",
      text: `${TYPE_LABEL[type]} plugin saved.`,
    });
  });

  scope.post("/webhooks/secret/reveal", { config }, async (request, reply) => {
    const secrets = await settingsRepo.secrets(ctx.services().db, sessionOf(request).merchantId);
    return settingsPage(ctx, request, reply, { secrets });
  });

  scope.post("/webhooks/secret/rotate", { config }, async (request, reply) => {
    // Receivers must move to the new secret within 24 h: only after a confirmation.
    if (formOf(request).confirm !== "yes")
      return render(
        ctx,
        request,
        reply,
        { title: "Rotate the signing secret?", current: "webhooks" },
        `<div class="notice" role="status"><p class="lead"><strong>Make a new webhook signing secret.</strong></p><p>Every webhook is signed with both the new and the current secret for 24 hours; after that the current one stops signing. Put the new secret in every receiver within 24 hours, or they will refuse svc's webhooks. Rotate when a secret may have leaked.</p></div>
${postForm("/dashboard/webhooks/secret/rotate", sessionOf(request).csrfToken, `<input type="hidden" name="confirm" value="yes"><p class="actions"><button type="submit" class="danger">Rotate signing secret</button> <a href="/dashboard/webhooks">Cancel, keep the current one</a></p>`)}`,
      );
    const rotated = await ctx.services().webhookSettings.rotateSecret(sessionOf(request).merchantId);
    return settingsPage(ctx, request, reply, { rotated });
  });

  scope.post("/webhooks/test", { config }, async (request, reply) => {
    const session = sessionOf(request);
    const { db, outbox } = ctx.services();
    const sent = await sendTestWebhook(db, outbox, session.merchantId, {
      initiator: session.user,
      now: ctx.now(),
    });
    if (!sent.messageId)
      return redirectWithFlash(ctx, request, reply, "/dashboard/webhooks", {
        kind: "error",
        text: "No webhook URL is configured: set the operations webhook URL or a plugin URL first.",
      });
    // Straight to the test message in the log, where its attempts show.
    const message = await ctx.services().messages.get(session.merchantId, sent.messageId);
    return redirectWithFlash(
      ctx,
      request,
      reply,
      `/dashboard/deliveries?session_id=${encodeURIComponent(message.session_id)}`,
      {
        kind: "success",
        text: `Test webhook queued for ${sent.urls.join(" and ")}. Its attempts are below.`,
      },
    );
  });
}
