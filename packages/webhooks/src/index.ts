/**
 * @svc/webhooks: receive svc operation and payment webhooks safely. Signing and test helpers are
 * in `@svc/webhooks/sign`, the framework adapters in `/node`, `/fastify` and `/fetch`.
 *
 * @example
 * import { verifyWebhook } from "@svc/webhooks";
 * const event = await verifyWebhook(rawBody, headers, process.env.WEBHOOK_SECRET!);
 *
 * @packageDocumentation
 */
export { canonicalJson } from "./canonical-json.js";
export {
  createDeduper,
  DEFAULT_DEDUPE_RETENTION_MS,
  type Deduper,
  type DeduperOptions,
  type DedupeStore,
  memoryDedupeStore,
} from "./dedupe.js";
export { isWebhookVerificationError, type WebhookErrorCode, WebhookVerificationError } from "./errors.js";
export type { HeadersLike } from "./headers.js";
export { parseOperationWebhook } from "./parse-operation.js";
export { parsePaymentWebhook } from "./parse-payment.js";
export {
  type AmountDelta,
  amountDelta,
  isFinal,
  isQueued,
  type MinorUnits,
  type ParentKey,
  parentKey,
  toMinorUnits,
} from "./receiver-rules.js";
export type { RawBody } from "./body.js";
// Signing lives in the "@svc/webhooks/sign" entry; its types are exported here too (no bytes).
export type { SignWebhookInput } from "./sign.js";
export { expectedTxnState, normaliseTxnState } from "./states.js";
export type { TestHeadersOptions, TestWebhook } from "./test-headers.js";
export type * from "./types.js";
export {
  DEFAULT_TOLERANCE_SECONDS,
  type VerifiedHeaders,
  type VerifyOptions,
  verifyPayloadSignature,
  verifyWebhook,
  verifyWebhookHeaders,
} from "./verify.js";
