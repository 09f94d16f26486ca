/** The 404s several services give, each saying what to check or where the right id is found. */
import { AppError } from "./problem.js";

/** A merchant id the operator API does not know. */
export function noMerchant(merchantId: string): AppError {
  return new AppError(
    "not_found",
    `No merchant ${merchantId}. The operator API takes the merchant's id (mer_…) as POST /v1/admin/merchants answered it.`,
  );
}

/** A transaction the merchant has not (the dashboard shows this text too, so it names no API call). */
export function noTransaction(by: { sessionId?: string; orderNo?: string }): AppError {
  const named = by.sessionId ? `session_id ${by.sessionId}` : `order_no ${by.orderNo}`;
  return new AppError(
    "not_found",
    `No transaction with ${named}. Check it: another merchant's transactions are not found.`,
  );
}

/** A webhook endpoint id the merchant has not. */
export function noEndpoint(id: string): AppError {
  return new AppError(
    "not_found",
    `No webhook endpoint ${id}. GET /v1/webhooks/endpoints lists this merchant's.`,
  );
}
