/**
 * What the merchant-facing API answers, as JSON Schemas in the OpenAPI document: for each
 * operationId its success statuses, each referencing a schema of `components.schemas`. @svc/node's
 * response types are generated from them. Documentation only: a route sends what its service
 * returns (a Fastify response schema would re-serialise the answer and could drop a field of it).
 * The test beside this file calls every operation listed here on the real service and validates
 * each answer against the served document, where every object is closed
 * (`additionalProperties: false`): a field added to an answer fails it until it is documented here.
 *
 * Operations not listed (the operator API, the browser SDK's public-key calls, the listen stream)
 * keep an undescribed success response; see docs/api.md.
 */
import {
  CHILD_STATES,
  FORMS_OF_PAYMENT,
  LANGUAGES,
  OPERATIONS,
  PARENT_STATES,
  PAYMENT_OPERATIONS,
  TRANSACTION_TYPES,
} from "@svc/protocol";
import { type TSchema, Type } from "@sinclair/typebox";
import { stringEnum } from "./http/schema.js";
import { OperationWebhook } from "./webhooks/openapi.js";

const obj = <T extends Record<string, TSchema>>(properties: T, description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });
const nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);
/** A schema of {@link SCHEMAS} by name (checked by the test: every reference resolves). */
const ref = (name: string) => Type.Unsafe({ $ref: `#/components/schemas/${name}` });
const time = (description?: string) =>
  Type.String({ format: "date-time", ...(description ? { description } : {}) });
const amount = (description: string) =>
  Type.String({
    pattern: "^[0-9]+(\\.[0-9]+)?$",
    description: `${description} (decimal string in the currency's exponent)`,
  });
const anyObject = (description: string) => Type.Object({}, { additionalProperties: true, description });
const metadata = Type.Record(Type.String(), Type.String(), {
  description: "Your own data given at checkout (up to 50 keys)",
});
const customer = {
  customer_id: nullable(Type.String()),
  customer_first_name: nullable(Type.String()),
  customer_last_name: nullable(Type.String()),
  customer_email: nullable(Type.String()),
  customer_phone: nullable(Type.String()),
};
const paymentCore = {
  session_id: Type.String(),
  order_no: nullable(Type.String()),
  state: stringEnum(PARENT_STATES),
  amount: amount("The payment's amount"),
  currency_code: Type.String({ minLength: 3, maxLength: 3 }),
  operation: stringEnum(PAYMENT_OPERATIONS),
  type: stringEnum(TRANSACTION_TYPES),
  created_via: Type.String({ description: "api, dashboard or sdk" }),
  pg_code: nullable(Type.String({ description: "The gateway setting that took the payment" })),
  form_of_payment: nullable(stringEnum(FORMS_OF_PAYMENT)),
};

const EndpointFields = {
  id: Type.String({ description: "we_… for your endpoints; a stable id for the general and plugin URLs" }),
  kind: stringEnum(["endpoint", "cli", "general", "plugin"] as const, {
    description: "endpoint: yours; cli: svc listen's; general, plugin: the seed's URLs (read-only here)",
  }),
  url: Type.String(),
  description: Type.String(),
  event_types: Type.Array(Type.String(), { description: '["*"]: every event type' }),
  headers: Type.Record(Type.String(), Type.String()),
  enabled: Type.Boolean(),
  payload_version: Type.String(),
  include_metadata: Type.Boolean(),
  editable: Type.Boolean(),
  failing_since: nullable(time("When the current run of failed attempts began")),
  last_error: nullable(Type.String()),
  disabled_at: nullable(time()),
  disabled_reason: nullable(stringEnum(["manual", "failing"] as const)),
  created_at: nullable(time()),
  updated_at: nullable(time()),
};

