/**
 * Refund, capture and void on the sandbox, from svc's API (`/operations`) or from the gateway's
 * own dashboard. The sandbox keeps its own ledger per payment and refuses an operation that would
 * exceed it: defence in depth, since the service checks the same limits first.
 */
import type { Operation } from "@svc/protocol";
import type { PgResponse } from "../adapter.js";
import { GATEWAY_CAPABILITIES } from "../capabilities.js";
import { type SandboxContext, sandboxId } from "./context.js";
import { HttpError } from "./http.js";
import { findPayment } from "./payments.js";
import type { SandboxOperation, SandboxPayment } from "./state.js";
import type { OperationRequestBody } from "./validate.js";
import type { WireOperationResult } from "./wire.js";

/** Amounts whose minor units end in this are declined (test value). */
export const DECLINED_AMOUNT_SUFFIX = 13;

/** Why `operation` of `amountMinor` cannot be done on `payment` now, or undefined when it can. */
export function refusal(
  payment: SandboxPayment,
  operation: Operation,
  amountMinor: number,
): string | undefined {
  if (!GATEWAY_CAPABILITIES[payment.kind].operations.includes(operation))
    return `gateway ${payment.kind} does not support ${operation}`;
  if (payment.result.status !== "approved") return `the payment is ${payment.result.status}, not approved`;
  if (amountMinor % 100 === DECLINED_AMOUNT_SUFFIX)
    return "amount ends in 13 (sandbox test value for a decline)";
  const uncaptured = payment.amountMinor - payment.capturedMinor - payment.voidedMinor;
  switch (operation) {
    case "capture":
      if (payment.operation !== "authorize") return "only an authorized payment can be captured";
      return amountMinor > uncaptured
        ? `capture exceeds the uncaptured amount (${uncaptured} minor units)`
        : undefined;
    case "void":
      if (payment.operation !== "authorize") return "only an authorized payment can be voided";
      return amountMinor > uncaptured
        ? `void exceeds the uncaptured amount (${uncaptured} minor units)`
        : undefined;
    case "refund": {
      const refundable = payment.capturedMinor - payment.refundedMinor;
      return amountMinor > refundable
        ? `refund exceeds the refundable amount (${refundable} minor units)`
        : undefined;
    }
  }
}

/** Books an accepted operation in the payment's ledger. */
export function apply(payment: SandboxPayment, operation: Operation, amountMinor: number): void {
  if (operation === "capture") payment.capturedMinor += amountMinor;
  else if (operation === "refund") payment.refundedMinor += amountMinor;
  else payment.voidedMinor += amountMinor;
}

function record(
  payment: SandboxPayment,
  entry: Omit<SandboxOperation, "gatewayOperationId" | "createdAt">,
): SandboxOperation {
  const operation = { ...entry, gatewayOperationId: sandboxId("op"), createdAt: new Date().toISOString() };
  payment.operations.push(operation);
  return operation;
}

export function operate(
  ctx: SandboxContext,
  request: OperationRequestBody,
): { statusCode: number; body: WireOperationResult } {
  const seen = ctx.state.operationsByReference.get(request.referenceNumber);
  if (seen) {
    if (
      seen.pgReference !== request.pgReference ||
      seen.operation !== request.operation ||
      seen.amountMinor !== request.amountMinor
    ) {
      throw new HttpError(
        409,
        "reference_conflict",
        `reference_number ${request.referenceNumber} was already used for a different operation`,
      );
    }
    return { statusCode: statusCodeOf(seen.answer), body: seen.answer };
  }
  const payment = findPayment(ctx, request.pgReference);
  if (payment.currency !== request.currency)
    throw new HttpError(400, "invalid_request", `currency must be ${payment.currency}, the payment's`);
  const answer = GATEWAY_CAPABILITIES[payment.kind].queued
    ? queue(ctx, payment, request)
    : realTime(payment, request);
  ctx.state.operationsByReference.set(request.referenceNumber, { ...request, answer });
  return { statusCode: statusCodeOf(answer), body: answer };
}

/** The first answer given to `referenceNumber` (svc's recovery asks when it lost it), or 404. */
export function operationByReference(
  ctx: SandboxContext,
  referenceNumber: string,
): { statusCode: number; body: WireOperationResult } {
  const seen = ctx.state.operationsByReference.get(referenceNumber);
  if (!seen) throw new HttpError(404, "not_found", `no operation with reference_number ${referenceNumber}`);
  return { statusCode: statusCodeOf(seen.answer), body: seen.answer };
}

function statusCodeOf(answer: WireOperationResult): number {
  return answer.status === "success" ? 200 : answer.status === "queued" ? 202 : 402;
}

function realTime(payment: SandboxPayment, request: OperationRequestBody): WireOperationResult {
  const reason = refusal(payment, request.operation, request.amountMinor);
  const status = reason ? "declined" : "success";
  if (!reason) apply(payment, request.operation, request.amountMinor);
  const op = record(payment, {
    operation: request.operation,
    amountMinor: request.amountMinor,
    referenceNumber: request.referenceNumber,
    source: "api",
    status,
  });
  return { status, pg_response: responseOf(op, reason) };
}

/** Answers queued now; decides and notifies after queuedDelayMs, like a batch-settling acquirer. */
function queue(
  ctx: SandboxContext,
  payment: SandboxPayment,
  request: OperationRequestBody,
): WireOperationResult {
  const op = record(payment, {
    operation: request.operation,
    amountMinor: request.amountMinor,
    referenceNumber: request.referenceNumber,
    source: "api",
    status: "queued",
  });
  const timer = setTimeout(() => {
    ctx.timers.delete(timer);
    // Decided at settlement time, against the ledger as it is then.
    const reason = refusal(payment, request.operation, request.amountMinor);
    if (!reason) apply(payment, request.operation, request.amountMinor);
    op.status = reason ? "rejected" : "success";
    ctx.notifier.send(request.notificationUrl, payment.pgCode, {
      type: "operation_result",
      reference_number: request.referenceNumber,
      pg_reference: payment.pgReference,
      operation: request.operation,
      status: op.status,
      pg_response: responseOf(op, reason),
    });
  }, ctx.queuedDelayMs);
  ctx.timers.add(timer);
  return { status: "queued", pg_response: responseOf(op, undefined) };
}

export function responseOf(op: SandboxOperation, reason: string | undefined): PgResponse {
  return {
    result: reason ? "DECLINED" : op.status === "queued" ? "QUEUED" : "SUCCESS",
    ...(reason ? { reason } : {}),
    gateway_operation_id: op.gatewayOperationId,
    is_sandbox: true,
  };
}
