/**
 * Operations a gateway reports, applied by the operations domain (gateways/ verifies, parses and
 * de-duplicates the notification, then hands it here through a port app.ts wires):
 * - operation_result: the final result of a queued operation → the child becomes final or
 *   `<operation>_rejected`, and the webhook goes out with the queued one's source and initiator,
 *   to the URLs the queued notice went to;
 * - operation_reversed: a dashboard operation relayed as done, reported failed later → a
 *   discrepancy, as for svc's own operation;
 * - operation: done on the gateway's own dashboard → a new child with `source: "pg"`, if it
 *   obeys the money rules the operations API applies, judged against settled money only
 *   (checked under the parent's lock); one that breaks them is not applied to the totals and
 *   sends no webhook: it is recorded as a discrepancy for an operator, and answered 200 so the
 *   gateway stops retrying.
 * `firstTime(q)` records the notification id in the same transaction as the effect, so a
 * notification delivered twice (or concurrently) has one effect.
 */
import { formatAmount, isCurrency, newId, parseAmount } from "@svc/protocol";
import type { Db, Queryable } from "../db/client.js";
import type { GatewayNotification, PgResponse } from "../gateways/adapter.js";
import { discrepanciesRepo } from "../gateways/discrepancies.repo.js";
import type { NotificationAnswer, NotificationOutcome } from "../gateways/notifications.service.js";
import { AppError } from "../http/problem.js";
import { deriveSettledTotals } from "../payments/totals.js";
import { emitOperationWebhook, emitQueuedResultWebhook } from "./operation-webhook.js";
import { type OperationRow, operationsRepo } from "./operations.repo.js";
import { finalState, operationAmount } from "./rules.js";

/** Records the notification as seen, in the caller's transaction; false when it was seen before. */
export type FirstTime = (q: Queryable) => Promise<boolean>;

/** The rule errors that make a gateway's operation a discrepancy rather than a malformed notification. */
const MONEY_RULES = new Set([
  "invalid_state_for_operation",
  "amount_exceeds_refundable",
  "amount_exceeds_capturable",
  "currency_mismatch",
  "validation_failed",
]);

/**
 * Finishes a queued child with the gateway's final result and writes its webhook (to the URLs
 * the queued notice went to), in the caller's transaction. The child must be locked and still
 * queued, so the update always applies: a notification's and the queued sweep's.
 */
export async function finishQueued(
  q: Queryable,
  child: OperationRow,
  status: "success" | "rejected",
  pgResponse: PgResponse,
  now: Date,
): Promise<void> {
  const state = status === "success" ? finalState(child.operation) : `${child.operation}_rejected`;
  const finished = (await operationsRepo.finish(q, child, state, pgResponse, now))!;
  const parent = (await operationsRepo.parent(q, child.parent_session_id))!;
  await emitQueuedResultWebhook(q, parent, finished);
}

/**
 * The gateway undid what it had reported done (Stripe: a refund that succeeded, then failed):
 * svc's books still count it, so it goes to an operator instead of being silently ignored.
 */
async function recordReversal(
  q: Queryable,
  pgCode: string,
  child: OperationRow,
  n: { notificationId: string; pgResponse: PgResponse },
): Promise<NotificationOutcome> {
  const { row } = await discrepanciesRepo.record(q, {
    merchant_id: child.merchant_id,
    parent_session_id: child.parent_session_id,
    child_session_id: child.session_id,
    pg_code: pgCode,
    gateway_operation_id: `reversed:${child.reference_number}`,
    notification_id: n.notificationId,
    operation: child.operation,
    amount: formatAmount(child.amount_minor, child.currency_code),
    currency_code: child.currency_code,
    rule: "operation_failed_after_success",
    detail: `The gateway first reported this ${child.operation} done, then failed: svc still counts it. Check it on the gateway, do it again if it is due, and resolve this with a note.`,
    pg_response: n.pgResponse,
  });
  return row ? "discrepancy" : "ignored";
}

