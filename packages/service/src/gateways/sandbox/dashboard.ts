/**
 * The gateway's own dashboard API: an operator refunds, captures or voids on the gateway's side,
 * and svc hears about it only through an `operation` notification (the `source: "pg"` path).
 */
import { formatAmount, OPERATIONS, parseAmount } from "@svc/protocol";
import { type SandboxContext, sandboxId } from "./context.js";
import { HttpError } from "./http.js";
import { apply, refusal, responseOf } from "./operations.js";
import { findPayment } from "./payments.js";
import type { SandboxOperation, SandboxPayment } from "./state.js";
import { oneOf, str } from "./validate.js";

export interface DashboardOperationAnswer {
  gateway_operation_id: string;
  pg_reference: string;
  operation: string;
  amount: string;
  currency: string;
  status: "success";
  notification_id: string;
}

export function dashboardOperate(
  ctx: SandboxContext,
  body: Record<string, unknown>,
): DashboardOperationAnswer {
  const payment = findPayment(ctx, str(body, "pg_reference"));
  const operation = oneOf(body, "operation", OPERATIONS);
  const parsed = parseAmount(body.amount, payment.currency);
  if (!parsed.ok) throw new HttpError(400, "invalid_request", `amount ${parsed.message}`);
  const reason = refusal(payment, operation, parsed.minor);
  if (reason) throw new HttpError(422, "operation_refused", reason);
  apply(payment, operation, parsed.minor);
  const op: SandboxOperation = {
    gatewayOperationId: sandboxId("op"),
    operation,
    amountMinor: parsed.minor,
    source: "dashboard",
    status: "success",
    createdAt: new Date().toISOString(),
  };
  payment.operations.push(op);
  const pgResponse = responseOf(op, undefined);
  const amount = formatAmount(parsed.minor, payment.currency);
  const notificationId = ctx.notifier.send(payment.notificationUrl, payment.pgCode, {
    type: "operation",
    operation,
    pg_reference: payment.pgReference,
    gateway_operation_id: op.gatewayOperationId,
    amount,
    currency: payment.currency,
    pg_response: pgResponse,
  });
  return {
    gateway_operation_id: op.gatewayOperationId,
    pg_reference: payment.pgReference,
    operation,
    amount,
    currency: payment.currency,
    status: "success",
    notification_id: notificationId,
  };
}

/** The listing a CLI uses to pick a payment; never includes card data (none is kept). */
export function listPayments(ctx: SandboxContext): { payments: unknown[] } {
  const view = (payment: SandboxPayment) => ({
    pg_reference: payment.pgReference,
    kind: payment.kind,
    pg_code: payment.pgCode,
    session_id: payment.sessionId,
    status: payment.result.status,
    operation: payment.operation,
    form_of_payment: payment.formOfPayment,
    amount: payment.amount,
    currency: payment.currency,
    captured: formatAmount(payment.capturedMinor, payment.currency),
    refunded: formatAmount(payment.refundedMinor, payment.currency),
    voided: formatAmount(payment.voidedMinor, payment.currency),
    operations: payment.operations.map((op) => ({
      gateway_operation_id: op.gatewayOperationId,
      operation: op.operation,
      amount: formatAmount(op.amountMinor, payment.currency),
      reference_number: op.referenceNumber,
      source: op.source,
      status: op.status,
      created_at: op.createdAt,
    })),
    created_at: payment.createdAt,
  });
  return { payments: [...ctx.state.payments.values()].map(view) };
}
