/** @jsxImportSource preact */
/**
 * Webhook settings: the general configuration, the payment webhook plugin per transaction type,
 * the signing secret (reveal, rotate) and "send test webhook". Secrets are shown only in the
 * response to the POST that asked for them, never in a link, a flash or a GET. English and Arabic
 * (a URL the settings service refuses is explained in its own words, English).
 */
import { TRANSACTION_TYPES, type TransactionType } from "@svc/protocol";
import { auditDone } from "../../audit/audit.js";
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
import { sendTestWebhook } from "../../operations/test-webhook.js";
import { type DashboardLanguage, dashboardLanguage, format, isolate, messages } from "../i18n.js";
import { label } from "../labels.js";
import { Checkbox, ErrorSummary, Field, PAGE_PERMISSIONS, PostForm } from "../ui.js";

const WORDS = {
  en: {
    title: "Webhook settings",
    endpoints: "Endpoints",
    endpoints_hint: "More URLs of your own, each with the events it wants and custom headers.",
    general: "General configuration",
    send: "Send webhooks",
    send_hint: "Off stops every operation and payment webhook.",
    ops_url: "Operations webhook URL",
    notify_api: "Enable webhook notifications if transaction initiated from API",
    timeout: "Timeout (seconds)",
    timeout_hint: "1 to 30 seconds.",
    retries: "Retries (seconds after each failed try)",
    retries_hint: "Comma-separated delays; one retry per number. Empty: no retries.",
    save_general: "Save general configuration",
    plugins: "Payment webhook plugins",
    plugins_hint:
      "Per transaction type. Operation webhooks go to the general URL and to the plugin URL of the payment's type.",
    plugin_send: "Send {type} webhooks to this URL",
    plugin_url: "{Type} webhook URL",
    plugin_save: "Save {type} plugin",
    secret: "Signing secret",
    secret_copy: "signing secret",
    rotated: "New signing secret (the previous one keeps signing until {until}):",
    in_use: "Signing secrets in use, newest first:",
    reveal: "Reveal signing secret",
    rotate: "Rotate signing secret…",
    test: "Test",
    test_hint:
      "Sends a sample refund webhook, signed like a real one, to every URL above and every enabled endpoint.",
    test_send: "Send test webhook",
    err_timeout: "Timeout: enter a whole number of seconds from 1 to 30.",
    err_retries: "Retries: enter whole numbers of seconds separated by commas.",
    err_field: "{field}: {message}",
    saved: "General webhook configuration saved. It applies to the next operation.",
    plugin_saved: "{Type} plugin saved.",
    saved_moved_one:
      "General webhook configuration saved. 1 delivery still waiting for the old URL goes to the new one now; the rest applies to the next operation.",
    saved_moved_many:
      "General webhook configuration saved. {n} deliveries still waiting for the old URL go to the new one now; the rest applies to the next operation.",
    plugin_saved_moved_one:
      "{Type} plugin saved. 1 delivery still waiting for its old URL goes to the new one now.",
    plugin_saved_moved_many:
      "{Type} plugin saved. {n} deliveries still waiting for its old URL go to the new one now.",
    rotate_title: "Rotate the signing secret?",
    rotate_what: "Make a new webhook signing secret.",
    rotate_effect:
      "Every webhook is signed with both the new and the current secret for 24 hours; after that the current one stops signing. Put the new secret in every receiver within 24 hours, or they will refuse svc's webhooks. Rotate when a secret may have leaked.",
    rotate_button: "Rotate signing secret",
    rotate_keep: "Cancel, keep the current one",
    no_url: "No webhook URL is configured: set the operations webhook URL or a plugin URL first.",
    test_queued: "Test webhook queued for {urls}. Its attempts are below.",
    and: " and ",
  },
  ar: {
    title: "إعدادات الويب هوك",
    endpoints: "النقاط",
    endpoints_hint: "عناوين أخرى خاصة بك، لكلٍّ منها الأحداث التي يريدها وترويسات مخصصة.",
    general: "الإعدادات العامة",
    send: "إرسال الويب هوك",
    send_hint: "إيقافه يوقف كل ويب هوك للعمليات والمدفوعات.",
    ops_url: "عنوان ويب هوك العمليات",
    notify_api: "تفعيل إشعارات الويب هوك إذا بدأت المعاملة من واجهة البرمجة",
    timeout: "المهلة (بالثواني)",
    timeout_hint: "من 1 إلى 30 ثانية.",
    retries: "إعادة المحاولة (ثوانٍ بعد كل محاولة فاشلة)",
    retries_hint: "مهلات تفصل بينها فواصل؛ إعادة محاولة لكل رقم. فارغ: بلا إعادة.",
    save_general: "حفظ الإعدادات العامة",
    plugins: "إضافات ويب هوك المدفوعات",
    plugins_hint: "لكل نوع معاملة. يذهب ويب هوك العمليات إلى العنوان العام وإلى عنوان إضافة نوع الدفعة.",
    plugin_send: "إرسال ويب هوك {type} إلى هذا العنوان",
    plugin_url: "عنوان ويب هوك {Type}",
    plugin_save: "حفظ إضافة {type}",
    secret: "السر الموقِّع",
    secret_copy: "السر الموقِّع",
    rotated: "السر الموقِّع الجديد (يبقى السابق يوقّع حتى {until}):",
    in_use: "الأسرار الموقِّعة المستخدمة، الأحدث أولاً:",
    reveal: "كشف السر الموقِّع",
    rotate: "تبديل السر الموقِّع…",
    test: "تجربة",
    test_hint: "يرسل ويب هوك استرداد تجريبيًا، موقّعًا كأي ويب هوك حقيقي، إلى كل عنوان أعلاه وكل نقطة مفعّلة.",
    test_send: "إرسال ويب هوك تجريبي",
    err_timeout: "المهلة: أدخل عددًا صحيحًا من الثواني من 1 إلى 30.",
    err_retries: "إعادة المحاولة: أدخل أعدادًا صحيحة من الثواني تفصل بينها فواصل.",
    err_field: "{field}: {message}",
    saved: "حُفظت الإعدادات العامة للويب هوك. تُطبَّق على العملية التالية.",
    plugin_saved: "حُفظت إضافة {Type}.",
    saved_moved_one:
      "حُفظت الإعدادات العامة للويب هوك. عملية تسليم واحدة كانت تنتظر العنوان القديم تذهب الآن إلى العنوان الجديد، وسائر الإعدادات تُطبَّق على العملية التالية.",
    saved_moved_many:
      "حُفظت الإعدادات العامة للويب هوك. {n} من عمليات التسليم التي كانت تنتظر العنوان القديم تذهب الآن إلى العنوان الجديد، وسائر الإعدادات تُطبَّق على العملية التالية.",
    plugin_saved_moved_one:
      "حُفظت إضافة {Type}. عملية تسليم واحدة كانت تنتظر عنوانها القديم تذهب الآن إلى العنوان الجديد.",
    plugin_saved_moved_many:
      "حُفظت إضافة {Type}. {n} من عمليات التسليم التي كانت تنتظر عنوانها القديم تذهب الآن إلى العنوان الجديد.",
    rotate_title: "تبديل السر الموقِّع؟",
    rotate_what: "إنشاء سر موقِّع جديد للويب هوك.",
    rotate_effect:
      "يُوقَّع كل ويب هوك بالسر الجديد والسر الحالي معًا لمدة 24 ساعة، ثم يتوقف الحالي عن التوقيع. ضع السر الجديد في كل مستقبِل خلال 24 ساعة، وإلا رفضت ويب هوك svc. بدّل السر إن احتمل أنه تسرّب.",
    rotate_button: "تبديل السر الموقِّع",
    rotate_keep: "إلغاء، مع الإبقاء على الحالي",
    no_url: "لم يُضبط أي عنوان ويب هوك: اضبط عنوان ويب هوك العمليات أو عنوان إضافة أولاً.",
    test_queued: "أُرسل ويب هوك تجريبي إلى الانتظار لـ {urls}. تظهر محاولاته أدناه.",
    and: " و",
  },
} satisfies Record<DashboardLanguage, Record<string, string>>;

