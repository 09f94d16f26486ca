import type { FastifySchema } from "fastify";

/** Security requirements of the OpenAPI document, one constant per auth mode. */
type Security = { [scheme: string]: string[] }[];

export const PRIVATE_SECURITY: Security = [{ apiKey: [] }, { basic: [] }];
export const PUBLIC_SECURITY: Security = [{ apiKey: [] }];
export const ADMIN_SECURITY: Security = [{ adminToken: [] }];

/**
 * The stable name of every operation (`operationId`): the generated client's method names
 * (@svc/node). Keyed by "METHOD path" as the document writes it. A route missing here fails the
 * OpenAPI test, so a new route gets its name when it is added, and a name never changes.
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  "POST /v1/admin/merchants": "createMerchant",
  "GET /v1/admin/merchants/{merchant_id}": "getMerchant",
  "POST /v1/admin/merchants/{merchant_id}/keys": "createApiKey",
  "DELETE /v1/admin/merchants/{merchant_id}/keys/{key_id}": "revokeApiKey",
  "POST /v1/admin/merchants/{merchant_id}/users": "createDashboardUser",
  "POST /v1/admin/merchants/{merchant_id}/gateways": "createGatewaySetting",
  "GET /v1/admin/merchants/{merchant_id}/gateways": "listGatewaySettings",
  "GET /v1/admin/merchants/{merchant_id}/gateways/{pg_code}": "getGatewaySetting",
  "PATCH /v1/admin/merchants/{merchant_id}/gateways/{pg_code}": "updateGatewaySetting",
  "POST /v1/admin/secrets/rotate": "rotateSecretsKey",
  "POST /v1/checkout": "createCheckout",
  "GET /v1/payments/{session_id}": "getPayment",
  "GET /v1/payments": "listPayments",
  "POST /v1/operations": "createOperation",
  "GET /v1/discrepancies": "listDiscrepancies",
  "GET /v1/discrepancies/{id}": "getDiscrepancy",
  "POST /v1/discrepancies/{id}/resolve": "resolveDiscrepancy",
  "GET /v1/webhooks/event-types": "listEventTypes",
  "GET /v1/webhooks/config": "getWebhookConfig",
  "PUT /v1/webhooks/config": "updateWebhookConfig",
  "GET /v1/webhooks/plugins/{type}": "getWebhookPlugin",
  "PUT /v1/webhooks/plugins/{type}": "updateWebhookPlugin",
  "POST /v1/webhooks/secret/rotate": "rotateWebhookSecret",
  "GET /v1/webhooks/messages": "listWebhookMessages",
  "GET /v1/webhooks/messages/{id}": "getWebhookMessage",
  "POST /v1/webhooks/messages/{id}/replay": "replayWebhookMessage",
  "POST /v1/webhooks/replay": "replayWebhookDeliveries",
  "GET /v1/webhooks/endpoints": "listWebhookEndpoints",
  "POST /v1/webhooks/endpoints": "createWebhookEndpoint",
  "GET /v1/webhooks/endpoints/{id}": "getWebhookEndpoint",
  "PATCH /v1/webhooks/endpoints/{id}": "updateWebhookEndpoint",
  "DELETE /v1/webhooks/endpoints/{id}": "deleteWebhookEndpoint",
  "POST /v1/webhooks/endpoints/{id}/replay": "replayWebhookEndpoint",
  "POST /v1/webhooks/listen": "startWebhookListen",
  "GET /v1/webhooks/endpoints/{id}/stream": "streamWebhookEndpoint",
  "POST /v1/webhooks/endpoints/{id}/deliveries/{delivery_id}/result": "reportStreamedDelivery",
  "POST /v1/webhooks/test": "sendTestWebhook",
  "POST /v1/webhooks/endpoints/{id}/test": "sendEndpointTestWebhook",
  "GET /v1/reports/overview": "getOverviewReport",
  "GET /v1/audit-events": "listAuditEvents",
  "GET /v1/checkout/{session_id}": "getCheckoutSession",
  "POST /v1/checkout/{session_id}/payments": "createCheckoutPayment",
  "POST /v1/checkout/{session_id}/payments/otp": "confirmCheckoutOtp",
  "GET /v1/checkout/{session_id}/payments/result": "getCheckoutPaymentResult",
  "GET /v1/sdk/config": "getSdkConfig",
  "POST /v1/sdk/errors": "reportSdkError",
  "POST /v1/gateways/{pg_code}/notifications": "receiveGatewayNotification",
};

/**
 * Documents the `Idempotency-Key` header on the routes that honour it (`config.idempotent`), for
 * the API's readers and for @svc/node, which sends one on exactly those. Only the document
 * changes: the routes' own validation is untouched.
 */
export function documentIdempotency({
  schema,
  url,
  route,
}: {
  schema: FastifySchema;
  url: string;
  route: { config?: unknown };
}): { schema: FastifySchema; url: string } {
  if (!(route.config as { idempotent?: boolean } | undefined)?.idempotent) return { schema, url };
  const headers = (schema.headers ?? { type: "object", properties: {} }) as {
    type: string;
    properties: Record<string, unknown>;
  };
  return {
    url,
    schema: {
      ...schema,
      headers: {
        ...headers,
        properties: {
          ...headers.properties,
          "idempotency-key": {
            type: "string",
            minLength: 1,
            maxLength: 255,
            description:
              "Makes a retry safe: the same key with the same request answers the first outcome, never a second effect (kept 24 h). A UUID per logical request.",
          },
        },
      },
    },
  };
}

