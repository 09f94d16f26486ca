/** @jsxImportSource preact */
/** The audit log page: who did what, when and from where, newest first, 50 at a time. */
import type { FastifyInstance } from "fastify";
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
      const detailOf = (detail: Record<string, unknown> | null) =>
        Object.entries(detail ?? {})
          .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
          .join(", ");
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
                  const detail = detailOf(e.detail);
                  return (
                    <tr>
                      <td data-label={t.audit_when}>
                        <Time value={e.at} />
                      </td>
                      <td data-label={t.audit_who}>
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
                        {detail && (
                          <>
                            <br />
                            <span class="hint" dir="ltr">
                              {detail}
                            </span>
                          </>
                        )}
                      </td>
                      <td data-label={t.audit_from}>
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
