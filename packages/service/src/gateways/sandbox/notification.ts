/** Parses a verified sandbox notification body into the adapter's GatewayNotification union. */
import type { GatewayNotification } from "../adapter.js";
import { textProblem } from "../../http/input-guard.js";
import { isObject, isOperation, toPaymentResult } from "./mapping.js";

function fail(reason: string): never {
  throw new Error(`not a sandbox gateway notification: ${reason}`);
}

function text(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== "string" || value.length === 0) fail(`${field} must be a non-empty string`);
  const problem = textProblem(value);
  if (problem) fail(`${field} ${problem}`);
  return value;
}

/**
 * @throws Error naming the first field that does not fit, for a body that is not JSON or not
 * one of the three notification types (operation_result, operation, payment_result).
 */
export function parseSandboxNotification(rawBody: Buffer): GatewayNotification {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString("utf8"));
  } catch {
    fail("the body is not JSON (was the raw request body passed, not a re-serialized one?)");
  }
  if (!isObject(body)) fail("the body is not a JSON object");
  const notificationId = text(body, "notification_id");
  const pgResponse = body.pg_response;
  switch (body.type) {
    case "operation_result": {
      const status = body.status;
      if (status !== "success" && status !== "rejected") fail("status must be success or rejected");
      if (!isObject(pgResponse)) fail("pg_response must be an object");
      return {
        type: "operation_result",
        referenceNumber: text(body, "reference_number"),
        status,
        pgResponse,
        notificationId,
      };
    }
    case "operation": {
      if (!isOperation(body.operation)) fail("operation must be refund, capture or void");
      if (!isObject(pgResponse)) fail("pg_response must be an object");
      return {
        type: "operation",
        operation: body.operation,
        pgReference: text(body, "pg_reference"),
        gatewayOperationId: text(body, "gateway_operation_id"),
        amount: text(body, "amount"),
        currency: text(body, "currency"),
        pgResponse,
        notificationId,
      };
    }
    case "payment_result": {
      const result = toPaymentResult(body.result);
      if (!result) fail("result is not a payment result");
      return { type: "payment_result", pgReference: text(body, "pg_reference"), result, notificationId };
    }
    default:
      fail(`unknown type ${JSON.stringify(body.type)}`);
  }
}
