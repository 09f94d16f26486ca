/** @jsxImportSource preact */
/** The audit log page: who did what, when and from where, newest first, 50 at a time. */
import type { FastifyInstance } from "fastify";
import type { VNode } from "preact";
import { auditRepo } from "../../audit/audit.repo.js";
import { auditPage } from "../../audit/audit.routes.js";
import { type DashboardContext, queryOf, render, sessionOf } from "../context.js";
import { type DashboardLanguage, dashboardLanguage, messages } from "../i18n.js";
import { PAGE_PERMISSIONS, Time } from "../ui.js";

/** What each recorded action says, in each language (an action not listed shows its code). */
const ACTIONS: Record<DashboardLanguage, Record<string, string>> = {
  en: {
    "operation.refund": "Refunded",
    "operation.capture": "Captured",
    "operation.void": "Voided",
    "payment_request.created": "Created a payment request",
    "webhooks.config_changed": "Changed the webhook settings",
    "webhooks.plugin_changed": "Changed a webhook plugin",
    "webhooks.secret_revealed": "Revealed the signing secret",
    "webhooks.secret_rotated": "Rotated the signing secret",
    "webhooks.test_sent": "Sent a test webhook",
    "webhooks.endpoint_created": "Added a webhook endpoint",
    "webhooks.endpoint_changed": "Changed a webhook endpoint",
    "webhooks.endpoint_deleted": "Deleted a webhook endpoint",
    "webhooks.replayed": "Replayed webhooks",
    "webhooks.sent_to_current_url": "Sent a webhook to the current URL",
    "key.created": "Created an API key",
    "key.revoked": "Revoked an API key",
    "sdk.settings_changed": "Changed the SDK settings",
    "gateway.created": "Added a gateway",
    "gateway.changed": "Changed a gateway",
    "discrepancy.resolved": "Resolved a discrepancy",
    "user.signed_in": "Signed in",
    "user.sign_in_failed": "Failed to sign in",
    "user.signed_out": "Signed out",
  },
  ar: {
    "operation.refund": "استردّ مبلغًا",
    "operation.capture": "حصّل مبلغًا",
    "operation.void": "ألغى تفويضًا",
    "payment_request.created": "أنشأ طلب دفع",
    "webhooks.config_changed": "غيّر إعدادات الويب هوك",
    "webhooks.plugin_changed": "غيّر إضافة ويب هوك",
    "webhooks.secret_revealed": "كشف السر الموقِّع",
    "webhooks.secret_rotated": "بدّل السر الموقِّع",
    "webhooks.test_sent": "أرسل ويب هوك تجريبيًا",
    "webhooks.endpoint_created": "أضاف نقطة ويب هوك",
    "webhooks.endpoint_changed": "غيّر نقطة ويب هوك",
    "webhooks.endpoint_deleted": "حذف نقطة ويب هوك",
    "webhooks.replayed": "أعاد إرسال ويب هوك",
    "webhooks.sent_to_current_url": "أرسل ويب هوك إلى العنوان الحالي",
    "key.created": "أنشأ مفتاح API",
    "key.revoked": "ألغى مفتاح API",
    "sdk.settings_changed": "غيّر إعدادات حزمة SDK",
    "gateway.created": "أضاف بوابة دفع",
    "gateway.changed": "غيّر بوابة دفع",
    "discrepancy.resolved": "حلّ فرقًا",
    "user.signed_in": "سجّل الدخول",
    "user.sign_in_failed": "فشل في تسجيل الدخول",
    "user.signed_out": "سجّل الخروج",
  },
};

/**
 * What each kept detail is called, in each language. A detail not listed shows its key; values
 * are what was sent (an amount, a URL, a setting, a reason), "on" and true as yes.
 */
const DETAILS: Record<DashboardLanguage, Record<string, string>> = {
  en: {
    amount: "Amount",
    currency_code: "Currency",
    enabled: "Enabled",
    event_types: "Event types",
    failed_since: "Failed since",
    failed_until: "Failed until",
    include_metadata: "Metadata included",
    is_enabled: "Error reporting",
    kind: "Kind",
    label: "Label",
    name: "Name",
    note: "Note",
    order_no: "Order number",
    outcome: "Outcome",
    payload_version: "Payload version",
    pg_code: "Gateway code",
    reason: "Reason",
    session_id: "Session",
    since: "Since",
    status: "Status",
    until: "Until",
    url: "URL",
    webhook_url: "Webhook URL",
    operations_webhook_url: "Operation webhook URL",
    notify_api_initiated: "Webhooks for API operations",
    timeout_seconds: "Timeout (seconds)",
    retry_schedule_seconds: "Retries after (seconds)",
    queued: "Queued at the gateway",
    yes: "yes",
    no: "no",
    separator: "; ",
    list: ", ",
  },
  ar: {
    amount: "المبلغ",
    currency_code: "العملة",
    enabled: "مفعّل",
    event_types: "أنواع الأحداث",
    failed_since: "فشلت منذ",
    failed_until: "فشلت حتى",
    include_metadata: "مع البيانات الوصفية",
    is_enabled: "الإبلاغ عن الأخطاء",
    kind: "النوع",
    label: "التسمية",
    name: "الاسم",
    note: "ملاحظة",
    order_no: "رقم الطلب",
    outcome: "النتيجة",
    payload_version: "إصدار الحمولة",
    pg_code: "رمز البوابة",
    reason: "السبب",
    session_id: "الجلسة",
    since: "منذ",
    status: "الحالة",
    until: "حتى",
    url: "العنوان",
    webhook_url: "عنوان الويب هوك",
    operations_webhook_url: "عنوان ويب هوك العمليات",
    notify_api_initiated: "ويب هوك لعمليات واجهة البرمجة",
    timeout_seconds: "المهلة (ثوانٍ)",
    retry_schedule_seconds: "إعادة المحاولة بعد (ثوانٍ)",
    queued: "في انتظار البوابة",
    yes: "نعم",
    no: "لا",
    separator: "؛ ",
    list: "، ",
  },
};

