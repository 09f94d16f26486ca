/**
 * Gateway notifications, the third trigger of the operation webhook. gateways/ verifies each
 * (the gateway setting's own secret), parses it and de-duplicates it, and hands it to the domain
 * that applies it through ports app.ts wires — gateways/ knows no domain:
 * - operation_result and operation → the operations domain (operations/gateway-notifications.ts);
 * - payment_result: a redirect payment's outcome → the checkout payment flow.
 * The notification_id is recorded in the same transaction as the effect (the `firstTime` handed
 * to the port), so a notification delivered twice (or concurrently) has one effect.
 */
import { type Db, isDatabaseError, isDatabaseUnavailable, type Queryable } from "../db/client.js";
import { AppError } from "../http/problem.js";
import { merchantsRepo } from "../merchants/merchants.repo.js";
import type { OutboxSignal } from "../webhooks/outbox.js";
import {
  type GatewayNotification,
  type GatewayPaymentRef,
  type GatewayPaymentResult,
  type InboundNotification,
  type NotificationRead,
  NotificationRejected,
} from "./adapter.js";
import { gatewayMessagesRepo } from "./messages.repo.js";
import type { GatewayRegistry } from "./registry.js";

type OperationNotification<T extends string> = Extract<GatewayNotification, { type: T }>;
/** Records the notification as seen, in the caller's transaction; false when it was seen before. */
type FirstTime = (q: Queryable) => Promise<boolean>;

export interface NotificationsDeps {
  gateways: GatewayRegistry;
  /** Where a notification id that could not be recorded is told (the app's logger). */
  log: { warn(fields: object, message: string): void };
  now: () => Date;
  outbox: OutboxSignal;
  /** The payment a gateway's reference names (the checkout's attempts), for the adapters that need it. */
  paymentByReference: (pgCode: string, pgReference: string) => Promise<GatewayPaymentRef | undefined>;
  /** The payment of setting `pgCode` svc made as attempt `attemptId`. */
  paymentByAttempt: (pgCode: string, attemptId: string) => Promise<GatewayPaymentRef | undefined>;
  applyPaymentNotification: (
    pgCode: string,
    pgReference: string,
    result: GatewayPaymentResult,
    attemptId?: string,
  ) => Promise<void>;
  /** The operations domain's handling of a queued operation's final result (wired in app.ts). */
  applyOperationResult: (
    pgCode: string,
    n: OperationNotification<"operation_result">,
    firstTime: FirstTime,
  ) => Promise<NotificationOutcome>;
  /** The operations domain's handling of a dashboard operation reported failed after it was relayed. */
  applyOperationReversed: (
    pgCode: string,
    n: OperationNotification<"operation_reversed">,
    firstTime: FirstTime,
  ) => Promise<NotificationOutcome>;
  /** The operations domain's handling of an operation done on the gateway's dashboard. */
  applyGatewayOperation: (
    pgCode: string,
    n: OperationNotification<"operation">,
    firstTime: FirstTime,
  ) => Promise<NotificationAnswer>;
}

export type NotificationOutcome = "applied" | "duplicate" | "ignored" | "discrepancy";

export interface NotificationAnswer {
  outcome: NotificationOutcome;
  /** With `discrepancy`: the discrepancy recorded (or found, for a repeat) for it. */
  discrepancyId?: string;
}

async function firstTime(q: Queryable, pgCode: string, notificationId: string): Promise<boolean> {
  const rows = await q.query(
    "insert into gateway_notifications (pg_code, notification_id) values ($1, $2) on conflict do nothing returning 1",
    [pgCode, notificationId],
  );
  return rows.length > 0;
}

/** How svc answers a notification: its JSON receipt, or the gateway's own protocol line (KNET). */
export interface NotificationReceipt extends NotificationAnswer {
  reply?: { contentType: string; body: string };
}

