/** @jsxImportSource preact */
/** SDK settings: the script tag, error reporting on or off (`is_enabled` of the studio configuration) and the reports. English and Arabic. */
import type { FastifyInstance } from "fastify";
import { auditDone } from "../../audit/audit.js";
import { scriptTag, sharedSdkAssets } from "../../sdk-assets/sdk-assets.service.js";
import { type DashboardContext, formOf, redirectWithFlash, render, sessionOf } from "../context.js";
import { type DashboardLanguage, dashboardLanguage, format } from "../i18n.js";
import { Checkbox, PAGE_PERMISSIONS, PostForm, Time } from "../ui.js";

interface ReportRow {
  id: string;
  session_id: string | null;
  message: string;
  form_of_payment: string | null;
  user_agent: string | null;
  created_at: Date;
}

const WORDS = {
  en: {
    title: "SDK settings",
    script: "Script tag",
    script_hint:
      "This build's script at its immutable URL, with its Subresource Integrity hash (the browser refuses a file that differs by one byte). The values change with each svc release: copy them again after an upgrade, or read",
    not_built: "The checkout SDK is not built on this server.",
    reporting: "Error reporting",
    currently: "Currently",
    on: "on",
    off: "off",
    reads_as: "The SDK reads this as {field} from {path}.",
    report_label: "Report SDK errors to svc",
    report_hint: "Turn this off when your app has its own error reporting, to avoid conflicts.",
    save: "Save",
    reports: "Error reports",
    latest: "The latest {n} SDK error reports",
    time: "Time",
    message: "Message",
    form: "Form of payment",
    session: "Session",
    agent: "User agent",
    none: "No SDK error reports.",
    saved: "SDK error reporting is now {state}.",
  },
  ar: {
    title: "إعدادات حزمة SDK",
    script: "وسم السكربت",
    script_hint:
      "سكربت هذا الإصدار على عنوانه الثابت، مع بصمة سلامة المورد الفرعي (يرفض المتصفح أي ملف يختلف ولو ببايت واحد). تتغير القيم مع كل إصدار من svc: انسخها مجددًا بعد الترقية، أو اقرأ",
    not_built: "حزمة الدفع SDK غير مبنية على هذا الخادم.",
    reporting: "الإبلاغ عن الأخطاء",
    currently: "الحالة الآن",
    on: "مفعّل",
    off: "معطّل",
    reads_as: "تقرأ الحزمة هذا الإعداد بوصفه {field} من {path}.",
    report_label: "أبلغ svc بأخطاء حزمة SDK",
    report_hint: "عطّل هذا إن كان لتطبيقك نظامه الخاص للإبلاغ عن الأخطاء، لتجنّب التعارض.",
    save: "حفظ",
    reports: "بلاغات الأخطاء",
    latest: "آخر بلاغات أخطاء حزمة SDK (العدد: {n})",
    time: "الوقت",
    message: "الرسالة",
    form: "وسيلة الدفع",
    session: "الجلسة",
    agent: "وكيل المستخدم",
    none: "لا بلاغات أخطاء من حزمة SDK.",
    saved: "الإبلاغ عن أخطاء حزمة SDK الآن {state}.",
  },
} satisfies Record<DashboardLanguage, Record<string, string>>;

export function sdkPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.sdk } };

  scope.get("/sdk", { config }, async (request, reply) => {
    const session = sessionOf(request);
    const w = WORDS[dashboardLanguage(request)];
    const { sdk } = ctx.services();
    const [studio, reports, build] = await Promise.all([
      sdk.config(session.merchantId),
      sdk.list(session.merchantId, 100) as Promise<unknown[]> as Promise<ReportRow[]>,
      sharedSdkAssets()
        .build()
        .catch(() => undefined),
    ]);
    const enabled = studio.error_reporting.is_enabled;
    const [readsBefore, readsRest] = w.reads_as.split("{field}");
    const [readsMiddle, readsAfter] = (readsRest ?? "").split("{path}");
    return render(
      ctx,
      request,
      reply,
      { title: w.title, current: "sdk", translated: true },
      <>
        <section aria-labelledby="inst-h">
          <h2 id="inst-h">{w.script}</h2>
          {build ? (
            <>
              <p>
                {w.script_hint} <code dir="ltr">/sdk/manifest.json</code>.
              </p>
              <pre dir="ltr">
                <code>{scriptTag(ctx.config.publicUrl, build)}</code>
              </pre>
            </>
          ) : (
            <p>{w.not_built}</p>
          )}
        </section>
        <section aria-labelledby="rep-h">
          <h2 id="rep-h">{w.reporting}</h2>
          <p>
            {w.currently}: <strong>{enabled ? w.on : w.off}</strong>. {readsBefore}
            <code dir="ltr">error_reporting.is_enabled</code>
            {readsMiddle}
            <code dir="ltr">GET /v1/sdk/config</code>
            {readsAfter}
          </p>
          <PostForm action="/dashboard/sdk" csrf={session.csrfToken}>
            <Checkbox name="is_enabled" label={w.report_label} checked={enabled} hint={w.report_hint} />
            <button type="submit">{w.save}</button>
          </PostForm>
        </section>
        <section aria-labelledby="list-h">
          <h2 id="list-h">{w.reports}</h2>
          {reports.length ? (
            <table class="stack">
              <caption>{format(w.latest, { n: reports.length })}</caption>
              <thead>
                <tr>
                  <th scope="col">{w.time}</th>
                  <th scope="col">{w.message}</th>
                  <th scope="col">{w.form}</th>
                  <th scope="col">{w.session}</th>
                  <th scope="col">{w.agent}</th>
                </tr>
              </thead>
              <tbody>
                {reports.map((r) => (
                  <tr>
                    <td data-label={w.time}>
                      <Time value={r.created_at} />
                    </td>
                    <td data-label={w.message}>
                      <bdi>{r.message}</bdi>
                    </td>
                    <td data-label={w.form}>{r.form_of_payment ?? "—"}</td>
                    <td data-label={w.session}>{r.session_id ? <code>{r.session_id}</code> : "—"}</td>
                    <td data-label={w.agent} class="muted">
                      <bdi>{r.user_agent ?? "—"}</bdi>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p>{w.none}</p>
          )}
        </section>
      </>,
    );
  });

  scope.post("/sdk", { config }, async (request, reply) => {
    const w = WORDS[dashboardLanguage(request)];
    const enabled = formOf(request).is_enabled === "on";
    await ctx.services().sdk.setErrorReporting(sessionOf(request).merchantId, enabled);
    auditDone(request);
    return redirectWithFlash(ctx, request, reply, "/dashboard/sdk", {
      kind: "success",
      text: format(w.saved, { state: enabled ? w.on : w.off }),
    });
  });
}
