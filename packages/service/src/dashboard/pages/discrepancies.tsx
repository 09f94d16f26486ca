/** @jsxImportSource preact */
/**
 * Discrepancies: where svc's books and a gateway's disagree — operations a gateway reported that
 * break a money rule, operations svc sent whose outcome was lost at a gateway that cannot be asked
 * (settled here by hand: done or not done), payments taken after their attempt closed. Each is
 * closed with a note once an operator has checked it with the gateway. English and Arabic.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { auditDone } from "../../audit/audit.js";
import type { DiscrepancyView } from "../../gateways/discrepancies.service.js";
import { AppError } from "../../http/problem.js";
import type { VNode } from "../../pages/jsx.js";
import {
  type DashboardContext,
  formOf,
  pathParam,
  redirectWithFlash,
  render,
  sessionOf,
} from "../context.js";
import { type DashboardLanguage, dashboardLanguage, format, isolate, messages } from "../i18n.js";
import { label } from "../labels.js";
import { can, ErrorSummary, Field, PAGE_PERMISSIONS, PostForm, RadioGroup, Time } from "../ui.js";

const ID = /^dsc_[a-z2-7]{1,40}$/;
const BASE = "/dashboard/discrepancies";

const WORDS = {
  en: {
    title: "Discrepancies",
    intro_1:
      "Where svc's books and a gateway's disagree: an operation a gateway reported that breaks a money rule, an operation svc sent whose answer was lost, a payment taken after its attempt closed. Until you settle one, it is",
    intro_not_applied: "not applied",
    intro_2:
      "to the payment's totals as done, and no webhook is sent for it. Check each with the gateway, put the money right there (or with the customer), then mark it resolved with what you did.",
    latest_one: "The latest discrepancy.",
    latest: "The latest {n} discrepancies, newest first.",
    none: "No discrepancies: every operation your gateways reported obeyed the money rules.",
    of: "{op} of",
    open: "Open",
    resolved: "Resolved",
    resolved_by: "Resolved by",
    resolved_at: "Resolved on",
    resolution_note: "Note",
    kind_gateway_operation: "Reported by the gateway",
    kind_unknown_outcome: "Outcome unknown — check the gateway's portal",
    kind_unknown_outcome_settled: "Outcome was unknown — settled from the gateway's portal",
    kind_late_payment: "Paid after the attempt closed",
    payment: "Payment",
    operation: "Operation",
    removed: "(removed)",
    gateway: "Gateway",
    gateway_op: "{pg}, operation",
    gateway_ref: "{pg}, reference",
    rule: "Rule",
    reported: "Reported",
    reference: "Reference",
    outcome: "What does the gateway's portal show?",
    outcome_hint:
      "Look for the {op} of {amount} on the payment at the gateway. svc will not send it again on its own.",
    outcome_done: "Done at the gateway (count it and send its webhook)",
    outcome_not_done: "Not done (remove it)",
    resolved_done: "Settled as done at the gateway: it counts, and its webhook was sent.",
    resolved_not_done: "Settled as not done: it was removed.",
    note: "What was done about it",
    note_hint: "For the record, e.g. “reversed on the gateway’s dashboard”.",
    note_hint_unknown: "For the record, e.g. “found in the KNET portal, refund 2.000 KWD on 26 Nov”.",
    resolve: "Mark resolved",
    settle: "Settle",
    note_missing: "Write what was done about the discrepancy (1 to 1,000 characters), then mark it resolved.",
    outcome_missing: "Choose what the gateway's portal shows: done or not done.",
    not_found: "There is no such discrepancy.",
    done: "Discrepancy {id} is resolved.",
    done_done:
      "Discrepancy {id} is resolved: the {op} of {amount} counts as done and its webhook is on its way.",
    done_not_done:
      "Discrepancy {id} is resolved: the {op} of {amount} was removed. It does not count, and it can be made again.",
  },
  ar: {
    title: "الفروقات",
    intro_1:
      "حيث تختلف سجلات svc عن سجلات البوابة: عملية أبلغت عنها بوابة تخالف قاعدة مبالغ، أو عملية أرسلها svc وضاع ردّها، أو دفعة أُخذت بعد إغلاق محاولتها. ما لم تسوِّها، فإنها",
    intro_not_applied: "لا تُطبَّق",
    intro_2:
      "على مجاميع الدفعة على أنها تمّت، ولا يُرسَل لها أي ويب هوك. راجع كل واحدة مع البوابة، وصحّح المبلغ هناك (أو مع العميل)، ثم علّمها محلولة مع ما فعلته.",
    latest_one: "آخر فرق.",
    latest: "آخر الفروقات (العدد: {n})، الأحدث أولاً.",
    none: "لا فروقات: كل العمليات التي أبلغت عنها بواباتك التزمت بقواعد المبالغ.",
    of: "{op} بمبلغ",
    open: "مفتوح",
    resolved: "محلول",
    resolved_by: "حلّه",
    resolved_at: "تاريخ الحل",
    resolution_note: "الملاحظة",
    kind_gateway_operation: "أبلغت عنه البوابة",
    kind_unknown_outcome: "النتيجة غير معروفة — راجع بوابة التاجر لدى البوابة",
    kind_unknown_outcome_settled: "كانت النتيجة غير معروفة — سُوّيت من بوابة التاجر لدى البوابة",
    kind_late_payment: "دُفعت بعد إغلاق المحاولة",
    payment: "الدفعة",
    operation: "العملية",
    removed: "(أُزيلت)",
    gateway: "البوابة",
    gateway_op: "{pg}، العملية",
    gateway_ref: "{pg}، المرجع",
    rule: "القاعدة",
    reported: "تاريخ البلاغ",
    reference: "المرجع",
    outcome: "ماذا تُظهر بوابة التاجر لدى البوابة؟",
    outcome_hint: "ابحث عن {op} بمبلغ {amount} على الدفعة لدى البوابة. لن يعيد svc إرسالها من تلقاء نفسه.",
    outcome_done: "تمّت لدى البوابة (احتسبها وأرسل الويب هوك الخاص بها)",
    outcome_not_done: "لم تتم (أزِلها)",
    resolved_done: "سُوّيت على أنها تمّت لدى البوابة: تُحتسب، وأُرسل الويب هوك الخاص بها.",
    resolved_not_done: "سُوّيت على أنها لم تتم: أُزيلت.",
    note: "ما الذي فُعل بشأنه",
    note_hint: "للسجل، مثل «عُكست في لوحة تحكم البوابة».",
    note_hint_unknown: "للسجل، مثل «وُجدت في بوابة كي نت، استرداد \u20662.000 KWD\u2069 في 26 نوفمبر».",
    resolve: "تعليم كمحلول",
    settle: "تسوية",
    note_missing: "اكتب ما الذي فُعل بشأن الفرق (من 1 إلى 1,000 حرف)، ثم علّمه محلولًا.",
    outcome_missing: "اختر ما تُظهره بوابة التاجر لدى البوابة: تمّت أو لم تتم.",
    not_found: "لا يوجد فرق كهذا.",
    done: "حُلّ الفرق {id}.",
    done_done: "حُلّ الفرق {id}: تُحتسب عملية {op} بمبلغ {amount} على أنها تمّت، والويب هوك الخاص بها في طريقه.",
    done_not_done: "حُلّ الفرق {id}: أُزيلت عملية {op} بمبلغ {amount}. لا تُحتسب، ويمكن إجراؤها من جديد.",
  },
} satisfies Record<DashboardLanguage, Record<string, string>>;

type Words = (typeof WORDS)["en"];

/** A refused resolve form: which discrepancy, the message per field, and what was typed. */
interface Refusal {
  id: string;
  errors: { note?: string; outcome?: string; form?: string };
  /** The messages are the discrepancies service's English. */
  english?: boolean;
  note?: string;
  outcome?: string;
}

