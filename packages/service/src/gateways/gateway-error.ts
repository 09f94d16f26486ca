import type { PgResponse } from "./adapter.js";

/**
 * Why a gateway call failed without a payment or operation result.
 * - `gateway_unavailable`: the gateway could not be reached, timed out or answered 5xx; the
 *   outcome is unknown, so the service should ask `paymentStatus` later rather than assume a decline.
 * - `gateway_request_rejected`: the gateway refused the request itself (4xx other than a decline),
 *   which means svc sent something it should not have; `message` carries the gateway's reason.
 */
export type GatewayErrorCode = "gateway_unavailable" | "gateway_request_rejected";

/**
 * Thrown by gateway adapters when there is no result to map.
 * @example
 * try { await adapter.pay(request); } catch (error) {
 *   if (error instanceof GatewayError && error.code === "gateway_unavailable") retryLater();
 * }
 */
export class GatewayError extends Error {
  readonly code: GatewayErrorCode;
  readonly statusCode: number | undefined;
  readonly pgResponse: PgResponse | undefined;

  constructor(
    code: GatewayErrorCode,
    message: string,
    options: { statusCode?: number; pgResponse?: PgResponse; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "GatewayError";
    this.code = code;
    this.statusCode = options.statusCode;
    this.pgResponse = options.pgResponse;
  }
}
