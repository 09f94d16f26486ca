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
 */
import { randomBytes } from "node:crypto";
import { normaliseAmountInput, type Operation, type Permission } from "@svc/protocol";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { claimKey, finishKey, releaseKey, requestFingerprint } from "../../http/idempotency.js";
import { AppError } from "../../http/problem.js";
import {
  type DashboardContext,
  formOf,
  redirectWithFlash,
  render,
  sessionOf,
  pathParam,
} from "../context.js";
import { can, errorSummary, esc, field, postForm } from "../html.js";
import { type OperationFormState, type PaymentView, renderPayment } from "./payment.js";

const SESSION_ID = /^sess_[a-z2-7]{1,40}$/;

const OPERATIONS: { operation: Operation; permission: Permission; verb: string; past: string }[] = [
  { operation: "refund", permission: "payment.refund", verb: "Refund", past: "refunded" },
  { operation: "capture", permission: "payment.capture", verb: "Capture", past: "captured" },
  { operation: "void", permission: "payment.void", verb: "Void", past: "voided" },
];

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
): string {
  const session = sessionOf(request);
  const allowed = OPERATIONS.filter((o) => can(session.user, o.permission));
  if (allowed.length === 0) return "";
  const summary = state.error ? errorSummary([state.error], `The ${state.operation} was not done`) : "";
  const forms = allowed
    .filter((o) => applicable(o.operation, p))
    .map((o) => {
      const own = state.operation === o.operation;
      const max = o.operation === "refund" ? p.refundable_amount : p.capturable_amount;
      const amount =
        o.operation === "void"
          ? `<p>Voids the whole remaining authorisation: <strong>${esc(max)} ${esc(p.currency_code)}</strong>.</p>`
          : field({
              name: "amount",
              label: `Amount to ${o.operation} (${p.currency_code})`,
              value: own ? state.amount : "",
              hint: `At most ${max} ${p.currency_code}.`,
              error: own ? state.error : undefined,
              input: { inputmode: "decimal", required: true },
            }).replace(/f-amount/g, `f-${o.operation}-amount`);
      const key = (own && state.idempotencyKey) || `dash_${randomBytes(16).toString("hex")}`;
      return `<section aria-labelledby="op-${o.operation}-h"><h2 id="op-${o.operation}-h">${o.verb}</h2>${postForm(
        `/dashboard/payments/${p.session_id}/${o.operation}`,
        session.csrfToken,
        `<input type="hidden" name="idempotency_key" value="${esc(key)}">${amount}<button type="submit"${o.operation === "void" ? ' class="danger"' : ""}>Review ${o.operation}…</button>`,
      )}</section>`;
    });
  const body = forms.length
    ? `<div class="grid">${forms.join("")}</div>`
    : `<p>No refund, capture or void is possible on this payment in its current state.</p>`;
  return `${summary}<div class="operations">${body}</div>`;
}

/** An operation's refusal in the merchant's words (the API's detail speaks to developers). */
function refusalText(error: AppError, o: (typeof OPERATIONS)[number], p: PaymentView | undefined): string {
  const currency = p?.currency_code ?? "";
  switch (error.code) {
    case "operation_declined":
      return declineText(error, o.verb);
    case "amount_exceeds_refundable":
      return `That is more than can be refunded now: at most ${p?.refundable_amount ?? "?"} ${currency}. Nothing was refunded.`;
    case "amount_exceeds_capturable":
      return `That is more than can be captured now: at most ${p?.capturable_amount ?? "?"} ${currency}. Nothing was captured.`;
    case "invalid_state_for_operation":
      return `This payment cannot be ${o.past} now (it is ${p?.state ?? "in another state"}). Nothing was done.`;
    case "gateway_unavailable":
      return `The gateway could not be reached, so nothing was ${o.past}. Try again in a few minutes.`;
    default:
      return error.message;
  }
}

function declineText(error: AppError, verb: string): string {
  const pg = (error.extra.pg_response ?? {}) as Record<string, unknown>;
  const reason = [pg.message, pg.reason, pg.code, pg.status].find((v) => typeof v === "string");
  return `The gateway declined the ${verb.toLowerCase()}${reason ? `: ${reason}` : ""}. Nothing was ${
    OPERATIONS.find((o) => o.verb === verb)?.past ?? "done"
  } and no webhook was sent.`;
}