/** The schemas of `components.schemas`, by name. */
export const SCHEMAS = {
  PaymentMethod: obj({
    pg_code: Type.String(),
    name: Type.String(),
    form_of_payment: stringEnum(FORMS_OF_PAYMENT),
    amount: amount("What the customer pays with this method"),
    currency_code: Type.String(),
    fee: amount("The method's fee"),
    fee_description: Type.String(),
    icon: Type.String({ description: "card, wallet_a, wallet_b, saved_card or bank" }),
    flow: stringEnum(["wallet", "otp", "hosted_page", "token", "redirect"] as const),
  }),
  CheckoutCreated: obj({
    session_id: Type.String(),
    order_no: nullable(Type.String()),
    type: stringEnum(TRANSACTION_TYPES),
    amount: amount("The payment's amount"),
    currency_code: Type.String(),
    state: stringEnum(PARENT_STATES),
    operation: stringEnum(PAYMENT_OPERATIONS),
    language: stringEnum(LANGUAGES),
    pg_codes: Type.Array(Type.String()),
    checkout_url: Type.String({ description: "The hosted card page, for a link or a redirect" }),
    payment_methods: Type.Array(ref("PaymentMethod")),
    expires_at: time(),
    created_via: Type.String(),
    sdk_setup_preload_payload: Type.Optional(
      anyObject("With include_sdk_setup_preload: what the SDK's setupPreload takes"),
    ),
  }),
  ChildTransaction: obj({
    session_id: Type.String({ description: "The child's own session_id" }),
    order_no: Type.String({ description: "The parent's order_no, or reference_number when it has none" }),
    amount: amount("The operation's amount"),
    currency_code: Type.String(),
    state: stringEnum(CHILD_STATES),
    operation: stringEnum(OPERATIONS),
    reference_number: Type.String(),
    source: Type.String({ description: "input (svc dashboard or API) or pg (the gateway's dashboard)" }),
    created_at: time(),
  }),
  Payment: obj({
    ...paymentCore,
    language: stringEnum(LANGUAGES),
    ...customer,
    metadata,
    captured_amount: amount("Captured so far"),
    refunded_amount: amount("Refunded so far"),
    voided_amount: amount("Voided so far"),
    capturable_amount: amount("Still capturable"),
    refundable_amount: amount("Still refundable"),
    remaining_amount: amount("What can still be acted on: capturable_amount + refundable_amount"),
    challenge_occurred: Type.Boolean(),
    pg_response: nullable(anyObject("The gateway's raw answer")),
    expires_at: time(),
    created_at: time(),
    completed_at: nullable(time()),
    transactions: Type.Array(ref("ChildTransaction"), { description: "Refunds, captures and voids" }),
  }),
  PaymentListItem: obj({
    ...paymentCore,
    ...customer,
    metadata,
    created_at: time(),
    completed_at: nullable(time()),
  }),
  PaymentList: obj({
    data: Type.Array(ref("PaymentListItem")),
    has_more: Type.Boolean(),
    next_cursor: nullable(Type.String({ description: "Pass as cursor for the next page" })),
  }),
  OperationResult: Type.Unsafe({
    ...OperationWebhook,
    description:
      "The operation webhook's payload: result success (200) or queued (202); the same object the webhook carries",
  }),
  EventTypeList: obj({
    event_types: Type.Array(obj({ type: Type.String(), description: Type.String() })),
  }),
  WebhookEndpoint: obj({
    ...EndpointFields,
    missed: Type.Optional(
      obj(
        { since: time(), failed: Type.Integer({ minimum: 0 }) },
        "Only when this change re-enabled the endpoint: what it missed since, which a replay sends",
      ),
    ),
    moved: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Only when this change set a new URL: how many deliveries still waiting for the endpoint (pending or retrying) go to it now",
      }),
    ),
  }),
  WebhookEndpointList: obj({ endpoints: Type.Array(ref("WebhookEndpoint")) }),
  EndpointReplay: obj({ since: time(), replayed: Type.Integer({ minimum: 0 }) }),
  TestWebhookSent: obj({
    message_id: nullable(Type.String({ description: "null: nothing to send to (no URL, or no secret)" })),
    urls: Type.Array(Type.String()),
  }),
  WebhookConfig: obj({
    enabled: Type.Boolean(),
    operations_webhook_url: nullable(Type.String()),
    notify_api_initiated: Type.Boolean(),
    timeout_seconds: Type.Integer(),
    retry_schedule_seconds: Type.Array(Type.Integer()),
    moved: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Only when this change gave operations_webhook_url a new URL: how many deliveries still waiting for the old one (pending or retrying) go to the new one now",
      }),
    ),
  }),
  WebhookPlugin: obj({
    type: stringEnum(TRANSACTION_TYPES),
    webhook_url: nullable(Type.String({ description: "null: the plugin sends to no URL of its own" })),
    enabled: Type.Boolean(),
    moved: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Only when this change gave webhook_url a new URL: how many deliveries still waiting for the old one (pending or retrying) go to the new one now",
      }),
    ),
  }),
  WebhookSecretRotated: obj({
    secret: Type.String({
      description: "The new signing secret (whsec_…), shown this once: svc signs with it from now on",
    }),
    previous_secret_expires_at: time(
      "Until then the previous secret still signs each message too (a second signature)",
    ),
  }),
  WebhookMessage: obj({
    id: Type.String(),
    kind: Type.String(),
    event_type: Type.String(),
    session_id: nullable(Type.String()),
    child_session_id: nullable(Type.String()),
    reference_number: nullable(Type.String()),
    result: nullable(Type.String()),
    status: Type.String({ description: "Summary of its deliveries: pending, retrying, delivered, failed…" }),
    created_at: time(),
    payload: anyObject("The JSON body sent"),
    deliveries: Type.Array(
      obj({
        id: Type.String(),
        url: Type.String(),
        endpoint_id: nullable(Type.String()),
        status: Type.String(),
        tries: Type.Integer({ minimum: 0 }),
        next_attempt_at: nullable(time()),
        last_status_code: nullable(Type.Integer()),
        last_error: nullable(Type.String()),
        completed_at: nullable(time()),
        attempts: Type.Array(
          obj({
            attempted_at: time(),
            url: Type.String({
              description:
                "Where this attempt was sent: the delivery's URL, or the one it went to before a replay sent the delivery to where its endpoint is now",
            }),
            status_code: nullable(Type.Integer()),
            latency_ms: nullable(Type.Integer()),
            error: nullable(Type.String()),
            response_body: nullable(Type.String()),
          }),
        ),
      }),
    ),
  }),
  WebhookMessageList: obj({ messages: Type.Array(ref("WebhookMessage")) }),
  Replayed: obj({
    replayed: Type.Integer({ minimum: 0, description: "Deliveries queued again" }),
    skipped: Type.Integer({
      minimum: 0,
      description:
        "Deliveries left as they are: their endpoint is disabled or deleted now, or another delivery of their message goes to the same URL",
    }),
  }),
  Discrepancy: obj({
    id: Type.String(),
    kind: stringEnum(["gateway_operation", "unknown_outcome", "late_payment"] as const, {
      description:
        "gateway_operation: an operation a gateway reported breaks a money rule (not applied); unknown_outcome: an operation svc sent whose outcome the gateway cannot be asked; late_payment: a payment taken after its attempt was closed",
    }),
    status: stringEnum(["open", "resolved"] as const),
    rule: Type.String({ description: "The rule broken, e.g. amount_exceeds_refundable" }),
    detail: Type.String(),
    session_id: Type.String({ description: "The payment (parent)" }),
    operation_session_id: nullable(Type.String({ description: "unknown_outcome: the operation svc sent" })),
    pg_code: Type.String(),
    gateway_operation_id: Type.String(),
    notification_id: nullable(Type.String()),
    operation: Type.String(),
    amount: amount("The operation's amount"),
    currency_code: Type.String(),
    pg_response: anyObject("What the gateway said"),
    created_at: time(),
    resolution: nullable(
      obj({
        note: nullable(Type.String()),
        outcome: nullable(stringEnum(["done", "not_done"] as const)),
        resolved_by: nullable(Type.String({ description: 'The dashboard user, or "api key"' })),
        resolved_at: nullable(time()),
      }),
    ),
  }),
  DiscrepancyList: obj({ discrepancies: Type.Array(ref("Discrepancy")) }),
  OverviewReport: obj({
    range: stringEnum(["today", "7d", "30d"] as const),
    since: time(),
    until: time(),
    successful: Type.Integer(),
    unsuccessful: Type.Integer(),
    success_rate: nullable(Type.Number({ minimum: 0, maximum: 1 })),
    currencies: Type.Array(
      obj({
        currency_code: Type.String(),
        volume: amount("Paid or authorized"),
        count: Type.Integer(),
        refunds: amount("Refunded"),
        refund_count: Type.Integer(),
        captures: amount("Captured"),
        capture_count: Type.Integer(),
        voids: amount("Voided"),
        net: amount("volume − refunds − voids"),
        days: Type.Array(obj({ day: Type.String(), volume: amount("That day"), count: Type.Integer() })),
      }),
    ),
    webhooks: obj({
      attempts: Type.Integer(),
      succeeded: Type.Integer(),
      success_rate: nullable(Type.Number({ minimum: 0, maximum: 1 })),
      p95_latency_ms: nullable(Type.Number()),
      failing: Type.Array(
        obj({
          url: Type.String(),
          failed: Type.Integer(),
          retrying: Type.Integer(),
          last_error: nullable(Type.String()),
          last_at: time(),
        }),
      ),
    }),
  }),
  AuditEventList: obj({
    data: Type.Array(
      obj({
        id: Type.Integer(),
        at: time(),
        actor_kind: stringEnum(["user", "api_key"] as const),
        actor: Type.String(),
        action: Type.String(),
        target: nullable(Type.String()),
        detail: anyObject("What changed"),
        ip: nullable(Type.String()),
        user_agent: nullable(Type.String()),
      }),
    ),
    next_before: nullable(Type.Integer({ description: "Pass as before for the next page" })),
  }),
} satisfies Record<string, TSchema>;

