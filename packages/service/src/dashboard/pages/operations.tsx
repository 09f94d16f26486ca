/** @jsxImportSource preact */
/**
 * Refund, capture and void from the payment page. The forms call the same operations service as
 * the API, with the signed-in user as initiator (`source: input`), so the webhook they cause is
 * the API's, signed the same way. A form appears only to a user with its permission and only
 * when the payment allows the operation; the POST checks the permission again (forged forms).
 *
 * Money moves only after a confirmation: the form's first POST checks the amount (typed as a
 * person types it: "12.5" is 12.500 KWD) and answers a page that repeats the amount, the currency
 * and the effect, with an optional reason; only the POST of that page (`confirm=yes`) operates.
 * A POST without it never moves money, whoever sends it.
 *
 * Each rendered form carries its own idempotency key, claimed under the user like an API
 * request's `Idempotency-Key`: a double click or a resubmitted form never operates twice, and
 * after an unknown gateway outcome the form keeps its key, so submitting it again recovers that
 * operation instead of starting another.
 *
 * English and Arabic: the forms, the confirmation, every refusal and every notice.
 */
import { randomBytes } from "node:crypto";
import { auditDone } from "../../audit/audit.js";
import { type NormalisedAmount, normaliseAmountInput, type Operation, type Permission } from "@svc/protocol";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { claimKey, finishKey, newLease, releaseKey, requestFingerprint } from "../../http/idempotency.js";
import { AppError } from "../../http/problem.js";
import {
  type DashboardContext,
  formOf,
  redirectWithFlash,
  render,
  sessionOf,
  pathParam,
} from "../context.js";
import type { VNode } from "../../pages/jsx.js";
import { type DashboardLanguage, dashboardLanguage, format, isolate } from "../i18n.js";
import { can, ErrorSummary, Field, PostForm } from "../ui.js";
import { type OperationFormState, type PaymentView, renderPayment } from "./payment.js";