const kindText = (w: Words, d: DiscrepancyView) =>
  d.kind === "unknown_outcome"
    ? d.resolution
      ? w.kind_unknown_outcome_settled
      : w.kind_unknown_outcome
    : d.kind === "late_payment"
      ? w.kind_late_payment
      : w.kind_gateway_operation;

/** The operation svc sent (unknown_outcome): on its payment's timeline while it exists. */
function OperationLink({ d, w }: { d: DiscrepancyView; w: Words }): VNode {
  const child = d.operation_session_id!;
  if (d.resolution?.outcome === "not_done")
    return (
      <>
        <code>{child}</code> {w.removed}
      </>
    );
  return (
    <a href={`/dashboard/payments/${d.session_id}#op-${child}`}>
      <code>{child}</code>
    </a>
  );
}

function ResolveForm({
  d,
  lang,
  csrf,
  refusal,
}: {
  d: DiscrepancyView;
  lang: DashboardLanguage;
  csrf: string | undefined;
  refusal: Refusal | undefined;
}): VNode {
  const w = WORDS[lang];
  const unknown = d.kind === "unknown_outcome";
  const e = refusal?.errors ?? {};
  const errorLang = refusal?.english && lang === "ar" ? ("en" as const) : undefined;
  const amount = isolate(lang, `${d.amount} ${d.currency_code}`);
  const op = lang === "en" ? label(d.operation, lang).toLowerCase() : label(d.operation, lang);
  return (
    <PostForm action={`${BASE}/${d.id}/resolve`} csrf={csrf}>
      {refusal && (
        <ErrorSummary
          heading={messages(lang).there_is_a_problem}
          messages={[e.form, e.outcome, e.note].filter((m): m is string => Boolean(m))}
          messagesLang={errorLang}
        />
      )}
      {unknown && (
        <RadioGroup
          name="outcome"
          id={`f-outcome-${d.id}`}
          legend={w.outcome}
          hint={format(w.outcome_hint, { op, amount })}
          value={refusal?.outcome}
          required
          options={[
            { value: "done", text: w.outcome_done },
            { value: "not_done", text: w.outcome_not_done },
          ]}
          error={e.outcome}
          errorLang={errorLang}
        />
      )}
      <Field
        name="note"
        id={`f-note-${d.id}`}
        label={w.note}
        hint={unknown ? w.note_hint_unknown : w.note_hint}
        value={refusal?.note ?? ""}
        error={e.note}
        errorLang={errorLang}
        input={{ required: true, maxlength: "1000", class: "wide" }}
      />
      <button type="submit">{unknown ? w.settle : w.resolve}</button>
    </PostForm>
  );
}

