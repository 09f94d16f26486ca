/**
 * Gateway notifications, the third trigger of the operation webhook. Each is authenticated by
 * the gateway setting's own secret and applied once: its notification_id is recorded in the same
 * transaction as its effect, so a notification delivered twice (or concurrently) has one effect.
 * - operation_result: the final result of a queued operation → the child becomes final or
 *   `<operation>_rejected`, and the webhook goes out with the queued one's source and initiator,
 *   to the URLs the queued notice went to;
 * - operation: done on the gateway's own dashboard → a new child with `source: "pg"`, if it
 *   obeys the money rules the operations API applies (checked under the parent's lock); one that
 *   breaks them is not applied to the totals and sends no webhook: it is recorded as a
 *   discrepancy for an operator, and answered 200 so the gateway stops retrying;
 * - payment_result: a redirect payment's outcome → the checkout payment flow.
 */
import { newId, parseAmount } from "@svc/protocol";
import type { Db, Queryable } from "../db/client.js";
import { AppError } from "../http/problem.js";
import { merchantsRepo } from "../merchants/merchants.repo.js";
import { operationsRepo } from "../operations/operations.repo.js";
import { capturesInFlight, finalState, operationAmount } from "../operations/rules.js";
import { deriveTotals } from "../payments/totals.js";
import { emitOperationWebhook, emitQueuedResultWebhook } from "../operations/operation-webhook.js";
import type { OutboxSignal } from "../webhooks/outbox.js";
import type { GatewayNotification, GatewayPaymentResult } from "./adapter.js";
import { discrepanciesRepo } from "./discrepancies.repo.js";
import type { GatewayRegistry } from "./registry.js";

export interface NotificationsDeps {
  gateways: GatewayRegistry;
  now: () => Date;
  outbox: OutboxSignal;
  applyPaymentNotification: (
    pgCode: string,
    pgReference: string,
    result: GatewayPaymentResult,
  ) => Promise<void>;
}

export type NotificationOutcome = "applied" | "duplicate" | "ignored" | "discrepancy";

export interface NotificationAnswer {
  outcome: NotificationOutcome;
  /** With `discrepancy`: the discrepancy recorded (or found, for a repeat) for it. */
  discrepancyId?: string;
}

/** The rule errors that make a gateway's operation a discrepancy rather than a malformed notification. */
const MONEY_RULES = new Set([
  "invalid_state_for_operation",
  "amount_exceeds_refundable",
  "amount_exceeds_capturable",
  "currency_mismatch",
  "validation_failed",
]);

async function firstTime(q: Queryable, pgCode: string, notificationId: string): Promise<boolean> {
  const rows = await q.query(
    "insert into gateway_notifications (pg_code, notification_id) values ($1, $2) on conflict do nothing returning 1",
    [pgCode, notificationId],
  );
  return rows.length > 0;
}

export function createNotificationsService(db: Db, deps: NotificationsDeps) {
  async function operationResult(
    pgCode: string,
    n: Extract<GatewayNotification, { type: "operation_result" }>,
  ): Promise<NotificationOutcome> {
    return db.tx(async (q) => {
      const child = await operationsRepo.lockByReference(q, pgCode, n.referenceNumber);
      // Our own finalisation of the queued answer has not committed yet: ask the gateway to retry.
      if (child?.state.endsWith("_pending"))
        throw new AppError("conflict", "The operation is still being recorded; retry shortly.", {
          status: 409,
        });
      if (!(await firstTime(q, pgCode, n.notificationId))) return "duplicate";
      if (!child || child.state !== `${child.operation}_queued`) return "ignored";
      const state = n.status === "success" ? finalState(child.operation) : `${child.operation}_rejected`;
      // The child is locked and still queued (checked above), so this update always applies.
      const finished = (await operationsRepo.finish(q, child, state, n.pgResponse, deps.now()))!;
      const parent = (await operationsRepo.parent(q, child.parent_session_id))!;
      await emitQueuedResultWebhook(q, parent, finished);
      return "applied";
    });
  }

  async function gatewayOperation(
    pgCode: string,
    n: Extract<GatewayNotification, { type: "operation" }>,
  ): Promise<NotificationAnswer> {
    return db.tx(async (q) => {
      const parent = await operationsRepo.lockParentByPgReference(q, pgCode, n.pgReference);
      if (!parent)
        throw new AppError("not_found", `No payment with pg_reference ${n.pgReference} on ${pgCode}.`);
      const amount = parseAmount(n.amount, n.currency);
      if (!amount.ok)
        throw new AppError("validation_failed", `amount ${amount.message}`, {
          errors: { amount: [amount.message] },
        });
      if (!(await firstTime(q, pgCode, n.notificationId))) return { outcome: "duplicate" };
      // The money rules of the operations API, against the totals read under the parent's lock
      // (the children after the lock: a fresh snapshot), so two notifications cannot both pass.
      const sums = await operationsRepo.childSums(q, parent.session_id);
      try {
        operationAmount(
          {
            state: parent.state,
            currency_code: parent.currency_code,
            captures_in_flight: capturesInFlight(sums),
          },
          deriveTotals(parent, sums),
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

  return {
    /**
     * Verifies, parses and applies one notification.
     * @throws AppError 401 invalid_signature (nothing changes), 404 for an unknown pg_code
     */
    async receive(
      pgCode: string,
      rawBody: Buffer,
      headers: Record<string, string | string[] | undefined>,
    ): Promise<NotificationAnswer> {
      const setting = await merchantsRepo.findGatewayByCode(db, pgCode);
      if (!setting) throw new AppError("not_found", `No gateway setting with pg_code ${pgCode}.`);
      const adapter = deps.gateways.adapterFor(setting.kind);
      if (!adapter.verifyNotification(rawBody, headers, setting.notification_secret))
        throw new AppError(
          "invalid_signature",
          "The notification signature does not verify with this gateway setting's secret (was the raw body signed?).",
        );
      let notification: GatewayNotification;
      try {
        notification = adapter.parseNotification(rawBody);
      } catch (error) {
        throw new AppError("validation_failed", (error as Error).message);
      }
      let answer: NotificationAnswer;
      if (notification.type === "operation_result")
        answer = { outcome: await operationResult(pgCode, notification) };
      else if (notification.type === "operation") answer = await gatewayOperation(pgCode, notification);
      else {
        await deps.applyPaymentNotification(pgCode, notification.pgReference, notification.result);
        answer = {
          outcome: (await db.tx((q) => firstTime(q, pgCode, notification.notificationId)))
            ? "applied"
            : "duplicate",
        };
      }
      if (answer.outcome === "applied") deps.outbox.committed();
      return answer;
    },
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
