/**
 * The error catalogue: one stable snake_case `code` per failure, with its HTTP status and a
 * default title. Responses are RFC 9457 problem+json; `detail` says what to do about it.
 * Codes never change meaning once published; new failures get new codes.
 */
export const ERROR_CATALOGUE = {
  validation_failed: { status: 422, title: "The request body or query is invalid" },
  invalid_json: { status: 400, title: "The request body is not valid JSON" },
  unsupported_media_type: { status: 415, title: "The body's content type is not accepted here" },
  body_too_large: { status: 413, title: "The request body is too large" },
  unauthenticated: { status: 401, title: "Authentication is required" },
  invalid_credentials: { status: 401, title: "The credentials are not valid" },
  private_key_required: { status: 403, title: "This endpoint needs a private key" },
  permission_denied: { status: 403, title: "The user lacks the permission for this action" },
  not_found: { status: 404, title: "Not found" },
  route_not_found: { status: 404, title: "No such endpoint" },
  invalid_url: { status: 400, title: "The request's URL is not valid" },
  invalid_request: { status: 400, title: "The request could not be read" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  duplicate_order_no: { status: 409, title: "The order number is already used" },
  conflict: { status: 409, title: "The resource already exists" },
  read_only: { status: 409, title: "This resource is configured elsewhere" },
  limit_reached: { status: 409, title: "A limit on how many of these there may be was reached" },
  endpoint_disabled: { status: 409, title: "The webhook endpoint is disabled" },
  idempotency_key_reused: { status: 422, title: "The idempotency key was used with another request" },
  idempotency_key_in_use: { status: 409, title: "A request with this idempotency key is still in progress" },
  invalid_idempotency_key: { status: 400, title: "The idempotency key is not valid" },
  unknown_pg_code: { status: 422, title: "Unknown payment gateway code" },
  currency_not_supported: { status: 422, title: "The gateway does not support this currency" },
  form_of_payment_not_available: { status: 422, title: "This form of payment is not available" },
  session_expired: { status: 410, title: "The checkout session has expired" },
  invalid_state: { status: 409, title: "The transaction is not in a state that allows this" },
  payment_in_progress: { status: 409, title: "A payment for this session is already in progress" },
  invalid_otp: { status: 422, title: "The one-time code is not correct" },
  otp_expired: { status: 410, title: "The one-time code request has expired" },
  invalid_token: { status: 422, title: "The saved card token is not valid" },
  payment_declined: { status: 402, title: "The payment was declined" },
  operation_declined: { status: 402, title: "The gateway declined the operation" },
  invalid_state_for_operation: { status: 409, title: "The parent transaction does not allow this operation" },
  amount_exceeds_refundable: { status: 409, title: "The amount exceeds what can be refunded" },
  amount_exceeds_capturable: { status: 409, title: "The amount exceeds what can be captured" },
  currency_mismatch: { status: 422, title: "Operations work only in the parent's currency" },
  gateway_unavailable: { status: 502, title: "The payment gateway could not be reached" },
  gateway_request_rejected: { status: 502, title: "The payment gateway refused the request" },
  gateway_outcome_unknown: { status: 504, title: "The payment gateway did not answer in time" },
  invalid_signature: { status: 401, title: "The notification signature is not valid" },
  gateway_credentials_unavailable: { status: 503, title: "The gateway setting's credentials cannot be used" },
  secrets_key_missing: { status: 503, title: "No secrets key is configured, so credentials cannot be saved" },
  rate_limited: { status: 429, title: "Too many requests" },
  database_unavailable: { status: 503, title: "The service's database cannot be reached just now" },
  database_conflict: { status: 503, title: "The request collided with another changing the same records" },
  internal_error: { status: 500, title: "Internal error" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The RFC 9457 problem document every error response carries. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  /** Validation failures: field path → messages. */
  errors?: Record<string, string[]>;
  [extra: string]: unknown;
}

export const PROBLEM_TYPE_BASE = "https://svc.dev/problems/";