function Discrepancy({
  d,
  lang,
  csrf,
  mayResolve,
  refusal,
}: {
  d: DiscrepancyView;
  lang: DashboardLanguage;
  csrf: string | undefined;
  mayResolve: boolean;
  refusal: Refusal | undefined;
}): VNode {
  const w = WORDS[lang];
  // The service's explanation is English: marked so on an Arabic page.
  const english = lang === "ar" ? { lang: "en", dir: "ltr" as const } : {};
  return (
    <article id={d.id} aria-labelledby={`h-${d.id}`}>
      <h2 id={`h-${d.id}`}>
        {format(w.of, { op: label(d.operation, lang) })}{" "}
        <bdi dir="ltr">{`${d.amount} ${d.currency_code}`}</bdi>{" "}
        {d.status === "open" && <span class="badge bad">{w.open}</span>}
      </h2>
      <p class="kind">
        <strong>{kindText(w, d)}</strong>
      </p>
      <p {...english}>{d.detail}</p>
      <dl class="facts">
        <dt>{w.payment}</dt>
        <dd>
          <a href={`/dashboard/payments/${d.session_id}`}>
            <code>{d.session_id}</code>
          </a>
        </dd>
        {d.operation_session_id && (
          <>
            <dt>{w.operation}</dt>
            <dd>
              <OperationLink d={d} w={w} />
            </dd>
          </>
        )}
        <dt>{w.gateway}</dt>
        <dd>
          {format(d.kind === "unknown_outcome" ? w.gateway_ref : w.gateway_op, {
            pg: isolate(lang, d.pg_code),
          })}{" "}
          <code>{d.gateway_operation_id}</code>
        </dd>
        <dt>{w.rule}</dt>
        <dd>
          <code>{d.rule}</code>
        </dd>
        <dt>{w.reported}</dt>
        <dd>
          <Time value={d.created_at} />
        </dd>
        <dt>{w.reference}</dt>
        <dd>
          <code>{d.id}</code>
        </dd>
      </dl>
      {d.resolution ? (
        <>
          <p>
            <span class="badge good">{w.resolved}</span>
            {d.resolution.outcome && (
              <>
                {" "}
                <strong>{d.resolution.outcome === "done" ? w.resolved_done : w.resolved_not_done}</strong>
              </>
            )}
          </p>
          <dl class="facts">
            <dt>{w.resolved_by}</dt>
            <dd>
              <bdi>{d.resolution.resolved_by ?? "—"}</bdi>
            </dd>
            <dt>{w.resolved_at}</dt>
            <dd>
              <Time value={d.resolution.resolved_at} />
            </dd>
            <dt>{w.resolution_note}</dt>
            <dd>
              <bdi>{d.resolution.note ?? "—"}</bdi>
            </dd>
          </dl>
        </>
      ) : mayResolve ? (
        <ResolveForm d={d} lang={lang} csrf={csrf} refusal={refusal} />
      ) : null}
    </article>
  );
}

