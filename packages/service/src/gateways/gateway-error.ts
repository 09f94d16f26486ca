import type { PgResponse } from "./adapter.js";

/**
 * Why a gateway call failed without a payment or operation result.
 * - `gateway_unavailable`: the gateway could not be reached, timed out or answered 5xx. When
 *   `outcomeUnknown` is true the request may have been done (it was sent, and no answer came
 *   back), so the service must ask the gateway later (`operationStatus`, `paymentByAttempt`)
 *   and never assume a decline; when false, the request never left (no connection was made).
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
  /** True when the request may have reached the gateway and been done: its outcome is unknown. */
  readonly outcomeUnknown: boolean;

  constructor(
    code: GatewayErrorCode,
    message: string,
    options: { statusCode?: number; pgResponse?: PgResponse; cause?: unknown; outcomeUnknown?: boolean } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "GatewayError";
    this.code = code;
    this.statusCode = options.statusCode;
    this.pgResponse = options.pgResponse;
    this.outcomeUnknown = options.outcomeUnknown ?? code === "gateway_unavailable";
  }
}

/**
 * Errors that mean no connection was made, so the request never reached the gateway: its
 * outcome is known (nothing was done). Anything else after the request was handed to the
 * socket (a timeout, a reset) leaves the outcome unknown.
 */
const NEVER_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

export function neverSent(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NEVER_SENT_CODES.has(code)) return true;
    // Several addresses tried (happy eyeballs): every one refused.
    if (e instanceof AggregateError && e.errors.every((inner) => neverSent(inner))) return true;
  }
  return false;
}
