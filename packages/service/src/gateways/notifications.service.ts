/**
 * Gateway notifications, the third trigger of the operation webhook. gateways/ verifies each
 * (the gateway setting's own secret), parses it and de-duplicates it, and hands it to the domain
 * that applies it through ports app.ts wires — gateways/ knows no domain:
 * - operation_result and operation → the operations domain (operations/gateway-notifications.ts);
 * - payment_result: a redirect payment's outcome → the checkout payment flow.
 * The notification_id is recorded in the same transaction as the effect (the `firstTime` handed
 * to the port), so a notification delivered twice (or concurrently) has one effect.
 */
import type { Db, Queryable } from "../db/client.js";
import { AppError } from "../http/problem.js";
import { merchantsRepo } from "../merchants/merchants.repo.js";
import type { OutboxSignal } from "../webhooks/outbox.js";
import type { GatewayNotification, GatewayPaymentResult } from "./adapter.js";
import type { GatewayRegistry } from "./registry.js";

type OperationNotification<T extends string> = Extract<GatewayNotification, { type: T }>;
/** Records the notification as seen, in the caller's transaction; false when it was seen before. */
type FirstTime = (q: Queryable) => Promise<boolean>;

export interface NotificationsDeps {
  gateways: GatewayRegistry;
  now: () => Date;
  outbox: OutboxSignal;
  applyPaymentNotification: (
    pgCode: string,
    pgReference: string,
    result: GatewayPaymentResult,
  ) => Promise<void>;
  /** The operations domain's handling of a queued operation's final result (wired in app.ts). */
  applyOperationResult: (
    pgCode: string,
    n: OperationNotification<"operation_result">,
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

export function createNotificationsService(db: Db, deps: NotificationsDeps) {
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
      const seen: FirstTime = (q) => firstTime(q, pgCode, notification.notificationId);
      if (notification.type === "operation_result")
        answer = { outcome: await deps.applyOperationResult(pgCode, notification, seen) };
      else if (notification.type === "operation")
        answer = await deps.applyGatewayOperation(pgCode, notification, seen);
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
