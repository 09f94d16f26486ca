/**
 * Every reason a webhook can be refused, one stable code each. Codes never change meaning; new
 * ones may be added, so switch on them with a default branch.
 *
 * @example
 * const code: WebhookErrorCode = err.code;
 * switch (code) {
 *   case "timestamp_too_old": console.warn("replayed, or this server's clock is wrong"); break;
 *   default: console.warn(code, err.message);
 * }
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
  | "invalid_secret"
  | "crypto_unavailable"
  | "unsupported_version";

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
  declare readonly code: WebhookErrorCode;
  /**
   * 401 (not authentic), 400 (`invalid_payload`: authentic but invalid; `unsupported_version`:
   * authentic, but of a payload version newer than this library) or 500 (`invalid_body`,
   * `invalid_secret`, `crypto_unavailable`: the receiver's own code, configuration or runtime is
   * wrong, not the sender's).
   */
  declare readonly statusCode: number;
  /** For `invalid_payload`: every rule the payload broke, as `path: problem`. */
  declare readonly issues: readonly string[];

  constructor(code: WebhookErrorCode, message: string, issues: readonly string[] = []) {
    super(message);
    this.name = "WebhookVerificationError";
    this.code = code;
    // 400: invalid_payload and unsupported_version, authentic but not readable.
    this.statusCode = /_[pv]/.test(code) ? 400 : /body|secret|crypto/.test(code) ? 500 : 401;
    this.issues = issues;
  }
}

/** The advice every `invalid_payload` message ends with. */
export const UPGRADE = "upgrade @svc/webhooks if the service is newer.";

/** Throws a {@link WebhookVerificationError}; the one place the library raises them. */
export function fail(code: WebhookErrorCode, message: string, issues?: readonly string[]): never {
  throw new WebhookVerificationError(code, message, issues);
}

/**
 * True when `value` is a {@link WebhookVerificationError}, even one from another copy of this
 * package (bundlers sometimes load two), where `instanceof` would say no.
 *
 * @example
 * catch (err) { if (isWebhookVerificationError(err)) console.warn(err.code); }
 */
export function isWebhookVerificationError(value: unknown): value is WebhookVerificationError {
  // Also true for our own instances: the constructor sets both.
  return (
    value instanceof Error &&
    value.name === "WebhookVerificationError" &&
    typeof (value as { code?: unknown }).code === "string"
  );
}