/** This page's words. `{op}` is the operation's name ("refund"), `{amount}` an amount with its currency. */
const WORDS = {
  en: {
    refund: "Refund",
    capture: "Capture",
    void: "Void",
    refund_noun: "refund",
    capture_noun: "capture",
    void_noun: "void",
    refund_past: "refunded",
    capture_past: "captured",
    void_past: "voided",
    not_done: "The {op} was not done",
    amount_to: "Amount to {op} ({currency})",
    at_most: "At most {amount}.",
    review: "Review {op}…",
    none_possible: "No refund, capture or void is possible on this payment in its current state.",
    confirm_title: "Confirm the {op}",
    on_payment: "on payment {id}",
    of_customer: "of {who}",
    effect_refund:
      "{amount} goes back to the customer's card or wallet. The payment's refundable amount goes from {from} to {to}. A refund cannot be undone.",
    effect_capture:
      "{amount} of the authorisation is taken from the customer. What can still be captured goes from {from} to {to}.",
    effect_void:
      "The remaining authorisation of {amount} is released to the customer; nothing more can be captured on this payment. A void cannot be undone.",
    reason: "Reason (optional, kept with the operation)",
    reason_hint:
      "For your team: for example the customer's request or the ticket number. It is not sent to the customer or in the webhook.",
    cancel: "Cancel, do nothing",
    more_than: "That is more than can be {past} now: at most {amount}.",
    more_than_done: "That is more than can be {past} now: at most {amount}. Nothing was {past}.",
    wrong_state: "This payment cannot be {past} now (it is {state}). Nothing was done.",
    another_state: "in another state",
    unreachable: "The gateway could not be reached, so nothing was {past}. Try again in a few minutes.",
    declined: "The gateway declined the {op}{reason}. Nothing was {past} and no webhook was sent.",
    unknown:
      "The gateway did not answer in time, so the {op} may have been done. Submit the form again to get its outcome: it will not be done twice.",
    unknown_manual:
      "The gateway did not answer in time, so the {op} may have been done. This gateway cannot be asked about it, so svc will not send it again, and submitting the form again gives this answer: check it in the gateway's portal, then settle it on the Discrepancies page (done or not done). Until then it counts as in progress.",
    already: "This {op} was already submitted, so it was not done again. The payment below shows its result.",
    done_what: "{Op} of {amount} (reference {ref})",
    queued:
      "{what} is queued at the gateway. It shows as queued below until the gateway sends its final result.",
    succeeded: "{what} succeeded.",
    amount_empty: "Enter an amount in {currency}, such as {example}.",
    amount_not_digits: "Enter the amount in digits, such as {example}.",
    amount_no_decimals: "{currency} has no decimals: enter a whole amount, such as {example}.",
    amount_too_many_decimals: "{currency} has {exponent} decimals: {typed} has {decimals}.",
    amount_zero: "Enter an amount greater than zero.",
  },
  ar: {
    refund: "استرداد",
    capture: "تحصيل",
    void: "إبطال",
    refund_noun: "الاسترداد",
    capture_noun: "التحصيل",
    void_noun: "الإبطال",
    refund_past: "يُسترد",
    capture_past: "يُحصَّل",
    void_past: "يُبطَل",
    not_done: "لم يتم {op}",
    amount_to: "مبلغ {op} ({currency})",
    at_most: "الحد الأقصى {amount}.",
    review: "مراجعة {op}…",
    none_possible: "لا يمكن الاسترداد أو التحصيل أو الإبطال على هذه الدفعة في حالتها الحالية.",
    confirm_title: "تأكيد {op}",
    on_payment: "على الدفعة {id}",
    of_customer: "للعميل {who}",
    effect_refund:
      "يعود {amount} إلى بطاقة العميل أو محفظته. ينخفض المبلغ القابل للاسترداد من {from} إلى {to}. لا يمكن التراجع عن الاسترداد.",
    effect_capture: "يُؤخذ {amount} من التفويض من العميل. ينخفض المتبقي للتحصيل من {from} إلى {to}.",
    effect_void:
      "يُحرَّر باقي التفويض البالغ {amount} للعميل، ولا يمكن تحصيل أي مبلغ آخر على هذه الدفعة. لا يمكن التراجع عن الإبطال.",
    reason: "السبب (اختياري، يُحفظ مع العملية)",
    reason_hint: "لفريقك: مثل طلب العميل أو رقم التذكرة. لا يُرسَل إلى العميل ولا في الويب هوك.",
    cancel: "إلغاء، دون أي إجراء",
    more_than: "هذا أكثر مما يمكن أن {past} الآن: الحد الأقصى {amount}.",
    more_than_done: "هذا أكثر مما يمكن أن {past} الآن: الحد الأقصى {amount}. لم يُنفَّذ شيء.",
    wrong_state: "لا يمكن أن {past} هذه الدفعة الآن (حالتها: {state}). لم يُنفَّذ شيء.",
    another_state: "حالة أخرى",
    unreachable: "تعذّر الوصول إلى البوابة، فلم يُنفَّذ شيء. أعد المحاولة بعد بضع دقائق.",
    declined: "رفضت البوابة {op}{reason}. لم يُنفَّذ شيء ولم يُرسَل أي ويب هوك.",
    unknown:
      "لم تُجب البوابة في الوقت المحدد، فربما نُفِّذ {op}. أرسل النموذج مرة أخرى لمعرفة النتيجة: لن يُنفَّذ مرتين.",
    unknown_manual:
      "لم تُجب البوابة في الوقت المحدد، فربما نُفِّذ {op}. لا يمكن سؤال هذه البوابة عنه، لذا لن يعيد svc إرساله، وإرسال النموذج مرة أخرى يعطي هذا الرد نفسه: راجعه في بوابة التاجر لدى البوابة، ثم سوِّه في صفحة الفروقات (تمّ أو لم يتم). حتى ذلك الحين يُحتسب قيد التنفيذ.",
    already: "أُرسل {op} هذا من قبل، فلم يُنفَّذ مرة أخرى. تظهر نتيجته في الدفعة أدناه.",
    done_what: "{Op} بمبلغ {amount} (المرجع {ref})",
    queued: "{what} في انتظار البوابة. يظهر كمنتظر أدناه حتى ترسل البوابة نتيجتها النهائية.",
    succeeded: "نجح {what}.",
    amount_empty: "أدخل مبلغًا بعملة {currency}، مثل {example}.",
    amount_not_digits: "أدخل المبلغ بالأرقام، مثل {example}.",
    amount_no_decimals: "لا كسور في {currency}: أدخل مبلغًا صحيحًا، مثل {example}.",
    amount_too_many_decimals: "عملة {currency} لها {exponent} خانات عشرية، والمبلغ {typed} فيه {decimals}.",
    amount_zero: "أدخل مبلغًا أكبر من صفر.",
  },
} satisfies Record<DashboardLanguage, Record<string, string>>;

