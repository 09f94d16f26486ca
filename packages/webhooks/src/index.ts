/**
 * @svc/webhooks: receive svc operation and payment webhooks safely. The receiver rules are in
 * `@svc/webhooks/rules`, the deduper in `/dedupe`, signing and test helpers in `/sign`, the
 * framework adapters in `/node`, `/fastify` and `/fetch`. Every public type is exported here.
 *
 * @example
 * import { verifyWebhook } from "@svc/webhooks";
 * const event = await verifyWebhook(rawBody, headers, process.env.WEBHOOK_SECRET!);
 *
 * @packageDocumentation
 */
// The runtime exports, in this order because it is the order of their modules in a bundle, and
// the one measured to gzip smallest (module order moves the root entry by about 10 B).
export { isWebhookVerificationError, type WebhookErrorCode, WebhookVerificationError } from "./errors.js";
export { parseOperationWebhook } from "./parse-operation.js";
export { parsePaymentWebhook } from "./parse-payment.js";
export { expectedTxnState, normaliseTxnState } from "./states.js";
export { canonicalJson } from "./canonical-json.js";
export {
  DEFAULT_TOLERANCE_SECONDS,
  type VerifiedHeaders,
  type VerifyOptions,
  verifyPayloadSignature,
  verifyWebhook,
  verifyWebhookHeaders,
} from "./verify.js";
// The deduper lives in the "@svc/webhooks/dedupe" entry, the receiver rules in
// "@svc/webhooks/rules"; their types are exported here too (no bytes).
export type { DedupeResult, Deduper, DeduperOptions, DedupeStore } from "./dedupe.js";
// The sequence tracker lives in "@svc/webhooks/sequence"; its types are here too (no bytes).
export type { SequenceCheck, SequenceStore, SequenceTracker, WebhookMeta } from "./sequence.js";
// The adapters' option and request types (no bytes either).
export type { FastifyWebhookOptions } from "./adapters/fastify.js";
export type { WebhookHandlerOptions } from "./adapters/handle.js";
export type { NodeWebhookRequest } from "./adapters/node-request.js";
export type { HeadersLike } from "./headers.js";
export type { AmountDelta, MinorUnits, ParentKey } from "./receiver-rules.js";
export type { RawBody } from "./body.js";
// Signing lives in the "@svc/webhooks/sign" entry; its types are exported here too (no bytes).
export type { SignWebhookInput } from "./sign.js";
export type { TestHeadersOptions, TestWebhook } from "./test-headers.js";
export type * from "./types.js";
// The payload tables and their JSON Schema live in "@svc/webhooks/schema"; their types are here
// too (no bytes).
export type { JsonSchema, SchemaNote } from "./schema.js";
export type { FieldsOf, Rule, Table } from "./validate.js";
// The payload versions live in "@svc/webhooks/sign"; their type is here too (no bytes).
export type { PayloadVersion } from "./versions.js";
