/** @jsxImportSource preact */
/**
 * Webhook endpoints: the list (the seed's destinations first, read-only here), add, change,
 * enable/disable, delete (after a confirmation), and the replay of what a re-enabled endpoint
 * missed. The same service as `/v1/webhooks/endpoints`, so the rules are the API's. English and
 * Arabic; a refusal worded by the endpoints service (English) is marked as English on an Arabic
 * page. Also the banner every page shows while an endpoint is disabled for failing.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { auditDone } from "../../audit/audit.js";
import { PAYLOAD_VERSIONS } from "@svc/webhooks/sign";
import { AppError } from "../../http/problem.js";
import { sendTestWebhook } from "../../operations/test-webhook.js";
import type { VNode } from "../../pages/jsx.js";
import { EVENT_TYPES, type EventType } from "../../webhooks/outbox.js";
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
import { type DashboardLanguage, dashboardLanguage, format, isolate, messages } from "../i18n.js";
import { label } from "../labels.js";
import {
  Badge,
  Checkbox,
  ErrorSummary,
  Field,
  FieldError,
  PAGE_PERMISSIONS,
  PostForm,
  SelectField,
  Time,
} from "../ui.js";

const ID = /^we_[a-z2-7]{1,40}$/;
const HEADER_FORMAT = '"Name: value"';
const BASE = "/dashboard/webhooks/endpoints";

const WORDS = {
  en: {
    title_list: "Webhook endpoints",
    title_one: "Webhook endpoint",
    title_new: "Add a webhook endpoint",
    add: "Add endpoint",
    list_hint_before: "The general operations URL and the plugin URLs are set in",
    settings: "Webhook settings",
    list_hint_after:
      "; they are listed here too. An endpoint of yours gets the event types you choose, with your own headers.",
    caption: "Where your webhooks go",
    endpoint: "Endpoint",
    events: "Events",
    status: "Status",
    version: "Version",
    none: "No endpoints yet. Add one to receive payment and operation events at a URL of yours.",
    general: "General configuration",
    plugin: "{type} plugin",
    all_events: "All events",
    enabled: "Enabled",
    disabled: "Disabled",
    disabled_failing: "Disabled (failing)",
    failing: "Failing",
    all_endpoints: "All endpoints",
    url: "URL",
    cli_hint:
      "Opened by svc listen: it streams this endpoint's webhooks to a developer's machine while the CLI runs, and deletes the endpoint when it stops. It has no URL of its own.",
    cli_short: "No URL: streamed to the CLI while it runs",
    description: "Description (optional)",
    event_all: "All events, including ones added later",
    headers: "Custom headers",
    headers_hint:
      "One {format} per line, sent with every request (for example a token your firewall checks). Not the signature headers. Saved values are shown masked (••••); leave one as it is to keep it.",
    headers_line: "Custom headers: line {n} must be {format}.",
    metadata: "Add the payment's metadata to operation webhooks",
    metadata_hint:
      "Payment events always carry it. The operation webhook's fields are fixed by the contract, so it is added only where you ask.",
    payload_version: "Payload version",
    enabled_label: "Enabled: send webhooks to this endpoint",
    enabled_hint:
      "Off: nothing is sent; what it misses is kept, and can be replayed when you turn it on again.",
    save: "Save endpoint",
    health: "Health",
    failing_since: "Failing since",
    last_error: "Last error",
    disabled_at: "Disabled",
    missed_one: "1 delivery to this endpoint was not received while it was failing or disabled.",
    missed_many: "{n} deliveries to this endpoint were not received while it was failing or disabled.",
    replay_one: "Replay 1 missed delivery to {url}",
    replay_many: "Replay {n} missed deliveries to {url}",
    test: "Send a test webhook to this endpoint",
    delivery_log: "Delivery log",
    delete: "Delete",
    delete_ask: "Delete this endpoint…",
    delete_title: "Delete this endpoint?",
    delete_what:
      "{url} will get no more webhooks, and what is still waiting for it is given up. This cannot be undone.",
    delete_yes: "Delete endpoint",
    keep: "Keep it",
    not_found: "There is no such webhook endpoint.",
    added: "Endpoint added: {url} gets {events} from the next event on.",
    added_all: "every event",
    added_some: "{events}",
    enabled_missed: "Endpoint enabled. It missed {n} since {since} UTC.",
    enabled_missed_replay: "Endpoint enabled. It missed {n} since {since} UTC: replay them below.",
    deliveries_one: "1 delivery",
    deliveries_many: "{n} deliveries",
    saved:
      "Endpoint saved. Its event types, version and metadata apply from the next event; its URL and headers to retries too.",
    saved_moved_one: "Endpoint saved. 1 delivery still waiting for it goes to the new URL now.",
    saved_moved_many: "Endpoint saved. {n} deliveries still waiting for it go to the new URL now.",
    saved_disabled: "Endpoint saved and disabled: nothing is sent to it until you enable it again.",
    test_queued: "Test webhook queued for {url}. Its attempts are in the delivery log.",
    no_secret: "Nothing was sent: the merchant has no signing secret.",
    deleted: "Endpoint {url} deleted.",
    replayed: "{deliveries} queued again for {url}. Follow them in the delivery log.",
    banner_one: "A webhook endpoint was disabled",
    banner_many: "{n} webhook endpoints were disabled",
    banner_why_one: "because every delivery to it failed for days:",
    banner_why_many: "because every delivery to them failed for days:",
    banner_fix: "Fix the receiver, then enable it and replay what it missed.",
  },
  ar: {
    title_list: "نقاط الويب هوك",
    title_one: "نقطة ويب هوك",
    title_new: "إضافة نقطة ويب هوك",
    add: "إضافة نقطة",
    list_hint_before: "يُضبط عنوان العمليات العام وعناوين الإضافات في",
    settings: "إعدادات الويب هوك",
    list_hint_after:
      "، وتظهر هنا أيضًا. تتلقى كل نقطة خاصة بك أنواع الأحداث التي تختارها، مع ترويساتك الخاصة.",
    caption: "إلى أين تذهب رسائل الويب هوك",
    endpoint: "النقطة",
    events: "الأحداث",
    status: "الحالة",
    version: "الإصدار",
    none: "لا نقاط بعد. أضف واحدة لتتلقى أحداث المدفوعات والعمليات على عنوان خاص بك.",
    general: "الإعدادات العامة",
    plugin: "إضافة {type}",
    all_events: "كل الأحداث",
    enabled: "مفعّلة",
    disabled: "معطّلة",
    disabled_failing: "معطّلة (فاشلة)",
    failing: "فاشلة",
    all_endpoints: "كل النقاط",
    url: "العنوان",
    cli_hint:
      "فتحها svc listen: يمرّر ويب هوك هذه النقطة إلى جهاز مطوّر ما دام يعمل، ويحذفها حين يتوقف. ليس لها عنوان خاص بها.",
    cli_short: "بلا عنوان: تُمرَّر إلى أداة سطر الأوامر ما دامت تعمل",
    description: "الوصف (اختياري)",
    event_all: "كل الأحداث، ومنها ما يُضاف لاحقًا",
    headers: "ترويسات مخصصة",
    headers_hint:
      "ترويسة واحدة في كل سطر بالصيغة {format}، تُرسل مع كل طلب (مثل رمز يتحقق منه جدار الحماية لديك). لا تشمل ترويسات التوقيع. تظهر القيم المحفوظة مُقنَّعة (••••)؛ اترك القيمة كما هي للإبقاء عليها.",
    headers_line: "الترويسات المخصصة: يجب أن يكون السطر {n} بالصيغة {format}.",
    metadata: "إضافة البيانات الوصفية للدفعة إلى ويب هوك العمليات",
    metadata_hint:
      "تحملها أحداث المدفوعات دائمًا. حقول ويب هوك العمليات ثابتة بالعقد، لذا لا تُضاف إلا حيث تطلب.",
    payload_version: "إصدار الحمولة",
    enabled_label: "مفعّلة: أرسل الويب هوك إلى هذه النقطة",
    enabled_hint: "عند الإيقاف لا يُرسل شيء، ويُحفظ ما فاتها ويمكن إعادة إرساله حين تفعّلها من جديد.",
    save: "حفظ النقطة",
    health: "السلامة",
    failing_since: "فاشلة منذ",
    last_error: "آخر خطأ",
    disabled_at: "عُطّلت",
    missed_one: "لم تتسلّم هذه النقطة عملية تسليم واحدة أثناء فشلها أو تعطيلها.",
    missed_many: "لم تتسلّم هذه النقطة {n} من عمليات التسليم أثناء فشلها أو تعطيلها.",
    replay_one: "إعادة إرسال التسليم الفائت إلى {url}",
    replay_many: "إعادة إرسال {n} من التسليمات الفائتة إلى {url}",
    test: "إرسال ويب هوك تجريبي إلى هذه النقطة",
    delivery_log: "سجل التسليم",
    delete: "الحذف",
    delete_ask: "حذف هذه النقطة…",
    delete_title: "حذف هذه النقطة؟",
    delete_what: "لن يصل إلى {url} أي ويب هوك بعد الآن، ويُتخلّى عمّا ينتظره. لا يمكن التراجع عن ذلك.",
    delete_yes: "حذف النقطة",
    keep: "الإبقاء عليها",
    not_found: "لا توجد نقطة ويب هوك كهذه.",
    added: "أُضيفت النقطة: يتلقى {url} {events} بدءًا من الحدث التالي.",
    added_all: "كل الأحداث",
    added_some: "الأحداث {events}",
    enabled_missed: "فُعّلت النقطة. فاتها {n} منذ {since} بالتوقيت العالمي.",
    enabled_missed_replay: "فُعّلت النقطة. فاتها {n} منذ {since} بالتوقيت العالمي: أعد إرسالها أدناه.",
    deliveries_one: "تسليم واحد",
    deliveries_many: "{n} من التسليمات",
    saved:
      "حُفظت النقطة. تُطبَّق أنواع أحداثها وإصدارها وبياناتها الوصفية من الحدث التالي، وعنوانها وترويساتها على إعادة المحاولات أيضًا.",
    saved_moved_one: "حُفظت النقطة. عملية تسليم واحدة كانت تنتظرها تذهب الآن إلى العنوان الجديد.",
    saved_moved_many: "حُفظت النقطة. {n} من عمليات التسليم التي كانت تنتظرها تذهب الآن إلى العنوان الجديد.",
    saved_disabled: "حُفظت النقطة وعُطّلت: لا يُرسل إليها شيء حتى تفعّلها من جديد.",
    test_queued: "أُرسل ويب هوك تجريبي إلى الانتظار لـ {url}. محاولاته في سجل التسليم.",
    no_secret: "لم يُرسل شيء: لا سر توقيع لدى التاجر.",
    deleted: "حُذفت النقطة {url}.",
    replayed: "أُعيد {deliveries} إلى الانتظار لـ {url}. تابِعها في سجل التسليم.",
    banner_one: "عُطّلت نقطة ويب هوك",
    banner_many: "عُطّلت {n} من نقاط الويب هوك",
    banner_why_one: "لأن كل تسليم إليها فشل لأيام:",
    banner_why_many: "لأن كل تسليم إليها فشل لأيام:",
    banner_fix: "أصلِح المستقبِل، ثم فعّلها وأعد إرسال ما فاتها.",
  },
} satisfies Record<DashboardLanguage, Record<string, string>>;
type Words = (typeof WORDS)["en"];

/** What each event type means, in Arabic (the English is the catalogue's, webhooks/outbox.ts). */
const EVENT_HINTS_AR: Record<Exclude<EventType, "webhook.test">, string> = {
  operation:
    "نُفّذ استرداد أو تحصيل أو إلغاء، أو وُضع في الانتظار، أو رُفض (ويب هوك العمليات؛ حقل result يقول أيّها).",
  "payment.paid": "دُفعت عملية شراء.",
  "payment.authorized": "نجح تفويض: حصّله أو ألغِه.",
  "payment.failed": "رُفضت الدفعة.",
  "payment.canceled": "أُلغيت الدفعة (من العميل أو من بوابة الدفع).",
  "payment.expired": "انتهت مهلة جلسة الدفع قبل أن يدفع العميل (لم يُؤخذ أي مبلغ).",
  "payment.pending": "بدأ العميل الدفع وتنتظره البوابة (صفحة البنك أو تحقق البطاقة)؛ يتبعه حدث نهائي.",
  "webhook.endpoint_disabled":
    "عُطّلت إحدى نقاط التاجر لأن كل تسليم إليها فشل طوال المدة المحددة؛ يُرسل إلى نقاطه الأخرى.",
};