type Words = (typeof WORDS)["en"];
const wordsOf = (request: FastifyRequest) => WORDS[dashboardLanguage(request)];
/** Left to right inside an Arabic sentence: an amount with its currency, a reference. */
const iso = (w: Words, text: string) => isolate(w === WORDS.ar ? "ar" : "en", text);
const money = (w: Words, amount: string, currency: string) => iso(w, `${amount} ${currency}`);

const SESSION_ID = /^sess_[a-z2-7]{1,40}$/;

const OPERATIONS: { operation: Operation; permission: Permission }[] = [
  { operation: "refund", permission: "payment.refund" },
  { operation: "capture", permission: "payment.capture" },
  { operation: "void", permission: "payment.void" },
];

/** The operation's name as a verb ("Refund"), as a noun in a sentence ("refund") and done ("refunded"). */
const verb = (w: Words, op: Operation) => w[op];
const noun = (w: Words, op: Operation) => w[`${op}_noun`];
const past = (w: Words, op: Operation) => w[`${op}_past`];

/** A refused amount in `lang` (the payment request form's too). */
export function refusedAmount(
  lang: DashboardLanguage,
  refused: Extract<NormalisedAmount, { ok: false }>,
  typed: string,
  currency: string,
): string {
  return amountProblem(WORDS[lang], refused, typed, currency);
}

/** A refused amount in the page's language. */
function amountProblem(
  w: Words,
  refused: Extract<NormalisedAmount, { ok: false }>,
  typed: string,
  currency: string,
) {
  const values = {
    currency,
    example: iso(w, refused.example),
    exponent: refused.exponent,
    typed: iso(w, typed.trim()),
    decimals: refused.typedDecimals,
  };
  switch (refused.problem) {
    case "empty":
      return format(w.amount_empty, values);
    case "not_digits":
      return format(w.amount_not_digits, values);
    case "no_decimals":
      return format(w.amount_no_decimals, values);
    case "too_many_decimals":
      return format(w.amount_too_many_decimals, values);
    case "zero":
      return w.amount_zero;
    default:
      return refused.message;
  }
}

const positive = (amount: string) => Number(amount) > 0;

function applicable(operation: Operation, p: PaymentView): boolean {
  if (operation === "refund") return positive(p.refundable_amount);
  if (operation === "capture") return p.state === "authorized" && positive(p.capturable_amount);
  return p.state === "authorized" && !positive(p.captured_amount) && positive(p.capturable_amount);
}

/** The operation forms this user may use on this payment, with any error of the last attempt. */
export function operationSections(
  request: FastifyRequest,
  p: PaymentView,
  state: OperationFormState,
): VNode | null {
  const session = sessionOf(request);
  const w = wordsOf(request);
  const allowed = OPERATIONS.filter((o) => can(session.user, o.permission));
  if (allowed.length === 0) return null;
  const possible = allowed.filter((o) => applicable(o.operation, p));
  return (
    <>
      {state.error && state.operation && (
        <ErrorSummary
          heading={format(w.not_done, { op: noun(w, state.operation as Operation) })}
          messages={[state.error]}
        />
      )}
      <div class="operations">
        {possible.length ? (
          <div class="grid">
            {possible.map((o) => {
              const own = state.operation === o.operation;
              const max = o.operation === "refund" ? p.refundable_amount : p.capturable_amount;
              const key = (own && state.idempotencyKey) || `dash_${randomBytes(16).toString("hex")}`;
              return (
                <section aria-labelledby={`op-${o.operation}-h`}>
                  <h2 id={`op-${o.operation}-h`}>{verb(w, o.operation)}</h2>
                  <PostForm
                    action={`/dashboard/payments/${p.session_id}/${o.operation}`}
                    csrf={session.csrfToken}
                  >
                    <input type="hidden" name="idempotency_key" value={key} />
                    {o.operation !== "void" && (
                      // No amount is filled in: the merchant types what to refund or capture.
                      <Field
                        name="amount"
                        id={`f-${o.operation}-amount`}
                        label={format(w.amount_to, { op: noun(w, o.operation), currency: p.currency_code })}
                        value={own ? state.amount : ""}
                        hint={format(w.at_most, { amount: money(w, max, p.currency_code) })}
                        error={own ? state.error : undefined}
                        input={{ inputmode: "decimal", required: true, dir: "ltr" }}
                      />
                    )}
                    <button type="submit" class={o.operation === "void" ? "danger" : undefined}>
                      {format(w.review, { op: noun(w, o.operation) })}
                    </button>
                  </PostForm>
                </section>
              );
            })}
          </div>
        ) : (
          <p>{w.none_possible}</p>
        )}
      </div>
    </>
  );
}