type Words = (typeof WORDS)["en"];
const wordsOf = (request: FastifyRequest) => WORDS[dashboardLanguage(request)];
/** A transaction type's name: as a title ("E-commerce") and inside a sentence ("e-commerce"). */
function typeName(lang: DashboardLanguage, type: TransactionType) {
  const title = label(type, lang);
  return { Type: title, type: lang === "en" ? title.toLowerCase() : title };
}

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
  const lang = dashboardLanguage(request);
  const w: Words = WORDS[lang];
  return render(
    ctx,
    request,
    reply,
    { title: w.title, current: "webhooks", translated: true },
    <>
      <ErrorSummary heading={messages(lang).there_is_a_problem} messages={Object.values(e)} />
      <p class="actions">
        <a class="button" href="/dashboard/webhooks/endpoints">
          {w.endpoints}
        </a>{" "}
        <span class="hint">{w.endpoints_hint}</span>
      </p>
      <section aria-labelledby="gen-h">
        <h2 id="gen-h">{w.general}</h2>
        <PostForm action="/dashboard/webhooks/config" csrf={session.csrfToken}>
          <Checkbox
            name="enabled"
            label={w.send}
            checked={v.enabled !== undefined ? v.enabled === "on" : config.enabled}
            hint={w.send_hint}
          />
          <Field
            name="operations_webhook_url"
            label={w.ops_url}
            type="url"
            value={v.operations_webhook_url ?? config.operations_webhook_url ?? ""}
            error={e.operations_webhook_url}
            input={{ class: "wide", placeholder: "https://shop.example.com/webhooks/svc", dir: "ltr" }}
          />
          <Checkbox
            name="notify_api_initiated"
            label={w.notify_api}
            checked={
              v.notify_api_initiated !== undefined
                ? v.notify_api_initiated === "on"
                : config.notify_api_initiated
            }
          />
          <Field
            name="timeout_seconds"
            label={w.timeout}
            type="number"
            value={v.timeout_seconds ?? String(config.timeout_seconds)}
            hint={w.timeout_hint}
            error={e.timeout_seconds}
            input={{ min: "1", max: "30", required: true }}
          />
          <Field
            name="retry_schedule_seconds"
            label={w.retries}
            value={v.retry_schedule_seconds ?? config.retry_schedule_seconds.join(", ")}
            hint={w.retries_hint}
            error={e.retry_schedule_seconds}
            input={{ class: "wide", dir: "ltr" }}
          />
          <button type="submit">{w.save_general}</button>
        </PostForm>
      </section>
      <section aria-labelledby="plug-h">
        <h2 id="plug-h">{w.plugins}</h2>
        <p class="hint">{w.plugins_hint}</p>
        {plugins.map((p) => {
          const names = typeName(lang, p.type);
          return (
            <PostForm action={`/dashboard/webhooks/plugins/${p.type}`} csrf={session.csrfToken} class="panel">
              <h3>{names.Type}</h3>
              <Checkbox name={`${p.type}_enabled`} label={format(w.plugin_send, names)} checked={p.enabled} />
              <Field
                name={`${p.type}_webhook_url`}
                label={format(w.plugin_url, names)}
                type="url"
                value={p.webhook_url ?? ""}
                error={e[`${p.type}_webhook_url`]}
                input={{ class: "wide", dir: "ltr" }}
              />
              <button type="submit">{format(w.plugin_save, names)}</button>
            </PostForm>
          );
        })}
      </section>
      <section aria-labelledby="sec-h">
        <h2 id="sec-h">{w.secret}</h2>
        {shown.rotated ? (
          <div class="notice success" role="status">
            <p>{format(w.rotated, { until: isolate(lang, shown.rotated.previous_secret_expires_at) })}</p>
            <p class="actions">
              <code class="secret" id="secret" data-copy={w.secret_copy} dir="ltr">
                {shown.rotated.secret}
              </code>
            </p>
          </div>
        ) : shown.secrets ? (
          <div class="notice" role="status">
            <p>{w.in_use}</p>
            {shown.secrets.map((secret, i) => (
              <p class="actions">
                <code class="secret" id={`secret-${i}`} data-copy={w.secret_copy} dir="ltr">
                  {secret}
                </code>
              </p>
            ))}
          </div>
        ) : null}
        <div class="actions">
          <PostForm action="/dashboard/webhooks/secret/reveal" csrf={session.csrfToken} class="inline">
            <button type="submit" class="secondary">
              {w.reveal}
            </button>
          </PostForm>
          <PostForm action="/dashboard/webhooks/secret/rotate" csrf={session.csrfToken} class="inline">
            <button type="submit" class="danger">
              {w.rotate}
            </button>
          </PostForm>
        </div>
      </section>
      <section aria-labelledby="test-h">
        <h2 id="test-h">{w.test}</h2>
        <p>{w.test_hint}</p>
        <PostForm action="/dashboard/webhooks/test" csrf={session.csrfToken}>
          <button type="submit">{w.test_send}</button>
        </PostForm>
      </section>
    </>,
    status,
  );
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
    const w = wordsOf(request);
    const form = formOf(request);
    const values = {
      ...form,
      enabled: form.enabled ?? "off",
      notify_api_initiated: form.notify_api_initiated ?? "off",
    };
    const errors: Record<string, string> = {};
    const timeout = Number(form.timeout_seconds);
    if (!Number.isInteger(timeout) || timeout < 1 || timeout > 30) errors.timeout_seconds = w.err_timeout;
    const schedule = parseSchedule(form.retry_schedule_seconds ?? "");
    if (!schedule) errors.retry_schedule_seconds = w.err_retries;
    if (Object.keys(errors).length) return settingsPage(ctx, request, reply, { errors, values }, 422);
    let moved = 0;
    try {
      ({ moved = 0 } = await ctx.services().webhookSettings.updateConfig(sessionOf(request).merchantId, {
        enabled: form.enabled === "on",
        operations_webhook_url: (form.operations_webhook_url ?? "").trim() || null,
        notify_api_initiated: form.notify_api_initiated === "on",
        timeout_seconds: timeout,
        retry_schedule_seconds: schedule!,
      }));
      auditDone(request);
    } catch (error) {
      if (!(error instanceof AppError) || !error.errors) throw error;
      for (const [k, msgs] of Object.entries(error.errors))
        errors[k] = format(w.err_field, {
          field: k === "operations_webhook_url" ? w.ops_url : w.retries,
          message: msgs[0] ?? "",
        });
      return settingsPage(ctx, request, reply, { errors, values }, 422);
    }
    return redirectWithFlash(ctx, request, reply, "/dashboard/webhooks", {
      kind: "success",
      text: moved ? format(moved === 1 ? w.saved_moved_one : w.saved_moved_many, { n: moved }) : w.saved,
    });
  });

  scope.post("/webhooks/plugins/:type", { config }, async (request, reply) => {
    const type = pathParam(request, "type") as TransactionType;
    if (!TRANSACTION_TYPES.includes(type)) throw new AppError("not_found", "There is no such plugin type.");
    const form = formOf(request);
    const w = wordsOf(request);
    const names = typeName(dashboardLanguage(request), type);
    const url = (form[`${type}_webhook_url`] ?? "").trim();
    let moved = 0;
    try {
      ({ moved = 0 } = await ctx
        .services()
        .webhookSettings.updatePlugin(sessionOf(request).merchantId, type, {
          webhook_url: url || null,
          enabled: form[`${type}_enabled`] === "on",
        }));
      auditDone(request, { ...(url ? { webhook_url: url } : {}), enabled: form[`${type}_enabled`] === "on" });
    } catch (error) {
      if (!(error instanceof AppError) || !error.errors) throw error;
      const message = format(w.err_field, {
        field: format(w.plugin_url, names),
        message: Object.values(error.errors)[0]?.[0] ?? "",
      });
      return settingsPage(ctx, request, reply, { errors: { [`${type}_webhook_url`]: message } }, 422);
    }
    return redirectWithFlash(ctx, request, reply, "/dashboard/webhooks", {
      kind: "success",
      text: moved
        ? format(moved === 1 ? w.plugin_saved_moved_one : w.plugin_saved_moved_many, { ...names, n: moved })
        : format(w.plugin_saved, names),
    });
  });

  scope.post("/webhooks/secret/reveal", { config }, async (request, reply) => {
    const secrets = await settingsRepo.secrets(ctx.services().db, sessionOf(request).merchantId);
    auditDone(request);
    return settingsPage(ctx, request, reply, { secrets });
  });

  scope.post("/webhooks/secret/rotate", { config }, async (request, reply) => {
    // Receivers must move to the new secret within 24 h: only after a confirmation.
    if (formOf(request).confirm !== "yes") {
      const w = wordsOf(request);
      return render(
        ctx,
        request,
        reply,
        { title: w.rotate_title, current: "webhooks", translated: true },
        <>
          <div class="notice" role="status">
            <p class="lead">
              <strong>{w.rotate_what}</strong>
            </p>
            <p>{w.rotate_effect}</p>
          </div>
          <PostForm action="/dashboard/webhooks/secret/rotate" csrf={sessionOf(request).csrfToken}>
            <input type="hidden" name="confirm" value="yes" />
            <p class="actions">
              <button type="submit" class="danger">
                {w.rotate_button}
              </button>{" "}
              <a href="/dashboard/webhooks">{w.rotate_keep}</a>
            </p>
          </PostForm>
        </>,
      );
    }
    const rotated = await ctx.services().webhookSettings.rotateSecret(sessionOf(request).merchantId);
    auditDone(request);
    return settingsPage(ctx, request, reply, { rotated });
  });

  scope.post("/webhooks/test", { config }, async (request, reply) => {
    const session = sessionOf(request);
    const w = wordsOf(request);
    const lang = dashboardLanguage(request);
    const { db, outbox } = ctx.services();
    const sent = await sendTestWebhook(db, outbox, session.merchantId, {
      initiator: session.user,
      now: ctx.now(),
    });
    if (!sent.messageId)
      return redirectWithFlash(ctx, request, reply, "/dashboard/webhooks", {
        kind: "error",
        text: w.no_url,
      });
    auditDone(request);
    // Straight to the test message in the log, where its attempts show.
    const message = await ctx.services().messages.get(session.merchantId, sent.messageId);
    return redirectWithFlash(
      ctx,
      request,
      reply,
      `/dashboard/deliveries?session_id=${encodeURIComponent(message.session_id)}`,
      {
        kind: "success",
        text: format(w.test_queued, { urls: sent.urls.map((u) => isolate(lang, u)).join(w.and) }),
      },
    );
  });
}
