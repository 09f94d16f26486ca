/** The OpenAPI 3.1 `webhooks` section: what svc POSTs to a merchant's URLs (see docs/webhooks.md). */
import { EVENT_TYPES } from "./outbox.js";
import {
  ENDPOINT_DISABLED_FIELDS,
  OPERATION_FIELDS,
  PAYMENT_FIELDS,
  payloadJsonSchema,
} from "@svc/webhooks/schema";
import { PAYLOAD_VERSIONS, VERSION_HEADER } from "@svc/webhooks/sign";

const str = (description: string, extra: Record<string, unknown> = {}) => ({
  type: "string",
  description,
  ...extra,
});

const headers = {
  "webhook-id": {
    required: true,
    schema: str("Message id (msg_…): the same on every retry; deduplicate on it"),
  },
  "webhook-timestamp": { required: true, schema: str("Unix seconds of this attempt") },
  "webhook-signature": {
    required: true,
    schema: str(
      '"v1,<base64 HMAC-SHA256 of {id}.{timestamp}.{body}>", space-separated during a secret rotation',
    ),
  },
  "svc-event-type": {
    required: true,
    schema: str(
      `The event type: ${EVENT_TYPES.map((e) => e.type).join(", ")} (GET /v1/webhooks/event-types)`,
    ),
  },
  "svc-sequence": {
    required: true,
    schema: str(
      "The message's number among its parent's messages to this URL: 1, 2, 3… without gaps; a retry or replay resends it",
      {
        pattern: "^[1-9][0-9]*$",
      },
    ),
  },
  [VERSION_HEADER]: {
    required: true,
    schema: str(
      "The payload version (the date its shapes were fixed) the endpoint is pinned to; the general and plugin URLs get the first. @svc/webhooks refuses a version it does not know",
      { enum: [...PAYLOAD_VERSIONS] },
    ),
  },
};

// The payloads' schemas are generated from @svc/webhooks' field tables, the one description of
// each payload (the library validates and types payloads with the same tables); only the
// descriptions, and the metadata limits the service keeps but receivers need not check, are here.
const IS_SANDBOX =
  "False only when a gateway setting that moves real money did it: KNET's or Stripe's production host, Stripe with a live key";
const metadataLimits = { additionalProperties: { type: "string", maxLength: 500 }, maxProperties: 50 };

export const OperationWebhook = payloadJsonSchema(OPERATION_FIELDS, {
  amount: "Operation amount, decimal string in the parent's currency",
  initiator: "The dashboard user who made the operation; absent for private keys and gateway relays",
  is_sandbox: IS_SANDBOX,
  metadata: {
    ...metadataLimits,
    description:
      "The payment's metadata: only to endpoints with include_metadata, when the payment has some; never to the general and plugin URLs",
  },
  order_no: "The parent's order_no; omitted when it has none",
  pg_code: "Gateway setting used",
  pg_response: "The gateway's raw response (non-JSON wrapped as {raw})",
  reference_number: "Unique per operation; the same on the queued notice and its final result",
  session_id: "The parent's session_id",
  signature: "Hex HMAC-SHA256 of the RFC 8785 canonical JSON of the payload without signature",
  timestamp_utc: "YYYY-MM-DD HH:MM:SS, UTC",
  "txn.order_no": "The parent's order_no, or reference_number when it has none",
  "txn.session_id": "The child's own session_id",
});

const PaymentWebhook = payloadJsonSchema(PAYMENT_FIELDS, {
  is_sandbox: `${IS_SANDBOX}; before any gateway, false when one it offered is`,
  transactions: "Children, as in the Payment Status API",
  metadata: {
    ...metadataLimits,
    description: "Your own data given at checkout; absent when none was given",
  },
  timestamp_utc: "YYYY-MM-DD HH:MM:SS, UTC",
});

const endpointDisabled = payloadJsonSchema(ENDPOINT_DISABLED_FIELDS, {
  endpoint: "The endpoint that was disabled",
  failing_since: "When its deliveries began to fail (ISO 8601 UTC)",
  last_error: "The last error its deliveries met",
  disabled_at: "When it was disabled (ISO 8601 UTC)",
  timestamp_utc: "YYYY-MM-DD HH:MM:SS, UTC",
}) as { properties: { endpoint: { properties: object; required: string[] } } };
// The description may be empty (the tables' strings may not): described here, checked by
// @svc/webhooks/notices.
endpointDisabled.properties.endpoint.properties = {
  ...endpointDisabled.properties.endpoint.properties,
  description: { type: "string", description: "The endpoint's description, possibly empty" },
};
endpointDisabled.properties.endpoint.required = [
  ...endpointDisabled.properties.endpoint.required,
  "description",
];

const delivery = (operationId: string, summary: string, schema: unknown) => ({
  post: {
    operationId,
    summary,
    // The receiver authenticates svc by the signature headers (docs/webhooks.md).
    security: [{ webhookSignature: [] }],
    tags: ["Webhooks"],
    parameters: Object.entries(headers).map(([name, h]) => ({ name, in: "header", ...h })),
    requestBody: { required: true, content: { "application/json": { schema } } },
    responses: {
      "2XX": { description: "Received. Anything else (redirects included) is retried; 410 stops retrying." },
    },
  },
});

/** Typed loosely on purpose: the OpenAPI types of @fastify/swagger want literal unions for `in`. */
export const OPENAPI_WEBHOOKS: Record<string, never> = {
  operation: delivery(
    "operationWebhook",
    "Operation webhook: a refund, capture or void (or a queued one's result)",
    OperationWebhook,
  ),
  payment: delivery("paymentWebhook", "Payment webhook: a payment became final", PaymentWebhook),
  "webhook.endpoint_disabled": delivery(
    "endpointDisabledWebhook",
    "One of the merchant's endpoints was disabled: every delivery to it failed for the configured period (to endpoints subscribed to webhook.endpoint_disabled)",
    endpointDisabled,
  ),
} as unknown as Record<string, never>;
