/**
 * `@svc/webhooks/sign`: signing, for senders and for tests. The svc service signs every delivery
 * with these functions, and merchants use them to build signed requests in their own tests.
 * Receivers need only the root entry (`verifyWebhook`), which stays small without them.
 *
 * @example
 * import { generateTestHeaders } from "@svc/webhooks/sign";
 * const { body, headers } = await generateTestHeaders(samplePayload, process.env.WEBHOOK_SECRET!);
 *
 * @packageDocumentation
 */
export { type SignWebhookInput, signPayload, signWebhook } from "./sign.js";
export {
  generateSecret,
  generateTestHeaders,
  type TestHeadersOptions,
  type TestWebhook,
} from "./test-headers.js";
export {
  CURRENT_PAYLOAD_VERSION,
  PAYLOAD_VERSIONS,
  type PayloadVersion,
  VERSION_HEADER,
} from "./versions.js";
