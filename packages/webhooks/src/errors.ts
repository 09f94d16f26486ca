/**
 * Every reason a webhook can be refused, one stable code each. Codes never change meaning; new
 * ones may be added, so switch on them with a default branch.
 */
export type WebhookErrorCode =
  | "missing_header"
  | "invalid_header"
  | "timestamp_too_old"
  | "timestamp_in_future"
  | "signature_mismatch"
  | "payload_signature_mismatch"
  | "invalid_payload"
  | "invalid_body"
  | "invalid_secret";

/** HTTP status an endpoint should answer for each code; the adapters use this table. */
const STATUS_BY_CODE: Record<WebhookErrorCode, number> = {
  missing_header: 401,
  invalid_header: 401,
  timestamp_too_old: 401,
  timestamp_in_future: 401,
  signature_mismatch: 401,
  payload_signature_mismatch: 401,
  // Authentic but malformed: a 400 tells the sender the message itself is wrong.
  invalid_payload: 400,
  // The two below are mistakes in the receiver's own code or configuration, not the sender's.
  invalid_body: 500,
  invalid_secret: 500,
};

/**
 * Thrown when a webhook cannot be trusted or understood. `code` is stable and machine-readable;
 * `message` says what to do about it; `statusCode` is what your endpoint should answer.
 *
 * @example
 * try {
 *   const event = await verifyWebhook(rawBody, req.headers, process.env.WEBHOOK_SECRET!);
 * } catch (err) {
 *   if (err instanceof WebhookVerificationError) {
 *     console.warn(err.code, err.message);
 *     return res.status(err.statusCode).end();
 *   }
 *   throw err;
 * }
 */
export class WebhookVerificationError extends Error {
  /** Stable reason, e.g. `signature_mismatch`. */
  readonly code: WebhookErrorCode;
  /** 401 (not authentic), 400 (authentic but invalid) or 500 (receiver misconfigured). */
  readonly statusCode: number;
  /** For `invalid_payload`: every rule the payload broke, as `path: problem`. */
  readonly issues: readonly string[];

  constructor(code: WebhookErrorCode, message: string, issues: readonly string[] = []) {
    super(message);
    this.name = "WebhookVerificationError";
    this.code = code;
    this.statusCode = STATUS_BY_CODE[code];
    this.issues = issues;
  }
}

/**
 * True when `value` is a {@link WebhookVerificationError}, even one from another copy of this
 * package (bundlers sometimes load two), where `instanceof` would say no.
 *
 * @example
 * catch (err) { if (isWebhookVerificationError(err)) console.warn(err.code); }
 */
export function isWebhookVerificationError(value: unknown): value is WebhookVerificationError {
  return (
    value instanceof WebhookVerificationError ||
    (value instanceof Error &&
      value.name === "WebhookVerificationError" &&
      typeof (value as { code?: unknown }).code === "string")
  );
}
