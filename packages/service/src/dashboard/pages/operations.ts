/**
 * Refund, capture and void from the payment page. The forms call the same operations service as
 * the API, with the signed-in user as initiator (`source: input`), so the webhook they cause is
 * the API's, signed the same way. A form appears only to a user with its permission and only
 * when the payment allows the operation; the POST checks the permission again (forged forms).
 *
 * Each rendered form carries its own idempotency key, claimed under the user like an API
 * request's `Idempotency-Key`: a double click or a resubmitted form never operates twice, and
 * after an unknown gateway outcome the form keeps its key, so submitting it again recovers that
 * operation instead of starting another.
 */
import { randomBytes } from "node:crypto";
import type { Operation, Permission } from "@svc/protocol";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { claimKey, finishKey, releaseKey, requestFingerprint } from "../../http/idempotency.js";
import { AppError } from "../../http/problem.js";
import { type DashboardContext, formOf, redirectWithFlash, sessionOf } from "../context.js";
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
              value: own ? state.amount : max,
              hint: `At most ${max} ${p.currency_code}.`,
              error: own ? state.error : undefined,
              attrs: 'inputmode="decimal" required',
            }).replace(/f-amount/g, `f-${o.operation}-amount`);
      const key = (own && state.idempotencyKey) || `dash_${randomBytes(16).toString("hex")}`;
      return `<section aria-labelledby="op-${o.operation}-h"><h2 id="op-${o.operation}-h">${o.verb}</h2>${postForm(
        `/dashboard/payments/${p.session_id}/${o.operation}`,
        session.csrfToken,
        `<input type="hidden" name="idempotency_key" value="${esc(key)}">${amount}<button type="submit"${o.operation === "void" ? ' class="danger"' : ""}>${o.verb}${o.operation === "void" ? " payment" : ""}</button>`,
      )}</section>`;
    });
  const body = forms.length
    ? `<div class="grid">${forms.join("")}</div>`
    : `<p>No refund, capture or void is possible on this payment in its current state.</p>`;
  return `${summary}<div class="operations">${body}</div>`;
}

function declineText(error: AppError, verb: string): string {
  const pg = (error.extra.pg_response ?? {}) as Record<string, unknown>;
  const reason = [pg.message, pg.reason, pg.code, pg.status].find((v) => typeof v === "string");
  return `The gateway declined the ${verb.toLowerCase()}${reason ? `: ${reason}` : ""}. Nothing was ${
    OPERATIONS.find((o) => o.verb === verb)?.past ?? "done"
  } and no webhook was sent.`;
}

export function operationPages(scope: FastifyInstance, ctx: DashboardContext): void {
  for (const o of OPERATIONS) {
    scope.post(
      `/payments/:session_id/${o.operation}`,
      { config: { dashboard: { permission: o.permission } } },
      async (request, reply) => {
        const session = sessionOf(request);
        const rawId = (request.params as { session_id: string }).session_id;
        const sessionId = SESSION_ID.test(rawId) ? rawId : "sess_unknown";
        const form = formOf(request);
        const amount = o.operation === "void" ? undefined : form.amount?.trim() || undefined;
        const page = `/dashboard/payments/${sessionId}`;
        const key = /^dash_[0-9a-f]{32}$/.test(form.idempotency_key ?? "")
          ? form.idempotency_key!
          : undefined;
        const claimed = key
          ? await claimKey(
              ctx.services().db,
              {
                merchantId: session.merchantId,
                credential: `user:${session.user.id}`,
                key,
                requestHash: requestFingerprint("POST", request.url, { amount: amount ?? null }),
              },
              {
                ttlSeconds: ctx.config.idempotencyTtlSeconds,
                leaseSeconds: ctx.config.idempotencyLeaseSeconds,
              },
            )
          : undefined;
        if (claimed && claimed.kind !== "claimed") {
          // A double click or a resubmitted form: the first submission is (being) done, once.
          return redirectWithFlash(ctx, request, reply, page, {
            kind: "info",
            text: `This ${o.operation} form was already submitted, so it was not done again. The payment below shows its result; reload the page to make another ${o.operation}.`,
          });
        }
        const claim = claimed?.claim;
        try {
          const result = await ctx.services().operations.perform({
            merchantId: session.merchantId,
            via: "dashboard",
            initiator: session.user,
            operation: o.operation,
            sessionId,
            amount,
            idempotency: claim,
          });
          const { payload } = result;
          const what = `${o.verb} of ${payload.amount} ${payload.txn.currency_code} (reference ${payload.reference_number})`;
          if (claim)
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
          if (claim) {
            if (unknown || !(error instanceof AppError)) await releaseKey(ctx.services().db, claim);
            else
              await finishKey(ctx.services().db, claim, {
                status: error.status,
                type: "text/plain",
                text: error.message,
              });
          }
          if (!(error instanceof AppError) || error.code === "internal_error" || error.code === "not_found")
            throw error;
          // Declines, rule violations (amount too high, wrong state), an unreachable gateway, and
          // an unknown outcome (the form keeps its key: submitting it again gets that outcome).
          const message =
            error.code === "operation_declined"
              ? declineText(error, o.verb)
              : unknown
                ? `The gateway did not answer in time, so the ${o.operation} may have been done. Submit the form again to get its outcome: it will not be done twice.`
                : error.message;
          return renderPayment(ctx, request, reply, sessionId, {
            status: error.status,
            formState: {
              operation: o.operation,
              amount: amount ?? "",
              error: message,
              ...(unknown && key ? { idempotencyKey: key } : {}),
            },
            sections: operationSections,
          });
        }
      },
    );
  }
}
