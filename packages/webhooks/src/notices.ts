/**
 * `@svc/webhooks/notices`: svc's notices about the merchant's account, which `verifyWebhook`
 * returns as `type: "other"` with their `event` (so the root entry stays small, and a receiver
 * that has no use for them answers 2xx and is done): today `webhook.endpoint_disabled`.
 *
 * @example
 * import { parseEndpointDisabledWebhook } from "@svc/webhooks/notices";
 * if (event.type === "other" && event.event === "webhook.endpoint_disabled") {
 *   const notice = parseEndpointDisabledWebhook(event.payload);
 *   await pageOnCall(`${notice.endpoint.url} was disabled: ${notice.last_error}`);
 * }
 *
 * @packageDocumentation
 */
import { ENDPOINT_DISABLED_FIELDS } from "./payloads.js";
import type { EndpointDisabledWebhook } from "./types.js";
import { validate } from "./validate.js";

/**
 * Validates a `webhook.endpoint_disabled` payload and returns it typed. It does not check the
 * signature: pass it the payload of an event `verifyWebhook` returned.
 *
 * @throws WebhookVerificationError `invalid_payload`, listing every broken rule in `issues`.
 * @example
 * const notice = parseEndpointDisabledWebhook(event.payload);
 * console.log(notice.endpoint.id, notice.failing_since, notice.disabled_at);
 */
export function parseEndpointDisabledWebhook(value: unknown): EndpointDisabledWebhook {
  return validate(value, ENDPOINT_DISABLED_FIELDS, (payload, issues) => {
    // Not in the table: the only string the payloads may send empty.
    const description = (payload.endpoint as { description?: unknown } | undefined)?.description;
    if (typeof description !== "string")
      issues.push(`endpoint.description: expected a string, got ${JSON.stringify(description)}`);
  }) as unknown as EndpointDisabledWebhook;
}
