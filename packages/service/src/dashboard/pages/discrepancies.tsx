/** @jsxImportSource preact */
/**
 * Discrepancies: operations a gateway reported that break a money rule, kept out of the totals
 * until an operator has reconciled them with the gateway and closed them with a note. English and Arabic.
 */
import type { FastifyInstance } from "fastify";
import { AppError } from "../../http/problem.js";
import {
  type DashboardContext,
  formOf,
  pathParam,
  redirectWithFlash,
  render,
  sessionOf,
} from "../context.js";
import { type DashboardLanguage, dashboardLanguage, format } from "../i18n.js";
import { label } from "../labels.js";
import { can, Field, PAGE_PERMISSIONS, PostForm, Time } from "../ui.js";

const ID = /^dsc_[a-z2-7]{1,40}$/;

const WORDS = {
  en: {
    title: "Discrepancies",
    intro_1:
      "A gateway reported these operations from its own dashboard, but each would refund or capture more than is left, or does not fit the payment's state or currency. They were",
    intro_not_applied: "not applied",
    intro_2:
      "to the payments' totals and no webhook was sent. Check each with the gateway, put the money right there (or with the customer), then mark it resolved with what you did.",
    latest_one: "The latest discrepancy.",
    latest: "The latest {n} discrepancies, newest first.",
    none: "No discrepancies: every operation your gateways reported obeyed the money rules.",
    of: "{op} of",
    open: "Open",
    resolved: "Resolved",
    resolved_by: "by {who}",
    payment: "Payment",
    gateway: "Gateway",
    gateway_op: "{pg}, operation",
    rule: "Rule",
    reported: "Reported",
    reference: "Reference",
    note: "What was done about it",
    note_hint: "For the record, e.g. “reversed on the gateway’s dashboard”.",
    resolve: "Mark resolved",
    note_missing: "Write what was done about the discrepancy (1 to 1,000 characters), then mark it resolved.",
    done: "Discrepancy {id} is resolved.",
  },
  ar: {
    title: "الفروقات",
    intro_1:
      "أبلغت بوابة عن هذه العمليات من لوحة تحكمها، لكن كلًّا منها يسترد أو يحصّل أكثر مما تبقى، أو لا يناسب حالة الدفعة أو عملتها. لم",
    intro_not_applied: "تُطبَّق",
    intro_2:
      "على مجاميع المدفوعات ولم يُرسَل أي ويب هوك. راجع كل واحدة مع البوابة، وصحّح المبلغ هناك (أو مع العميل)، ثم علّمها محلولة مع ما فعلته.",
    latest_one: "آخر فرق.",
    latest: "آخر الفروقات (العدد: {n})، الأحدث أولاً.",
    none: "لا فروقات: كل العمليات التي أبلغت عنها بواباتك التزمت بقواعد المبالغ.",
    of: "{op} بمبلغ",
    open: "مفتوح",
    resolved: "محلول",
    resolved_by: "بواسطة {who}",
    payment: "الدفعة",
    gateway: "البوابة",
    gateway_op: "{pg}، العملية",
    rule: "القاعدة",
    reported: "تاريخ البلاغ",
    reference: "المرجع",
    note: "ما الذي فُعل بشأنه",
    note_hint: "للسجل، مثل «عُكست في لوحة تحكم البوابة».",
    resolve: "تعليم كمحلول",
    note_missing: "اكتب ما الذي فُعل بشأن الفرق (من 1 إلى 1,000 حرف)، ثم علّمه محلولًا.",
    done: "حُلّ الفرق {id}.",
  },
} satisfies Record<DashboardLanguage, Record<string, string>>;

export function discrepancyPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.discrepancies } };

  scope.get("/discrepancies", { config }, async (request, reply) => {
    const session = sessionOf(request);
    const lang = dashboardLanguage(request);
    const w = WORDS[lang];
    const { discrepancies } = await ctx.services().discrepancies.list(session.merchantId, { limit: 100 });
    const mayResolve = can(session.user, "payment.refund");
    return render(
      ctx,
      request,
      reply,
      { title: w.title, current: "discrepancies", translated: true },
      <>
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
          <article aria-labelledby={`h-${d.id}`}>
            <h2 id={`h-${d.id}`}>
              {format(w.of, { op: label(d.operation, lang) })}{" "}
              <bdi dir="ltr">{`${d.amount} ${d.currency_code}`}</bdi>{" "}
              {d.status === "open" && <span class="badge bad">{w.open}</span>}
            </h2>
            <p>
              <bdi>{d.detail}</bdi>
            </p>
            <dl class="facts">
              <dt>{w.payment}</dt>
              <dd>
                <a href={`/dashboard/payments/${d.session_id}`}>
                  <code>{d.session_id}</code>
                </a>
              </dd>
              <dt>{w.gateway}</dt>
              <dd>
                {format(w.gateway_op, { pg: d.pg_code })} <code>{d.gateway_operation_id}</code>
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
              <p>
                <span class="badge good">{w.resolved}</span>{" "}
                {format(w.resolved_by, { who: d.resolution.resolved_by ?? "—" })},{" "}
                <Time value={d.resolution.resolved_at} />: <bdi>{d.resolution.note ?? ""}</bdi>
              </p>
            ) : mayResolve ? (
              <PostForm action={`/dashboard/discrepancies/${d.id}/resolve`} csrf={session.csrfToken}>
                <Field
                  name="note"
                  id={`f-note-${d.id}`}
                  label={w.note}
                  hint={w.note_hint}
                  input={{ required: true, maxlength: "1000" }}
                />
                <button type="submit">{w.resolve}</button>
              </PostForm>
            ) : (
              <p>
                <span class="badge bad">{w.open}</span>
              </p>
            )}
          </article>
        ))}
      </>,
    );
  });

  scope.post(
    "/discrepancies/:id/resolve",
    { config: { dashboard: { permission: "payment.refund" } } },
    async (request, reply) => {
      const session = sessionOf(request);
      const w = WORDS[dashboardLanguage(request)];
      const id = pathParam(request, "id");
      const note = formOf(request).note?.trim() ?? "";
      if (!ID.test(id) || !note || note.length > 1000)
        return redirectWithFlash(ctx, request, reply, "/dashboard/discrepancies", {
          kind: "error",
          text: w.note_missing,
        });
      try {
        await ctx.services().discrepancies.resolve(session.merchantId, id, note, session.user.username);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return redirectWithFlash(ctx, request, reply, "/dashboard/discrepancies", {
          kind: "error",
          text: error.message,
        });
      }
      return redirectWithFlash(ctx, request, reply, "/dashboard/discrepancies", {
        kind: "success",
        text: format(w.done, { id }),
      });
    },
  );
}