/** An operation's refusal in the merchant's words (the API's detail speaks to developers). */
function refusalText(w: Words, error: AppError, op: Operation, p: PaymentView | undefined): string {
  const currency = p?.currency_code ?? "";
  switch (error.code) {
    case "operation_declined":
      return declineText(w, error, op);
    case "amount_exceeds_refundable":
      return format(w.more_than_done, {
        past: past(w, op),
        amount: money(w, p?.refundable_amount ?? "?", currency),
      });
    case "amount_exceeds_capturable":
      return format(w.more_than_done, {
        past: past(w, op),
        amount: money(w, p?.capturable_amount ?? "?", currency),
      });
    case "invalid_state_for_operation":
      return format(w.wrong_state, { past: past(w, op), state: p?.state ?? w.another_state });
    case "gateway_unavailable":
      return format(w.unreachable, { past: past(w, op) });
    default:
      return error.message;
  }
}

function declineText(w: Words, error: AppError, op: Operation): string {
  const pg = (error.extra.pg_response ?? {}) as Record<string, unknown>;
  const reason = [pg.message, pg.reason, pg.code, pg.status].find((v) => typeof v === "string");
  return format(w.declined, { op: noun(w, op), reason: reason ? `: ${reason}` : "", past: past(w, op) });
}

/** What the operation will do, in words, for the confirmation page. */
function effectText(w: Words, op: Operation, p: PaymentView, amount: string): string {
  const c = p.currency_code;
  const minus = (from: string) => {
    const exp = from.split(".")[1]?.length ?? 0;
    const scale = 10 ** exp;
    const left = Math.round(Number(from) * scale) - Math.round(Number(amount) * scale);
    return (left / scale).toFixed(exp);
  };
  const m = (v: string) => money(w, v, c);
  if (op === "refund")
    return format(w.effect_refund, {
      amount: m(amount),
      from: m(p.refundable_amount),
      to: m(minus(p.refundable_amount)),
    });
  if (op === "capture")
    return format(w.effect_capture, {
      amount: m(amount),
      from: m(p.capturable_amount),
      to: m(minus(p.capturable_amount)),
    });
  return format(w.effect_void, { amount: m(amount) });
}

function confirmPage(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  op: Operation,
  p: PaymentView,
  amount: string,
  key: string,
) {
  const session = sessionOf(request);
  const w = wordsOf(request);
  const page = `/dashboard/payments/${p.session_id}`;
  const who = [p.customer_first_name, p.customer_last_name].filter(Boolean).join(" ");
  const what = `${verb(w, op)} ${money(w, amount, p.currency_code)}`;
  return render(
    ctx,
    request,
    reply,
    { title: format(w.confirm_title, { op: noun(w, op) }), current: "payments", translated: true },
    <>
      <div class="notice" role="status">
        <p class="lead">
          <strong>{what}</strong> {format(w.on_payment, { id: iso(w, p.order_no ?? p.session_id) })}
          {who ? ` ${format(w.of_customer, { who })}` : ""}.
        </p>
        <p>{effectText(w, op, p, amount)}</p>
      </div>
      <PostForm action={`${page}/${op}`} csrf={session.csrfToken}>
        <input type="hidden" name="idempotency_key" value={key} />
        <input type="hidden" name="confirm" value="yes" />
        {op !== "void" && <input type="hidden" name="amount" value={amount} />}
        <Field
          name="reason"
          label={w.reason}
          hint={w.reason_hint}
          input={{ class: "wide", maxlength: "200" }}
        />
        <p class="actions">
          <button type="submit" class={op === "refund" ? undefined : "danger"}>
            {what}
          </button>{" "}
          <a href={page}>{w.cancel}</a>
        </p>
      </PostForm>
    </>,
  );
}