/**
 * Details a dashboard form sends as a checkbox. They are recorded as booleans (an unchecked box,
 * which the browser leaves out, as false); events recorded before that kept the form's "on", still
 * shown as yes. Text stays text.
 */
const CHECKBOXES = new Set(["enabled", "include_metadata", "notify_api_initiated"]);

/**
 * An event's kept details in the page's language: "Amount: 1.000; Reason: …". Each value is
 * isolated in its own direction (a URL or an amount left to right, an Arabic reason right to left).
 */
function Detail({
  detail,
  lang,
}: {
  detail: Record<string, unknown>;
  lang: DashboardLanguage;
}): VNode | null {
  const d = DETAILS[lang];
  const entries = Object.entries(detail);
  if (entries.length === 0) return null;
  const value = (key: string, v: unknown): string =>
    v === true || (v === "on" && CHECKBOXES.has(key))
      ? d.yes!
      : v === false
        ? d.no!
        : Array.isArray(v)
          ? v.map((item) => value(key, item)).join(d.list)
          : typeof v === "string"
            ? v
            : JSON.stringify(v);
  return (
    <span class="hint">
      {entries.map(([k, v], i) => (
        <>
          {i > 0 ? d.separator : ""}
          {Object.hasOwn(d, k) ? d[k] : k}
          {k === "queued" ? "" : ": "}
          {k === "queued" ? "" : <bdi>{value(k, v)}</bdi>}
        </>
      ))}
    </span>
  );
}

export function auditPages(scope: FastifyInstance, ctx: DashboardContext): void {
  scope.get(
    "/audit",
    { config: { dashboard: { permission: PAGE_PERMISSIONS.audit } } },
    async (request, reply) => {
      const session = sessionOf(request);
      const lang = dashboardLanguage(request);
      const t = messages(lang);
      const before = Number.parseInt(queryOf(request).before ?? "", 10);
      const page = auditPage(
        await auditRepo.list(
          ctx.services().db,
          session.merchantId,
          50,
          Number.isSafeInteger(before) && before > 0 ? before : undefined,
        ),
        50,
      );
      return render(
        ctx,
        request,
        reply,
        { title: t.audit_title, current: "audit", translated: true },
        <>
          <p class="hint">
            {t.audit_intro} <code dir="ltr">GET /v1/audit-events</code>.
          </p>
          {page.data.length === 0 ? (
            <p>{t.audit_empty}</p>
          ) : (
            <table class="stack">
              <caption>{t.audit_newest_first}</caption>
              <thead>
                <tr>
                  <th scope="col">{t.audit_when}</th>
                  <th scope="col">{t.audit_who}</th>
                  <th scope="col">{t.audit_what}</th>
                  <th scope="col">{t.audit_from}</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((e) => {
                  return (
                    <tr>
                      <td data-label={t.audit_when}>
                        <Time value={e.at} />
                      </td>
                      <td data-label={t.audit_who} class="nowrap">
                        <bdi>{e.actor}</bdi>
                        {e.actor_kind === "api_key" ? ` ${t.audit_api_key}` : ""}
                      </td>
                      <td data-label={t.audit_what}>
                        {ACTIONS[lang][e.action] ?? e.action}
                        {e.target && (
                          <>
                            {" "}
                            <code dir="ltr">{e.target}</code>
                          </>
                        )}
                        {e.detail && Object.keys(e.detail).length > 0 && (
                          <>
                            <br />
                            <Detail detail={e.detail} lang={lang} />
                          </>
                        )}
                      </td>
                      <td data-label={t.audit_from} class="nowrap">
                        <span dir="ltr">{e.ip ?? "—"}</span>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          {page.next_before && (
            <nav class="pager" aria-label={t.pages}>
              <a href={`/dashboard/audit?before=${page.next_before}`} rel="next">
                {t.audit_older}
              </a>
            </nav>
          )}
        </>,
      );
    },
  );
}