/** A success answer: its schema by name in {@link SCHEMAS}, or a schema object; none for no body. */
export type Answer = {
  description: string;
  schema?: (keyof typeof SCHEMAS & string) | Record<string, unknown>;
};

/** Each documented operation's success answers, by status. */
export const RESPONSES: Readonly<Record<string, Readonly<Record<string, Answer>>>> = {
  createCheckout: { "201": { description: "Created", schema: "CheckoutCreated" } },
  getPayment: { "200": { description: "The payment with its child transactions", schema: "Payment" } },
  listPayments: {
    "200": {
      description: "A page of payments; with order_no, that one payment (a Payment)",
      schema: {
        anyOf: [{ $ref: "#/components/schemas/PaymentList" }, { $ref: "#/components/schemas/Payment" }],
      },
    },
  },
  createOperation: {
    "200": { description: "Done by the gateway (result success)", schema: "OperationResult" },
    "202": {
      description: "Queued by the gateway (result queued): the final result comes as a webhook",
      schema: "OperationResult",
    },
  },
  listEventTypes: { "200": { description: "The event types", schema: "EventTypeList" } },
  listWebhookEndpoints: {
    "200": { description: "The seed's URLs first, then yours", schema: "WebhookEndpointList" },
  },
  createWebhookEndpoint: { "201": { description: "Created", schema: "WebhookEndpoint" } },
  getWebhookEndpoint: { "200": { description: "The endpoint", schema: "WebhookEndpoint" } },
  updateWebhookEndpoint: { "200": { description: "The endpoint as changed", schema: "WebhookEndpoint" } },
  deleteWebhookEndpoint: { "204": { description: "Deleted" } },
  replayWebhookEndpoint: { "200": { description: "Queued again", schema: "EndpointReplay" } },
  sendTestWebhook: { "202": { description: "Queued", schema: "TestWebhookSent" } },
  sendEndpointTestWebhook: { "202": { description: "Queued", schema: "TestWebhookSent" } },
  getWebhookConfig: { "200": { description: "The general configuration", schema: "WebhookConfig" } },
  updateWebhookConfig: { "200": { description: "The configuration as changed", schema: "WebhookConfig" } },
  getWebhookPlugin: { "200": { description: "The plugin's configuration", schema: "WebhookPlugin" } },
  updateWebhookPlugin: { "200": { description: "The configuration as changed", schema: "WebhookPlugin" } },
  rotateWebhookSecret: { "200": { description: "The new secret", schema: "WebhookSecretRotated" } },
  replayWebhookDeliveries: { "202": { description: "Queued again", schema: "Replayed" } },
  listDiscrepancies: { "200": { description: "Newest first", schema: "DiscrepancyList" } },
  getDiscrepancy: { "200": { description: "The discrepancy", schema: "Discrepancy" } },
  resolveDiscrepancy: { "200": { description: "The discrepancy as resolved", schema: "Discrepancy" } },
  listWebhookMessages: { "200": { description: "Newest first", schema: "WebhookMessageList" } },
  getWebhookMessage: {
    "200": { description: "The message, its deliveries and attempts", schema: "WebhookMessage" },
  },
  replayWebhookMessage: { "202": { description: "Queued again", schema: "Replayed" } },
  getOverviewReport: { "200": { description: "The figures of the range", schema: "OverviewReport" } },
  listAuditEvents: { "200": { description: "Newest first", schema: "AuditEventList" } },
};