export function operationPages(scope: FastifyInstance, ctx: DashboardContext): void {
  for (const o of OPERATIONS) {
    scope.post(
      `/payments/:session_id/${o.operation}`,
      { config: { dashboard: { permission: o.permission } } },
      async (request, reply) => {
        const session = sessionOf(request);
        const rawId = pathParam(request, "session_id");
        const sessionId = SESSION_ID.test(rawId) ? rawId : "sess_unknown";
        const form = formOf(request);
        const page = `/dashboard/payments/${sessionId}`;
        const key = /^dash_[0-9a-f]{32}$/.test(form.idempotency_key ?? "")
          ? form.idempotency_key!
          : `dash_${randomBytes(16).toString("hex")}`;
        const p = await ctx.services().payments.status(session.merchantId, { sessionId });
        const w = wordsOf(request);
        const refuse = (error: string, status = 422) =>
          renderPayment(ctx, request, reply, sessionId, {
            status,
            formState: { operation: o.operation, amount: form.amount ?? "", error },
            sections: operationSections,
          });
        // The amount as typed, in the currency's form ("12.5" → "12.500"); a void takes it all.
        let amount: string;
        if (o.operation === "void") amount = p.capturable_amount;
        else {
          const typed = normaliseAmountInput(form.amount ?? "", p.currency_code);
          if (!typed.ok) return refuse(amountProblem(w, typed, form.amount ?? "", p.currency_code));
          amount = typed.value;
          const max = o.operation === "refund" ? p.refundable_amount : p.capturable_amount;
          if (Number(amount) > Number(max))
            return refuse(
              format(w.more_than, { past: past(w, o.operation), amount: money(w, max, p.currency_code) }),
            );
        }
        // Step one: say what will happen. Nothing moves without the confirmation's own POST.
        if (form.confirm !== "yes") return confirmPage(ctx, request, reply, o.operation, p, amount, key);
        const wire = o.operation === "void" ? undefined : amount;
        const claimed = await claimKey(
          ctx.services().db,
          {
            merchantId: session.merchantId,
            credential: `user:${session.user.id}`,
            key,
            requestHash: requestFingerprint("POST", request.url, { amount: wire ?? null }),
            lease: newLease(),
          },
          {
            ttlSeconds: ctx.config.idempotencyTtlSeconds,
            leaseSeconds: ctx.config.idempotencyLeaseSeconds,
          },
        );
        if (claimed.kind !== "claimed") {
          // A double click or a resubmitted form: the first submission is (being) done, once.
          return redirectWithFlash(ctx, request, reply, page, {
            kind: "info",
            text: format(w.already, { op: noun(w, o.operation) }),
          });
        }
        const claim = claimed.claim;
        try {
          const result = await ctx.services().operations.perform({
            merchantId: session.merchantId,
            via: "dashboard",
            initiator: session.user,
            operation: o.operation,
            sessionId,
            amount: wire,
            idempotency: claim,
            reason: form.reason,
          });
          const { payload } = result;
          const what = format(w.done_what, {
            Op: verb(w, o.operation),
            amount: money(w, payload.amount, payload.txn.currency_code),
            ref: iso(w, payload.reference_number),
          });
          await finishKey(ctx.services().db, claim, { status: 303, type: "text/plain", text: what });
          auditDone(request, {
            ...(wire ? { amount: wire } : {}),
            ...(result.status === 202 ? { queued: true } : {}),
          });
          return redirectWithFlash(ctx, request, reply, page, {
            kind: result.status === 202 ? "info" : "success",
            text: format(result.status === 202 ? w.queued : w.succeeded, { what }),
          });
        } catch (error) {
          const unknown = error instanceof AppError && error.code === "gateway_outcome_unknown";
          if (unknown || !(error instanceof AppError))
            await releaseKey(ctx.services().db, claim, ctx.config.idempotencyLeaseSeconds);
          else
            await finishKey(ctx.services().db, claim, {
              status: error.status,
              type: "text/plain",
              text: error.message,
            });
          if (!(error instanceof AppError) || error.code === "internal_error" || error.code === "not_found")
            throw error;
          // Declines, rule violations (amount too high, wrong state), an unreachable gateway, and
          // an unknown outcome (the form keeps its key: submitting it again gets that outcome —
          // unless the gateway cannot be asked, when it is on the Discrepancies page to settle by
          // hand and every submission gets the same answer).
          const manual =
            unknown &&
            (
              await ctx.services().discrepancies.list(session.merchantId, {
                status: "open",
                sessionId,
                limit: 100,
              })
            ).discrepancies.some(
              (d) => d.kind === "unknown_outcome" && d.gateway_operation_id === error.extra.reference_number,
            );
          const message = unknown
            ? format(manual ? w.unknown_manual : w.unknown, { op: noun(w, o.operation) })
            : refusalText(w, error, o.operation, p);
          return renderPayment(ctx, request, reply, sessionId, {
            status: error.status,
            formState: {
              operation: o.operation,
              amount: amount,
              error: message,
              ...(unknown ? { idempotencyKey: key } : {}),
            },
            sections: operationSections,
          });
        }
      },
    );
  }
}