/** What the operation will do, in words, for the confirmation page. */
function effectText(o: (typeof OPERATIONS)[number], p: PaymentView, amount: string): string {
  const c = p.currency_code;
  const minus = (from: string) => {
    const exp = from.split(".")[1]?.length ?? 0;
    const scale = 10 ** exp;
    const left = Math.round(Number(from) * scale) - Math.round(Number(amount) * scale);
    return (left / scale).toFixed(exp);
  };
  if (o.operation === "refund")
    return `${amount} ${c} goes back to the customer's card or wallet. The payment's refundable amount goes from ${p.refundable_amount} to ${minus(p.refundable_amount)} ${c}. A refund cannot be undone.`;
  if (o.operation === "capture")
    return `${amount} ${c} of the authorisation is taken from the customer. What can still be captured goes from ${p.capturable_amount} to ${minus(p.capturable_amount)} ${c}.`;
  return `The remaining authorisation of ${amount} ${c} is released to the customer; nothing more can be captured on this payment. A void cannot be undone.`;
}

function confirmPage(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  o: (typeof OPERATIONS)[number],
  p: PaymentView,
  amount: string,
  key: string,
) {
  const session = sessionOf(request);
  const page = `/dashboard/payments/${p.session_id}`;
  const who = [p.customer_first_name, p.customer_last_name].filter(Boolean).join(" ");
  const form = postForm(
    `${page}/${o.operation}`,
    session.csrfToken,
    `<input type="hidden" name="idempotency_key" value="${esc(key)}"><input type="hidden" name="confirm" value="yes">${o.operation === "void" ? "" : `<input type="hidden" name="amount" value="${esc(amount)}">`}
${field({ name: "reason", label: "Reason (optional, kept with the operation)", input: { class: "wide", maxlength: "200" }, hint: "For your team: for example the customer's request or the ticket number. It is not sent to the customer or in the webhook." })}
<p class="actions"><button type="submit"${o.operation === "refund" ? "" : ' class="danger"'}>${esc(o.verb)} ${esc(amount)} ${esc(p.currency_code)}</button> <a href="${page}">Cancel, do nothing</a></p>`,
  );
  return render(
    ctx,
    request,
    reply,
    { title: `Confirm the ${o.operation}`, current: "payments" },
    `<div class="notice" role="status"><p class="lead"><strong>${esc(o.verb)} ${esc(amount)} ${esc(p.currency_code)}</strong> on payment ${esc(p.order_no ?? p.session_id)}${who ? ` of ${esc(who)}` : ""}.</p><p>${esc(effectText(o, p, amount))}</p></div>${form}`,
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
          if (!typed.ok) return refuse(typed.message);
          amount = typed.value;
          const max = o.operation === "refund" ? p.refundable_amount : p.capturable_amount;
          if (Number(amount) > Number(max))
            return refuse(`That is more than can be ${o.past} now: at most ${max} ${p.currency_code}.`);
        }
        // Step one: say what will happen. Nothing moves without the confirmation's own POST.
        if (form.confirm !== "yes") return confirmPage(ctx, request, reply, o, p, amount, key);
        const wire = o.operation === "void" ? undefined : amount;
        const claimed = await claimKey(
          ctx.services().db,
          {
            merchantId: session.merchantId,
            credential: `user:${session.user.id}`,
            key,
            requestHash: requestFingerprint("POST", request.url, { amount: wire ?? null }),
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
            text: `This ${o.operation} was already submitted, so it was not done again. The payment below shows its result.`,
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
          const what = `${o.verb} of ${payload.amount} ${payload.txn.currency_code} (reference ${payload.reference_number})`;
          await finishKey(ctx.services().db, claim, { status: 303, type: "text/plain", text: what });
          return redirectWithFlash(ctx, request, reply, page, {
            kind: result.status === 202 ? "info" : "success",
            text:
              result.status === 202
                ? `${what} is queued at the gateway. It shows as queued below until the gateway sends its final result.`
                : `${what} succeeded.`,
          });
        } catch (error) {
          const unknown = error instanceof AppError && error.code === "gateway_outcome_unknown";
          if (unknown || !(error instanceof AppError)) await releaseKey(ctx.services().db, claim);
          else
            await finishKey(ctx.services().db, claim, {
              status: error.status,
              type: "text/plain",
              text: error.message,
            });
          if (!(error instanceof AppError) || error.code === "internal_error" || error.code === "not_found")
            throw error;
          // Declines, rule violations (amount too high, wrong state), an unreachable gateway, and
          // an unknown outcome (the form keeps its key: submitting it again gets that outcome).
          const message = unknown
            ? `The gateway did not answer in time, so the ${o.operation} may have been done. Submit the form again to get its outcome: it will not be done twice.`
            : refusalText(error, o, p);
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