function eventHint(lang: DashboardLanguage, type: (typeof SUBSCRIBABLE)[number]): string {
  if (lang === "ar") return EVENT_HINTS_AR[type];
  return EVENT_TYPES.find((x) => x.type === type)!.description;
}

/** A field's label, for messages that name it (the service's own words are English). */
const LABELS: Record<string, string> = {
  url: "URL",
  description: "Description",
  event_types: "Events",
  headers: "Custom headers",
  payload_version: "Payload version",
};

function statusOf(e: EndpointView): "enabled" | "disabled" | "disabled_failing" | "failing" {
  if (!e.enabled) return e.disabled_reason === "failing" ? "disabled_failing" : "disabled";
  return e.failing_since ? "failing" : "enabled";
}

/** The badge's tone follows the status code; the text is the page's language. */
function StatusBadge({ e, w }: { e: EndpointView; w: Words }): VNode {
  const status = statusOf(e);
  return <Badge state={status} text={w[status]} />;
}

const eventsText = (w: Words, types: string[]) => (types[0] === "*" ? w.all_events : types.join(", "));
const count = (w: Words, n: number) => (n === 1 ? w.deliveries_one : format(w.deliveries_many, { n }));

/** "Name: value" lines into headers; the API's validation then names each bad one. */
export function parseHeaders(text: string): { headers: Record<string, string> } | { badLine: number } {
  const headers: Record<string, string> = {};
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) return { badLine: i + 1 };
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { headers };
}