/** RFC 9457 problem+json, as every error response carries it (`Problem` in @svc/protocol). */
const PROBLEM_SCHEMA = {
  type: "object",
  required: ["type", "title", "status", "detail", "code"],
  properties: {
    type: { type: "string", format: "uri", description: "https://svc.dev/problems/<code>" },
    title: { type: "string", description: "The code's title, the same for every occurrence" },
    status: { type: "integer", minimum: 400, maximum: 599 },
    detail: { type: "string", description: "What went wrong this time and what to do about it" },
    code: { type: "string", description: "Stable machine-readable code (docs/api.md lists them)" },
    errors: {
      type: "object",
      additionalProperties: { type: "array", items: { type: "string" } },
      description: "Validation failures (422): field path → messages",
    },
  },
  additionalProperties: true,
};

const ERROR_RESPONSES: Record<string, string> = {
  "400": "The body is not valid JSON, or the request could not be read",
  "401": "Missing or wrong credentials",
  "403": "The credentials are valid but lack the permission, or the key kind is wrong for this endpoint",
  "404": "Nothing with this id belongs to the merchant",
  "402": "The gateway declined the operation (its answer in pg_response); nothing was done",
  "409": "Conflicts with the resource's state, or a request with the same Idempotency-Key is still running",
  "410": "The checkout session has expired",
  "413": "The body is over the size limit",
  "415": "The body's Content-Type is not one this endpoint reads",
  "422": "A field is invalid (`errors` names each), or an Idempotency-Key was used with another request",
  "429": "Rate limited: retry after the Retry-After header's seconds",
  "502": "The gateway refused svc's request, or could not be reached before anything was sent",
  "504": "The gateway's outcome is unknown: retry with the same Idempotency-Key for the same answer",
};

/** Answers an operation gives beyond those its shape implies (below), by operationId. */
const MORE_ERRORS: Readonly<Record<string, readonly string[]>> = {
  createOperation: ["402", "404", "502", "504"],
  listPayments: ["404"],
  createCheckoutPayment: ["410", "502", "504"],
  confirmCheckoutOtp: ["410", "502", "504"],
  receiveGatewayNotification: ["401"],
};

type OperationObject = {
  operationId?: string;
  security?: Security;
  parameters?: { in: string }[];
  requestBody?: unknown;
  responses?: Record<string, unknown>;
};

/**
 * Completes the generated document for generators and linters: `servers`, a stable
 * `operationId` per operation, and the error responses each operation can give, all referencing
 * one problem+json schema. Every operation except the gateway's notifications states its
 * security (that one authenticates by the gateway's HMAC signature, `security: []`).
 */
/** The documented success answers (api-responses.ts): component schemas, and answers per operationId. */
export interface DocumentedAnswers {
  schemas: Record<string, unknown>;
  responses: Readonly<
    Record<
      string,
      Readonly<Record<string, { description: string; schema?: string | Record<string, unknown> }>>
    >
  >;
}

export function completeOpenApi<T extends object>(
  document: T,
  publicUrl: string,
  answers: DocumentedAnswers = { schemas: {}, responses: {} },
): T {
  const doc = document as unknown as {
    servers?: unknown[];
    paths?: Record<string, Record<string, OperationObject>>;
    components?: Record<string, Record<string, unknown>>;
  };
  doc.servers = [{ url: publicUrl, description: "This service" }];
  const components = (doc.components ??= {});
  components.schemas = { ...components.schemas, ...answers.schemas, Problem: PROBLEM_SCHEMA };
  components.responses = Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, description]) => [
      `Error${status}`,
      {
        description,
        content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
      },
    ]),
  );
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item)) {
      const key = `${method.toUpperCase()} ${path}`;
      const id = OPERATION_IDS[key];
      if (id) op.operationId = id;
      op.security ??= [];
      const authenticated = op.security.length > 0;
      const statuses = ["429"];
      if (authenticated) statuses.push("401", "403");
      if (path.includes("{")) statuses.push("404");
      if (op.requestBody || op.parameters?.some((p) => p.in === "query" || p.in === "path"))
        statuses.push("422");
      if (op.requestBody) statuses.push("400", "413", "415");
      if (id)
        for (const status of MORE_ERRORS[id] ?? []) if (!statuses.includes(status)) statuses.push(status);
      if (method === "post" || method === "put" || method === "patch" || method === "delete")
        statuses.push("409");
      const responses = (op.responses ??= {});
      const documented = id ? answers.responses[id] : undefined;
      if (documented) {
        // Fastify's placeholder ("Default Response") gives way to what the operation answers.
        for (const status of Object.keys(responses)) if (status.startsWith("2")) delete responses[status];
        for (const [status, answer] of Object.entries(documented)) {
          const schema =
            typeof answer.schema === "string"
              ? { $ref: `#/components/schemas/${answer.schema}` }
              : answer.schema;
          responses[status] = schema
            ? { description: answer.description, content: { "application/json": { schema } } }
            : { description: answer.description };
        }
      }
      for (const status of statuses.sort())
        responses[status] ??= { $ref: `#/components/responses/Error${status}` };
    }
  }
  return document;
}
