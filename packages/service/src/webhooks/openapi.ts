/** The OpenAPI 3.1 `webhooks` section: what svc POSTs to a merchant's URLs (see docs/webhooks.md). */
import { CHILD_STATES } from "@svc/protocol";

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
      "The event type: operation, payment.paid, payment.authorized, payment.failed, payment.canceled, webhook.test",
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
};

const OperationWebhook = {
  type: "object",
  required: [
    "amount",
    "is_sandbox",
    "operation",
    "pg_code",
    "pg_response",
    "reference_number",
    "result",
    "session_id",
    "signature",
    "source",
    "success",
    "timestamp_utc",
    "txn",
  ],
  properties: {
    amount: str("Operation amount, decimal string in the parent's currency"),
    initiator: {
      type: "object",
      description: "The dashboard user who made the operation; absent for private keys and gateway relays",
      required: ["id", "username", "email"],
      properties: {
        id: { type: "integer" },
        first_name: str("", { maxLength: 32 }),
        last_name: str("", { maxLength: 32 }),
        username: str("", { maxLength: 150 }),
        email: str("", { maxLength: 254 }),
        phone: str("", { maxLength: 128 }),
      },
    },
    is_sandbox: { type: "boolean" },
    operation: { type: "string", enum: ["capture", "refund", "void"] },
    order_no: str("The parent's order_no; omitted when it has none"),
    pg_code: str("Gateway setting used"),
    pg_response: { type: "object", description: "The gateway's raw response (non-JSON wrapped as {raw})" },
    reference_number: str("Unique per operation; the same on the queued notice and its final result"),
    result: { type: "string", enum: ["success", "queued", "rejected"] },
    session_id: str("The parent's session_id"),
    signature: str("Hex HMAC-SHA256 of the RFC 8785 canonical JSON of the payload without signature"),
    source: { type: "string", enum: ["input", "pg"] },
    success: { type: "boolean" },
    timestamp_utc: str("YYYY-MM-DD HH:MM:SS, UTC"),
    txn: {
      type: "object",
      required: ["amount", "currency_code", "order_no", "session_id", "state"],
      properties: {
        amount: { type: "string" },
        currency_code: { type: "string" },
        order_no: str("The parent's order_no, or reference_number when it has none"),
        session_id: str("The child's own session_id"),
        state: { type: "string", enum: [...CHILD_STATES] },
      },
    },
  },
};

const PaymentWebhook = {
  type: "object",
  required: [
    "event",
    "session_id",
    "state",
    "amount",
    "currency_code",
    "transactions",
    "timestamp_utc",
    "signature",
  ],
  properties: {
    event: { type: "string", enum: ["payment"] },
    session_id: { type: "string" },
    order_no: { type: "string" },
    state: { type: "string", enum: ["paid", "authorized", "failed", "canceled", "expired"] },
    amount: { type: "string" },
    currency_code: { type: "string" },
    operation: { type: "string", enum: ["purchase", "authorize"] },
    created_via: { type: "string", enum: ["api", "dashboard"] },
    type: { type: "string", enum: ["e_commerce", "payment_request"] },
    pg_code: { type: ["string", "null"] },
    form_of_payment: { type: ["string", "null"] },
    captured_amount: { type: "string" },
    refunded_amount: { type: "string" },
    voided_amount: { type: "string" },
    remaining_amount: { type: "string" },
    transactions: {
      type: "array",
      items: { type: "object" },
      description: "Children, as in the Payment Status API",
    },
    is_sandbox: { type: "boolean" },
    pg_response: { type: "object" },
    metadata: {
      type: "object",
      additionalProperties: { type: "string", maxLength: 500 },
      maxProperties: 50,
      description: "Your own data given at checkout; absent when none was given",
    },
    timestamp_utc: str("YYYY-MM-DD HH:MM:SS, UTC"),
    signature: { type: "string" },
  },
};

const delivery = (summary: string, schema: unknown) => ({
  post: {
    summary,
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
    "Operation webhook: a refund, capture or void (or a queued one's result)",
    OperationWebhook,
  ),
  payment: delivery("Payment webhook: a payment became final", PaymentWebhook),
} as unknown as Record<string, never>;