/** Combines the answers of the notifications one message carried (Stripe's charge.refunded names several). */
function combine(answers: NotificationAnswer[]): NotificationAnswer {
  const rank: NotificationOutcome[] = ["applied", "discrepancy", "duplicate", "ignored"];
  const outcome = rank.find((o) => answers.some((a) => a.outcome === o)) ?? "ignored";
  const discrepancyId = answers.find((a) => a.discrepancyId)?.discrepancyId;
  return { outcome, ...(discrepancyId ? { discrepancyId } : {}) };
}

export function createNotificationsService(db: Db, deps: NotificationsDeps) {
  async function apply(pgCode: string, notification: GatewayNotification): Promise<NotificationAnswer> {
    const seen: FirstTime = (q) => firstTime(q, pgCode, notification.notificationId);
    if (notification.type === "operation_result")
      return { outcome: await deps.applyOperationResult(pgCode, notification, seen) };
    if (notification.type === "operation_reversed")
      return { outcome: await deps.applyOperationReversed(pgCode, notification, seen) };
    if (notification.type === "operation") return deps.applyGatewayOperation(pgCode, notification, seen);
    await deps.applyPaymentNotification(
      pgCode,
      notification.pgReference,
      notification.result,
      notification.attemptId,
    );
    // A payment's result is applied idempotently (a settled payment stays as it is), so its
    // notification id only tells `applied` from `duplicate`. Recording it must not fail an answer
    // whose effect has committed: KNET reverses a payment it gets no REDIRECT= for, and svc has
    // just marked it paid.
    try {
      return {
        outcome: (await db.tx((q) => firstTime(q, pgCode, notification.notificationId)))
          ? "applied"
          : "duplicate",
      };
    } catch (err) {
      deps.log.warn(
        { err, pg_code: pgCode, pg_reference: notification.pgReference },
        "gateway notification applied, but its id not recorded: a repeat will say applied, not duplicate",
      );
      return { outcome: "applied" };
    }
  }

  return {
    /**
     * Authenticates, reads and applies what a gateway posted.
     * @throws AppError 401 invalid_signature (nothing changes), 404 for an unknown pg_code,
     *   422 for a body that authenticates but cannot be read
     */
    async receive(pgCode: string, inbound: InboundNotification): Promise<NotificationReceipt> {
      const setting = await merchantsRepo.findGatewayByCode(db, pgCode);
      if (!setting)
        throw new AppError(
          "not_found",
          `No gateway setting with pg_code ${pgCode}. The gateway's notification URL is /v1/gateways/{pg_code}/notifications with the pg_code of a saved setting.`,
        );
      const adapter = deps.gateways.adapterFor(setting);
      let read: NotificationRead;
      try {
        read = await adapter.readNotification(inbound, {
          paymentByReference: (pgReference) => deps.paymentByReference(pgCode, pgReference),
          paymentByAttempt: (attemptId) => deps.paymentByAttempt(pgCode, attemptId),
        });
      } catch (error) {
        if (error instanceof NotificationRejected) throw new AppError("invalid_signature", error.message);
        if (error instanceof AppError) throw error;
        // The database's own words never reach a caller: a lookup it could not run (text it
        // cannot hold, such as a NUL in a posted field) is the body's fault, an outage is a 503.
        if (isDatabaseUnavailable(error)) throw error;
        if (isDatabaseError(error))
          throw new AppError(
            "validation_failed",
            "The notification holds text svc cannot read (a NUL or another character PostgreSQL refuses).",
          );
        throw new AppError("validation_failed", (error as Error).message);
      }
      if (read.record) await gatewayMessagesRepo.insert(db, pgCode, read.record);
      const answers: NotificationAnswer[] = [];
      for (const notification of read.notifications) answers.push(await apply(pgCode, notification));
      const answer = combine(answers);
      if (answers.some((a) => a.outcome === "applied")) deps.outbox.committed();
      return { ...answer, ...(read.reply ? { reply: read.reply } : {}) };
    },
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;