function inputOf(
  form: Record<string, string>,
  editing: boolean,
): { input: EndpointInput } | { badLine: number } {
  const parsed = parseHeaders(form.headers ?? "");
  if ("badLine" in parsed) return parsed;
  const all = form.event_all === "on";
  return {
    input: {
      // A svc listen endpoint's form has no URL field: absent is "unchanged", not empty.
      ...(form.url === undefined && editing ? {} : { url: (form.url ?? "").trim() }),
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
  const lang = dashboardLanguage(request);
  const w = WORDS[lang];
  const endpoints = await ctx.services().endpoints.list(session.merchantId);
  return render(
    ctx,
    request,
    reply,
    { title: w.title_list, current: "webhooks", translated: true },
    <>
      <p class="actions">
        <a class="button" href={`${BASE}/new`}>
          {w.add}
        </a>
      </p>
      <p class="hint">
        {w.list_hint_before} <a href="/dashboard/webhooks">{w.settings}</a>
        {w.list_hint_after}
      </p>
      {endpoints.length ? (
        <table class="stack">
          <caption>{w.caption}</caption>
          <thead>
            <tr>
              <th scope="col">{w.endpoint}</th>
              <th scope="col">{w.events}</th>
              <th scope="col">{w.status}</th>
              <th scope="col">{w.version}</th>
            </tr>
          </thead>
          <tbody>
            {endpoints.map((e) => {
              const title = e.editable
                ? e.description
                : e.kind === "general"
                  ? w.general
                  : format(w.plugin, { type: label(e.id.slice(7), lang) });
              const href = e.editable ? `${BASE}/${e.id}` : "/dashboard/webhooks";
              return (
                <tr>
                  <td data-label={w.endpoint}>
                    {/* Named by its description when it has one; else the URL is the link. */}
                    {title ? (
                      <>
                        <a href={href}>
                          <bdi>{title}</bdi>
                        </a>
                        <br />
                        {e.kind === "cli" ? (
                          <span class="hint">{w.cli_short}</span>
                        ) : (
                          <code class="url">{e.url}</code>
                        )}
                      </>
                    ) : (
                      <a href={href}>
                        <code class="url">{e.url}</code>
                      </a>
                    )}
                  </td>
                  <td data-label={w.events}>
                    {e.event_types[0] === "*" ? w.all_events : <code>{e.event_types.join(", ")}</code>}
                  </td>
                  <td data-label={w.status}>
                    <StatusBadge e={e} w={w} />
                    {e.last_error && e.failing_since && (
                      <>
                        <br />
                        <span class="hint" lang="en" dir="ltr">
                          {e.last_error.slice(0, 120)}
                        </span>
                      </>
                    )}
                  </td>
                  <td data-label={w.version}>
                    <code>{e.payload_version}</code>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : (
        <p>{w.none}</p>
      )}
    </>,
  );
}

interface Shown {
  values?: Record<string, string>;
  /** Field → message; `english` when the messages came from the endpoints service. */
  errors?: Record<string, string>;
  english?: boolean;
  missed?: number;
}

async function formPage(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  endpoint: EndpointView | undefined,
  shown: Shown = {},
  status = 200,
) {
  const session = sessionOf(request);
  const lang = dashboardLanguage(request);
  const w = WORDS[lang];
  const v = shown.values;
  const e = shown.errors ?? {};
  const types = endpoint?.event_types ?? ["*"];
  const checked = (name: string, fallback: boolean) => (v ? v[name] === "on" : fallback);
  const headersText =
    v?.headers ??
    Object.entries(endpoint?.headers ?? {})
      .map(([k, val]) => `${k}: ${val}`)
      .join("\n");
  const englishErrors = shown.english && lang === "ar";
  const errorLang = englishErrors ? ("en" as const) : undefined;
  const summary = (
    <ErrorSummary
      heading={messages(lang).there_is_a_problem}
      messages={Object.values(e)}
      messagesLang={errorLang}
    />
  );
  return render(
    ctx,
    request,
    reply,
    { title: endpoint ? w.title_one : w.title_new, current: "webhooks", translated: true },
    <>
      {summary}
      <p>
        <a href={BASE}>{w.all_endpoints}</a>
      </p>
      <PostForm action={endpoint ? `${BASE}/${endpoint.id}` : BASE} csrf={session.csrfToken}>
        {endpoint?.kind === "cli" ? (
          <p class="hint">{w.cli_hint}</p>
        ) : (
          <Field
            name="url"
            label={w.url}
            type="url"
            value={v?.url ?? endpoint?.url ?? ""}
            error={e.url}
            errorLang={errorLang}
            input={{
              class: "wide",
              required: true,
              placeholder: "https://shop.example.com/webhooks/svc",
              dir: "ltr",
            }}
          />
        )}
        <Field
          name="description"
          label={w.description}
          value={v?.description ?? endpoint?.description ?? ""}
          error={e.description}
          errorLang={errorLang}
          input={{ class: "wide", maxlength: "200" }}
        />
        <fieldset
          aria-describedby={e.event_types ? "f-events-error" : undefined}
          aria-invalid={e.event_types ? "true" : undefined}
        >
          <legend>{w.events}</legend>
          <Checkbox name="event_all" label={w.event_all} checked={checked("event_all", types[0] === "*")} />
          {SUBSCRIBABLE.map((t) => (
            <Checkbox
              name={`event_${t}`}
              label={t}
              hint={eventHint(lang, t)}
              checked={checked(`event_${t}`, types.includes(t))}
            />
          ))}
          <FieldError id="f-events-error" error={e.event_types} lang={errorLang} />
        </fieldset>
        <div class="field">
          <label for="f-headers">{w.headers}</label>
          <p class="hint" id="f-headers-hint">
            {format(w.headers_hint, { format: isolate(lang, HEADER_FORMAT) })}
          </p>
          <textarea
            id="f-headers"
            name="headers"
            rows={3}
            class="wide"
            dir="ltr"
            aria-describedby={`f-headers-hint${e.headers ? " f-headers-error" : ""}`}
            aria-invalid={e.headers ? "true" : undefined}
          >
            {headersText}
          </textarea>
          <FieldError id="f-headers-error" error={e.headers} lang={errorLang} />
        </div>
        <Checkbox
          name="include_metadata"
          label={w.metadata}
          checked={checked("include_metadata", endpoint?.include_metadata ?? false)}
          hint={w.metadata_hint}
        />
        <SelectField
          name="payload_version"
          label={w.payload_version}
          value={
            v?.payload_version ?? endpoint?.payload_version ?? PAYLOAD_VERSIONS[PAYLOAD_VERSIONS.length - 1]
          }
          options={PAYLOAD_VERSIONS.map((p) => ({ value: p, text: p }))}
          error={e.payload_version}
          errorLang={errorLang}
        />
        {endpoint && (
          <Checkbox
            name="enabled"
            label={w.enabled_label}
            checked={checked("enabled", endpoint.enabled)}
            hint={w.enabled_hint}
          />
        )}
        <button type="submit">{endpoint ? w.save : w.add}</button>
      </PostForm>
      {endpoint && (
        <>
          <section aria-labelledby="health-h">
            <h2 id="health-h">{w.health}</h2>
            <dl class="facts">
              <dt>{w.status}</dt>
              <dd>
                <StatusBadge e={endpoint} w={w} />
              </dd>
              <dt>{w.failing_since}</dt>
              <dd>
                <Time value={endpoint.failing_since} />
              </dd>
              <dt>{w.last_error}</dt>
              <dd>
                {endpoint.last_error ? (
                  <span lang="en" dir="ltr">
                    {endpoint.last_error}
                  </span>
                ) : (
                  "—"
                )}
              </dd>
              <dt>{w.disabled_at}</dt>
              <dd>
                <Time value={endpoint.disabled_at} />
              </dd>
            </dl>
            {shown.missed && endpoint.enabled ? (
              <div class="notice" role="status">
                <p>{shown.missed === 1 ? w.missed_one : format(w.missed_many, { n: shown.missed })}</p>
                <PostForm action={`${BASE}/${endpoint.id}/replay`} csrf={session.csrfToken}>
                  <button type="submit">
                    {format(shown.missed === 1 ? w.replay_one : w.replay_many, {
                      n: shown.missed,
                      url: isolate(lang, endpoint.url),
                    })}
                  </button>
                </PostForm>
              </div>
            ) : null}
            {endpoint.enabled && (
              <PostForm action={`${BASE}/${endpoint.id}/test`} csrf={session.csrfToken}>
                <button type="submit" class="secondary">
                  {w.test}
                </button>
              </PostForm>
            )}
            <p>
              <a href="/dashboard/deliveries">{w.delivery_log}</a>
            </p>
          </section>
          <section aria-labelledby="del-h">
            <h2 id="del-h">{w.delete}</h2>
            <PostForm action={`${BASE}/${endpoint.id}/delete`} csrf={session.csrfToken}>
              <button type="submit" class="danger">
                {w.delete_ask}
              </button>
            </PostForm>
          </section>
        </>
      )}
    </>,
    status,
  );
}

export function endpointPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.webhooks } };
  const words = (request: FastifyRequest) => WORDS[dashboardLanguage(request)];
  const notFound = (request: FastifyRequest) =>
    new DashboardError(404, messages(dashboardLanguage(request)).not_found, words(request).not_found, true);
  const idOf = (request: FastifyRequest) => {
    const id = pathParam(request, "id");
    if (!ID.test(id)) throw notFound(request);
    return id;
  };
  const load = async (request: FastifyRequest) => {
    try {
      return await ctx.services().endpoints.get(sessionOf(request).merchantId, idOf(request));
    } catch (error) {
      if (error instanceof AppError && error.code === "not_found") throw notFound(request);
      throw error;
    }
  };
  const missedOf = async (request: FastifyRequest, endpoint: EndpointView) =>
    endpoint.enabled
      ? (await ctx.services().endpoints.missed(sessionOf(request).merchantId, endpoint.id)).failed
      : 0;
  /** The form again with a malformed header line, in the page's words. */
  const badHeaders = (request: FastifyRequest, line: number) => ({
    headers: format(words(request).headers_line, {
      n: line,
      format: isolate(dashboardLanguage(request), HEADER_FORMAT),
    }),
  });

  scope.get("/webhooks/endpoints", { config }, async (request, reply) => listPage(ctx, request, reply));
  scope.get("/webhooks/endpoints/new", { config }, async (request, reply) =>
    formPage(ctx, request, reply, undefined),
  );
  scope.get("/webhooks/endpoints/:id", { config }, async (request, reply) => {
    const endpoint = await load(request);
    return formPage(ctx, request, reply, endpoint, { missed: await missedOf(request, endpoint) });
  });

  scope.post("/webhooks/endpoints", { config }, async (request, reply) => {
    const w = words(request);
    const lang = dashboardLanguage(request);
    const form = formOf(request);
    const parsed = inputOf(form, false);
    if ("badLine" in parsed)
      return formPage(
        ctx,
        request,
        reply,
        undefined,
        { values: form, errors: badHeaders(request, parsed.badLine) },
        422,
      );
    try {
      const created = await ctx.services().endpoints.create(sessionOf(request).merchantId, parsed.input);
      auditDone(request);
      const all = created.event_types[0] === "*";
      return redirectWithFlash(ctx, request, reply, `${BASE}/${created.id}`, {
        kind: "success",
        text: format(w.added, {
          url: isolate(lang, created.url),
          events: all
            ? w.added_all
            : format(w.added_some, { events: isolate(lang, eventsText(w, created.event_types)) }),
        }),
      });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const errors = error.errors ? errorsOf(error) : { url: error.message };
      return formPage(ctx, request, reply, undefined, { values: form, errors, english: true }, 422);
    }
  });

  scope.post("/webhooks/endpoints/:id", { config }, async (request, reply) => {
    const w = words(request);
    const endpoint = await load(request);
    const form = formOf(request);
    const parsed = inputOf(form, true);
    if ("badLine" in parsed)
      return formPage(
        ctx,
        request,
        reply,
        endpoint,
        { values: form, errors: badHeaders(request, parsed.badLine) },
        422,
      );
    try {
      const saved = await ctx
        .services()
        .endpoints.update(sessionOf(request).merchantId, endpoint.id, parsed.input);
      auditDone(request);
      const n = saved.missed?.failed ?? 0;
      const text = saved.missed
        ? format(n > 0 ? w.enabled_missed_replay : w.enabled_missed, {
            n: isolate(dashboardLanguage(request), count(w, n)),
            since: isolate(dashboardLanguage(request), saved.missed.since.slice(0, 19).replace("T", " ")),
          })
        : !saved.enabled
          ? w.saved_disabled
          : saved.moved
            ? format(saved.moved === 1 ? w.saved_moved_one : w.saved_moved_many, {
                n: saved.moved,
              })
            : w.saved;
      return redirectWithFlash(ctx, request, reply, `${BASE}/${endpoint.id}`, { kind: "success", text });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const errors = error.errors ? errorsOf(error) : { url: error.message };
      return formPage(ctx, request, reply, endpoint, { values: form, errors, english: true }, 422);
    }
  });

  scope.post("/webhooks/endpoints/:id/test", { config }, async (request, reply) => {
    const w = words(request);
    const endpoint = await load(request);
    const session = sessionOf(request);
    const { db, outbox } = ctx.services();
    try {
      const sent = await sendTestWebhook(db, outbox, session.merchantId, {
        initiator: session.user,
        now: ctx.now(),
        endpointId: endpoint.id,
      });
      if (sent.messageId) auditDone(request);
      return redirectWithFlash(ctx, request, reply, `${BASE}/${endpoint.id}`, {
        kind: sent.messageId ? "success" : "error",
        text: sent.messageId
          ? format(w.test_queued, { url: isolate(dashboardLanguage(request), endpoint.url) })
          : w.no_secret,
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
    const w = words(request);
    const lang = dashboardLanguage(request);
    const endpoint = await load(request);
    const session = sessionOf(request);
    if (formOf(request).confirm !== "yes")
      return render(
        ctx,
        request,
        reply,
        { title: w.delete_title, current: "webhooks", translated: true },
        <>
          <div class="notice" role="alert">
            <p>{format(w.delete_what, { url: isolate(lang, endpoint.url) })}</p>
          </div>
          <PostForm action={`${BASE}/${endpoint.id}/delete`} csrf={session.csrfToken}>
            <input type="hidden" name="confirm" value="yes" />
            <p class="actions">
              <button type="submit" class="danger">
                {w.delete_yes}
              </button>{" "}
              <a href={`${BASE}/${endpoint.id}`}>{w.keep}</a>
            </p>
          </PostForm>
        </>,
      );
    await ctx.services().endpoints.remove(session.merchantId, endpoint.id);
    auditDone(request);
    return redirectWithFlash(ctx, request, reply, BASE, {
      kind: "success",
      text: format(w.deleted, { url: isolate(lang, endpoint.url) }),
    });
  });

  scope.post("/webhooks/endpoints/:id/replay", { config }, async (request, reply) => {
    const w = words(request);
    const lang = dashboardLanguage(request);
    const endpoint = await load(request);
    try {
      const result = await ctx.services().endpoints.replay(sessionOf(request).merchantId, endpoint.id);
      if (result.replayed > 0) auditDone(request);
      return redirectWithFlash(ctx, request, reply, `${BASE}/${endpoint.id}`, {
        kind: "success",
        text: format(w.replayed, {
          deliveries: isolate(lang, count(w, result.replayed)),
          url: isolate(lang, endpoint.url),
        }),
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
export function DisabledBanner({
  endpoints,
  lang,
}: {
  endpoints: { id: string; url: string; disabled_at: string | null }[];
  lang: DashboardLanguage;
}): VNode | null {
  if (endpoints.length === 0) return null;
  const w = WORDS[lang];
  const one = endpoints.length === 1;
  return (
    <div class="notice error" role="alert">
      <p>
        <strong>{one ? w.banner_one : format(w.banner_many, { n: endpoints.length })}</strong>{" "}
        {one ? w.banner_why_one : w.banner_why_many}{" "}
        {endpoints.slice(0, 3).map((e, i) => (
          <>
            {i > 0 && (lang === "ar" ? "، " : ", ")}
            <a href={`${BASE}/${e.id}`}>
              <bdi>{e.url}</bdi>
            </a>
          </>
        ))}
        {endpoints.length > 3 && (lang === "ar" ? "، …" : ", …")}. {w.banner_fix}
      </p>
    </div>
  );
}