export function createGatewayOperations(db: Db, deps: { now: () => Date }) {
  async function operationResult(
    pgCode: string,
    n: Extract<GatewayNotification, { type: "operation_result" }>,
    firstTime: FirstTime,
  ): Promise<NotificationOutcome> {
    return db.tx(async (q) => {
      const child = await operationsRepo.lockByReference(q, pgCode, n.referenceNumber);
      // Our own finalisation of the queued answer has not committed yet: ask the gateway to retry.
      if (child?.state.endsWith("_pending"))
        throw new AppError("conflict", "The operation is still being recorded; retry shortly.", {
          status: 409,
        });
      if (!(await firstTime(q))) return "duplicate";
      if (child && n.status === "rejected" && child.state === finalState(child.operation))
        return recordReversal(q, pgCode, child, n);
      if (!child || child.state !== `${child.operation}_queued`) return "ignored";
      await finishQueued(q, child, n.status, n.pgResponse, deps.now());
      return "applied";
    });
  }

  async function gatewayOperation(
    pgCode: string,
    n: Extract<GatewayNotification, { type: "operation" }>,
    firstTime: FirstTime,
  ): Promise<NotificationAnswer> {
    return db.tx(async (q) => {
      const parent = await operationsRepo.lockParentByPgReference(q, pgCode, n.pgReference);
      if (!parent)
        throw new AppError("not_found", `No payment with pg_reference ${n.pgReference} on ${pgCode}.`);
      if (!isCurrency(n.currency))
        throw new AppError(
          "validation_failed",
          `currency must be an ISO 4217 code svc knows, in capitals (e.g. KWD), not ${JSON.stringify(n.currency.slice(0, 20))}`,
          { errors: { currency: ["must be an ISO 4217 code svc knows, in capitals (e.g. KWD)"] } },
        );
      const amount = parseAmount(n.amount, n.currency);
      if (!amount.ok)
        throw new AppError("validation_failed", `amount ${amount.message}`, {
          errors: { amount: [amount.message] },
        });
      if (!(await firstTime(q))) return { outcome: "duplicate" };
      // The same gateway operation told again under another notification id (Stripe sends several
      // events about one refund or capture, and svc reads the object each names): recorded
      // already. Checked before the money rules, which would otherwise find the operation's own
      // amount gone (a full refund: nothing left to refund) and file a discrepancy for a fact svc has.
      if (await operationsRepo.lockByGatewayOperationId(q, pgCode, n.gatewayOperationId))
        return { outcome: "duplicate" };
      // The money rules of the operations API, against the totals read under the parent's lock
      // (the children after the lock: a fresh snapshot), so two notifications cannot both pass.
      // The gateway reports money that already moved, so only settled money counts: the captured
      // amount and successful children. svc's requests still in flight to the gateway
      // (`_pending`) do not: the gateway's ledger decides between them and this fact, and declines
      // them if it is full. Queued ones (`_queued`) do not either: the gateway accepted them but
      // has not done them, and may still reject them (the sandbox decides at settlement against
      // its ledger as it is then); a gateway that does hold queued money aside refuses a dashboard
      // operation that would collide with it, so its facts never do. Counting either would record
      // a true fact as a discrepancy and leave svc's books short of the gateway's.
      const sums = await operationsRepo.childSums(q, parent.session_id);
      // An authorization is voided once. From a gateway that reports svc's own voids too (Stripe),
      // a void reported while svc's own is on its way to the gateway is that one, or one made on
      // the gateway's dashboard just before it: only the answer to svc's request tells, so the
      // gateway is asked to send this again later (any answer but 2xx; Stripe retries for days).
      // Once svc's void has succeeded, the report is of that void: nothing new. (A gateway that
      // reports only its dashboard's operations, such as the sandbox, keeps the money rules below.)
      if (n.operation === "void" && n.includesOwn) {
        if (sums.some((c) => c.operation === "void" && c.state === "voided")) return { outcome: "duplicate" };
        if (
          sums.some(
            (c) => c.operation === "void" && (c.state === "void_pending" || c.state === "void_queued"),
          )
        )
          throw new AppError(
            "conflict",
            "svc's own void of this payment is still waiting for the gateway's answer; send this notification again later.",
            { status: 409 },
          );
      }
      try {
        operationAmount(
          // No capture counts as in flight: a gateway's void is judged against settled captures only.
          { state: parent.state, currency_code: parent.currency_code, captures_in_flight: 0 },
          deriveSettledTotals(parent, sums),
          { operation: n.operation, amount: n.amount, currencyCode: n.currency },
        );
      } catch (error) {
        if (!(error instanceof AppError) || !MONEY_RULES.has(error.code)) throw error;
        const { row, created } = await discrepanciesRepo.record(q, {
          merchant_id: parent.merchant_id,
          parent_session_id: parent.session_id,
          pg_code: pgCode,
          gateway_operation_id: n.gatewayOperationId,
          notification_id: n.notificationId,
          operation: n.operation,
          amount: n.amount,
          currency_code: n.currency,
          rule: error.code,
          detail: error.message,
          pg_response: n.pgResponse,
        });
        return { outcome: created ? "discrepancy" : "duplicate", discrepancyId: row.id };
      }
      const child = await operationsRepo.insert(q, {
        session_id: newId("sess"),
        parent_session_id: parent.session_id,
        merchant_id: parent.merchant_id,
        operation: n.operation,
        amount_minor: amount.minor,
        currency_code: parent.currency_code,
        state: finalState(n.operation),
        reference_number: newId("ref"),
        source: "pg",
        via: "gateway",
        initiator: null,
        pg_code: pgCode,
        pg_response: n.pgResponse,
        gateway_operation_id: n.gatewayOperationId,
        operated_at: deps.now(),
      });
      // The same gateway operation under another notification id: already recorded.
      if (!child) return { outcome: "duplicate" };
      await emitOperationWebhook(q, parent, child);
      return { outcome: "applied" };
    });
  }

  /** A dashboard operation svc relayed as done, reported failed later: a discrepancy if svc counts it. */
  async function operationReversed(
    pgCode: string,
    n: Extract<GatewayNotification, { type: "operation_reversed" }>,
    firstTime: FirstTime,
  ): Promise<NotificationOutcome> {
    return db.tx(async (q) => {
      const child = await operationsRepo.lockByGatewayOperationId(q, pgCode, n.gatewayOperationId);
      if (!(await firstTime(q))) return "duplicate";
      // Never relayed (it never succeeded, or was another payment's): nothing of svc's to undo.
      if (!child || child.state !== finalState(child.operation)) return "ignored";
      return recordReversal(q, pgCode, child, n);
    });
  }

  return { operationResult, gatewayOperation, operationReversed };
}

export type GatewayOperations = ReturnType<typeof createGatewayOperations>;