async function listPage(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  refusal?: Refusal,
  status = 200,
) {
  const session = sessionOf(request);
  const lang = dashboardLanguage(request);
  const w = WORDS[lang];
  const { discrepancies } = await ctx.services().discrepancies.list(session.merchantId, { limit: 100 });
  const mayResolve = can(session.user, "payment.refund");
  // A refusal whose discrepancy shows no form (resolved meanwhile, or gone) is said at the top.
  const shownWithForm =
    refusal && discrepancies.some((d) => d.id === refusal.id && d.status === "open" && mayResolve);
  return render(
    ctx,
    request,
    reply,
    { title: w.title, current: "discrepancies", translated: true },
    <>
      {refusal && !shownWithForm && (
        <ErrorSummary
          heading={messages(lang).there_is_a_problem}
          messages={Object.values(refusal.errors)}
          messagesLang={refusal.english && lang === "ar" ? "en" : undefined}
        />
      )}
      <p>
        {w.intro_1} <strong>{w.intro_not_applied}</strong> {w.intro_2}
      </p>
      <p role="status">
        {discrepancies.length === 0
          ? w.none
          : discrepancies.length === 1
            ? w.latest_one
            : format(w.latest, { n: discrepancies.length })}
      </p>
      {discrepancies.map((d) => (
        <Discrepancy
          d={d}
          lang={lang}
          csrf={session.csrfToken}
          mayResolve={mayResolve}
          refusal={refusal?.id === d.id ? refusal : undefined}
        />
      ))}
    </>,
    status,
  );
}

export function discrepancyPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.discrepancies } };

  scope.get("/discrepancies", { config }, async (request, reply) => listPage(ctx, request, reply));

  // Every refusal answers 4xx with the form again (never a redirect): only a settled one is audited.
  scope.post(
    "/discrepancies/:id/resolve",
    { config: { dashboard: { permission: "payment.refund" } } },
    async (request, reply) => {
      const session = sessionOf(request);
      const lang = dashboardLanguage(request);
      const w = WORDS[lang];
      const id = pathParam(request, "id");
      const form = formOf(request);
      const note = form.note?.trim() ?? "";
      const outcome = form.outcome === "done" || form.outcome === "not_done" ? form.outcome : undefined;
      const typed = { note: form.note ?? "", ...(outcome ? { outcome } : {}) };
      const { discrepancies } = ctx.services();
      let found: DiscrepancyView | undefined;
      try {
        found = ID.test(id) ? await discrepancies.get(session.merchantId, id) : undefined;
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== "not_found") throw error;
      }
      if (!found) return listPage(ctx, request, reply, { id, errors: { form: w.not_found } }, 404);
      const unknown = found.kind === "unknown_outcome" && found.status === "open";
      const errors: Refusal["errors"] = {};
      if (unknown && !outcome) errors.outcome = w.outcome_missing;
      if (!note || note.length > 1000) errors.note = w.note_missing;
      if (errors.outcome || errors.note) return listPage(ctx, request, reply, { id, errors, ...typed }, 422);
      try {
        await discrepancies.resolve(
          session.merchantId,
          id,
          note,
          session.user.username,
          unknown ? outcome : undefined,
        );
        auditDone(request);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return listPage(
          ctx,
          request,
          reply,
          { id, errors: { form: error.message }, english: true, ...typed },
          error.status,
        );
      }
      const values = {
        id,
        op: lang === "en" ? label(found.operation, lang).toLowerCase() : label(found.operation, lang),
        amount: isolate(lang, `${found.amount} ${found.currency_code}`),
      };
      return redirectWithFlash(ctx, request, reply, BASE, {
        kind: "success",
        text: format(!unknown ? w.done : outcome === "done" ? w.done_done : w.done_not_done, values),
      });
    },
  );
}
