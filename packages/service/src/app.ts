/**
 * buildApp(config, deps): the whole HTTP service as a Fastify instance that never listens by
 * itself, so tests call `app.inject()` or listen on an ephemeral port. Routes stay thin:
 * routes → service → repo; no SQL in a route.
 */
import formbody from "@fastify/formbody";
import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { Duplex } from "node:stream";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { ERROR_CATALOGUE, PROBLEM_TYPE_BASE } from "@svc/protocol";
import Fastify, { type FastifyInstance, type FastifyRequest } from "fastify";
import { checkoutRoutes } from "./checkout/checkout.routes.js";
import { createCheckoutService } from "./checkout/checkout.service.js";
import { hostedPageRoutes } from "./checkout/hosted-page.routes.js";
import { sdkRoutes } from "./checkout/sdk.routes.js";
import { createSdkService } from "./checkout/sdk.service.js";
import type { ServiceConfig } from "./config.js";
import type { Db } from "./db/client.js";
import { clipText } from "./db/json.js";
import { migrationsApplied } from "./db/migrate.js";
import { dashboardRoutes } from "./dashboard/dashboard.routes.js";
import { discrepanciesRoutes } from "./gateways/discrepancies.routes.js";
import { createDiscrepanciesService } from "./gateways/discrepancies.service.js";
import { notificationsRoutes } from "./gateways/notifications.routes.js";
import { gatewaySettingsRoutes } from "./gateways/settings.routes.js";
import { createGatewaySettingsService, type GatewaySettingsService } from "./gateways/settings.service.js";
import { createKeyring, type Keyring } from "./secrets/keyring.js";
import { createNotificationsService } from "./gateways/notifications.service.js";
import type { GatewayRegistry } from "./gateways/registry.js";
import { registerAuth } from "./http/auth.js";
import { registerIdempotency } from "./http/idempotency.js";
import { registerInputGuard } from "./http/input-guard.js";
import { registerRateLimits } from "./http/rate-limit.js";
import { AppError, errorHandler, sendProblem, validationError } from "./http/problem.js";
import { adminRoutes } from "./merchants/admin.routes.js";
import { createMerchantsService } from "./merchants/merchants.service.js";
import { createMetrics, type Metrics } from "./metrics/metrics.js";
import { metricsRoutes } from "./metrics/metrics.routes.js";
import { createGatewayOperations } from "./operations/gateway-notifications.js";
import { operationsRoutes } from "./operations/operations.routes.js";
import { createOperationsService } from "./operations/operations.service.js";
import { paymentsRoutes } from "./payments/payments.routes.js";
import { createPaymentsService } from "./payments/payments.service.js";
import { sandboxSettingSecret } from "./gateways/sandbox/signature.js";
import { sdkAssetRoutes } from "./sdk-assets/sdk-assets.routes.js";
import { emitPaymentWebhook } from "./payments/payment-webhook.js";
import { messagesRoutes } from "./webhooks/messages.routes.js";
import { createMessagesService } from "./webhooks/messages.service.js";
import { OPENAPI_WEBHOOKS } from "./webhooks/openapi.js";
import { completeOpenApi, documentIdempotency } from "./http/openapi.js";
import { RESPONSES, SCHEMAS } from "./api-responses.js";
import { notifyWorkers, OutboxSignal } from "./webhooks/outbox.js";
import { testWebhookRoutes } from "./operations/test-webhook.routes.js";
import { overviewRoutes } from "./payments/overview.routes.js";
import { registerAuditHook } from "./audit/audit.js";
import { auditRoutes } from "./audit/audit.routes.js";
import { endpointsRoutes } from "./webhooks/endpoints.routes.js";
import { createListenService } from "./webhooks/listen.js";
import { listenRoutes } from "./webhooks/listen.routes.js";
import { createEndpointsService } from "./webhooks/endpoints.service.js";
import { settingsRoutes } from "./webhooks/settings.routes.js";
import { createSettingsService } from "./webhooks/settings.service.js";
import { traceLogFields } from "./telemetry/log-fields.js";
import { tracingActive } from "./telemetry/trace-context.js";

export interface AppDeps {
  db: Db;
  /** Finds the adapter of a gateway kind (sandbox, sandbox-queued, ndebit). */
  gateways: GatewayRegistry;
  /** Injected clock, so expiry is testable without waiting. */
  now?: () => Date;
  /** Wakes the in-process delivery worker after a transaction that wrote webhook messages commits. */
  outbox?: OutboxSignal;
  /** Delivery counters and histograms, shared with the worker of this process. */
  metrics?: Metrics;
  /** Seals and opens gateway credentials (default: from config.secretsKey; server.ts shares one with the registry). */
  keyring?: Keyring;
}

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The methods svc serves, in the order a 405's `Allow` lists them. */
const ROUTE_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

/** The query schema of an API endpoint that takes no query parameters (see the onRoute hook). */
const NO_QUERY = { type: "object", properties: {}, additionalProperties: false } as const;

/** An API endpoint without a body schema takes no body fields (see the onRoute hook). */
async function refuseBodyFields(request: FastifyRequest): Promise<void> {
  const body = request.body;
  if (body === undefined || body === null) return;
  const fields = typeof body === "object" && !Array.isArray(body) ? Object.keys(body) : ["body"];
  if (fields.length === 0) return;
  const errors: Record<string, string[]> = Object.create(null);
  for (const field of fields) errors[field] = ["is not taken: this endpoint takes no body; send none"];
  throw validationError(errors);
}

/** Query parameters whose values are never logged (names matched case-insensitively). */
const SECRET_QUERY_NAME = /secret|token|password|passwd|api_?key|signature|trandata/i;

/** `url` with the values of its secret-looking query parameters replaced by `[redacted]`. */
function loggedUrl(url: string): string {
  const at = url.indexOf("?");
  if (at === -1) return url;
  const query = url
    .slice(at + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const name = eq === -1 ? pair : pair.slice(0, eq);
      return eq !== -1 && SECRET_QUERY_NAME.test(name) ? `${name}=[redacted]` : pair;
    })
    .join("&");
  return `${url.slice(0, at)}?${query}`;
}

/** What a log line says of its request (Fastify's own fields, the URL as {@link loggedUrl}). */
function requestLogFields(request: FastifyRequest) {
  return {
    method: request.method,
    url: loggedUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** A request's id, in `x-request-id` and every log line of it. */
const newRequestId = () => `req_${Math.random().toString(36).slice(2, 12)}`;

/**
 * What Node's HTTP parser refuses before a request exists (too slow, headers too large, not HTTP):
 * answered as problem+json with a request id like every other answer, then the socket is closed —
 * Fastify's default writes a body of its own. A reset socket gets nothing.
 */
function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  // Bytes the parser refuses after a whole request (garbage after its body): that request runs
  // and is answered; a 400 written now would tell the client it was refused while it is done (a
  // refund made, answered "not valid HTTP"). Its answer goes out, then the connection closes.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished) {
    if (!inFlight.headersSent) inFlight.shouldKeepAlive = false;
    inFlight.once("finish", () => socket.end());
    inFlight.once("close", () => socket.destroy());
    return;
  }
  const [status, reason, detail] =
    error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? [408, "Request Timeout", "The request did not arrive in time; send it again, whole."]
      : error.code === "HPE_HEADER_OVERFLOW"
        ? [
            431,
            "Request Header Fields Too Large",
            "The request's headers (with its URL) are over 16 KB; send less.",
          ]
        : [400, "Bad Request", "The request is not valid HTTP/1.1."];
  if (socket.writable) socket.write(rawProblem(status, reason, "invalid_request", detail));
  socket.destroy(error);
}

/** A problem+json body outside Fastify (what Node answers itself), with the catalogue's title. */
function problemJson(code: "invalid_request" | "method_not_allowed", status: number, detail: string): string {
  return JSON.stringify({
    type: `${PROBLEM_TYPE_BASE}${code}`,
    title: ERROR_CATALOGUE[code].title,
    status,
    detail,
    code,
  });
}

/** A whole HTTP/1.1 answer written to a socket before (or without) a request: the connection then closes. */
function rawProblem(
  status: number,
  reason: string,
  code: "invalid_request" | "method_not_allowed",
  detail: string,
  headers = "",
): string {
  const body = problemJson(code, status, detail);
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${newRequestId()}\r\n${headers}Connection: close\r\n\r\n${body}`;
}

/**
 * What Node's HTTP server would answer itself, in the API's shape: an `Expect` other than
 * 100-continue (Node: a bare 417) and a CONNECT (Node: the connection closed without a word).
 */
function answerOutsideRoutes(server: Server): void {
  server.on("checkExpectation", (request: IncomingMessage, response: ServerResponse) => {
    const body = problemJson(
      "invalid_request",
      417,
      `svc meets no Expect but 100-continue (this one: ${JSON.stringify(clipText(request.headers.expect ?? "", 64))}); send the request without it.`,
    );
    response.writeHead(417, {
      "content-type": "application/problem+json",
      "content-length": Buffer.byteLength(body),
      "x-request-id": newRequestId(),
      connection: "close",
    });
    response.end(body);
  });
  server.on("connect", (_request: IncomingMessage, socket: Duplex) => {
    socket.on("error", () => {}); // a client gone before its answer: nothing left to tell it
    socket.end(
      rawProblem(
        405,
        "Method Not Allowed",
        "method_not_allowed",
        "svc is not a proxy: CONNECT is not served. See /docs for the API.",
        `Allow: ${ROUTE_METHODS.join(", ")}\r\n`,
      ),
    );
  });
}

/** How long /readyz waits for the database before it says the process is not ready. */
const READINESS_TIMEOUT_MS = 1_500;
/** How often Node checks open connections against the request and headers timeouts. */
const CONNECTION_CHECK_MS = 1_000;

/**
 * Whether the database can serve this process: migrated, and accepting writes (a replica not yet
 * promoted, during a failover at the same address, answers reads and refuses every write).
 */
async function readiness(db: Db): Promise<"ready" | "migrations_pending" | "database_read_only"> {
  if (!(await migrationsApplied(db))) return "migrations_pending";
  const [server] = await db.query<{ read_only: boolean }>(
    "select pg_is_in_recovery() or current_setting('transaction_read_only') = 'on' as read_only",
  );
  return server?.read_only ? "database_read_only" : "ready";
}

export async function buildApp(config: ServiceConfig, deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger:
      config.logLevel === "silent"
        ? false
        : {
            level: config.logLevel,
            redact: ["req.headers.authorization"],
            // A URL is logged with the values of its secret-looking query parameters replaced:
            // Stripe appends payment_intent_client_secret to the return URL after 3-D Secure.
            serializers: { req: requestLogFields },
            // While tracing runs, lines carry trace_id and span_id beside reqId (telemetry/log-fields.ts).
            ...(tracingActive() ? { mixin: traceLogFields } : {}),
          },
    bodyLimit: BODY_LIMIT_BYTES,
    // A number of hops: trust that many proxies in front of the service.
    trustProxy:
      typeof config.trustProxy === "number"
        ? (_address: string, hop: number) => hop < (config.trustProxy as number)
        : config.trustProxy,
    // Slow and silent clients are cut (config.ts, docs/security.md).
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    connectionTimeout: config.idleTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: CONNECTION_CHECK_MS,
      // Checked in onRequest below, to answer in the API's shape.
      requireHostHeader: false,
    },
    genReqId: newRequestId,
    ajv: {
      customOptions: { allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: true },
    },
    routerOptions: { ignoreTrailingSlash: true },
    clientErrorHandler: answerClientError,
    // A path the router cannot read (bad percent-encoding) or whose parameter is too long: a
    // problem+json with the request's id like every other answer, not Fastify's own body.
    frameworkErrors: (error, request, reply) => {
      reply.header("x-request-id", request.id);
      const tooLong = error.code === "FST_ERR_MAX_PARAM_LENGTH";
      return sendProblem(
        reply,
        new AppError(
          "invalid_url",
          tooLong
            ? "A part of the URL's path is longer than any id the API uses; check the URL."
            : "The URL's path is not valid percent-encoding (e.g. %E0%A4 cut short); encode it as UTF-8.",
          tooLong ? { status: 414 } : {},
        ),
      );
    },
  });
  const now = deps.now ?? (() => new Date());

  app.setErrorHandler(errorHandler);
  // An API endpoint that takes no query parameters refuses one, as those that take some refuse
  // the ones they do not know: a misspelt filter (`?stat=paid` on an endpoint without filters)
  // is a 422 naming it everywhere, never silently ignored on some endpoints. A gateway's
  // notifications (`auth: "none"`) are the gateway's own protocol and keep whatever it sends.
  // So does one that takes no body: no body or `{}`, never a field it would ignore. Checked here
  // rather than by a body schema, which would make the OpenAPI document ask for a body.
  app.addHook("onRoute", (route) => {
    const auth = route.config?.auth;
    if (!auth || auth === "none") return;
    if (!route.schema?.querystring) route.schema = { ...route.schema, querystring: NO_QUERY };
    if (route.schema.body) return;
    route.preValidation = [refuseBodyFields, ...[route.preValidation ?? []].flat()];
  });
  answerOutsideRoutes(app.server);
  // Every answer names its request: what a client quotes to support (@svc/node's SvcError.requestId)
  // and what the logs are searched by.
  app.addHook("onRequest", async (request, reply) => {
    reply.header("x-request-id", request.id);
    // HTTP/1.1 names its host (RFC 9112, 3.2); Node's own refusal was a bare 400 (requireHostHeader).
    if (request.headers.host === undefined && request.raw.httpVersion === "1.1")
      throw new AppError(
        "invalid_request",
        "An HTTP/1.1 request names the service's host in a Host header; add one (e.g. Host: pay.example.com).",
      );
  });
  // Before any route: text every store can hold, bounded nesting, JSON for the API (input-guard.ts).
  registerInputGuard(app);
  // JSON (and forms, for hosted pages) only: anything else is 415 with a clear message.
  app.removeContentTypeParser("text/plain");
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0]!;
    // A path that is served, with another method (DELETE on a payment): 405 and what it takes.
    const allowed = ROUTE_METHODS.filter((method) => app.findRoute({ method, url: path }) !== null);
    if (allowed.length > 0) {
      reply.header("allow", allowed.join(", "));
      return sendProblem(
        reply,
        new AppError(
          "method_not_allowed",
          `${path} takes ${allowed.join(", ")}, not ${request.method}. See /docs for the API.`,
        ),
      );
    }
    return sendProblem(
      reply,
      new AppError("route_not_found", `There is no ${request.method} ${path}. See /docs for the API.`),
    );
  });
  await app.register(formbody);
  await app.register(swagger, {
    // The Idempotency-Key header on the routes that honour it, then servers, operationIds and the
    // error responses (http/openapi.ts) and the success answers (api-responses.ts), for /docs and
    // /openapi.json alike.
    transform: documentIdempotency,
    transformObject: (document) =>
      "openapiObject" in document
        ? completeOpenApi(document.openapiObject, config.publicUrl, {
            schemas: SCHEMAS,
            responses: RESPONSES,
          })
        : document.swaggerObject,
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "svc payment service",
        version: "0.1.0",
        description: "Checkout, operations, payment status, webhooks.",
        license: { name: "Apache-2.0", identifier: "Apache-2.0" },
      },
      webhooks: OPENAPI_WEBHOOKS,
      components: {
        securitySchemes: {
          apiKey: {
            type: "apiKey",
            in: "header",
            name: "Authorization",
            description: "Api-Key sk_… (private) or Api-Key pk_… (public)",
          },
          basic: { type: "http", scheme: "basic", description: "A dashboard user with permissions" },
          adminToken: { type: "http", scheme: "bearer", description: "SVC_ADMIN_TOKEN, the operator API" },
          webhookSignature: {
            type: "apiKey",
            in: "header",
            name: "webhook-signature",
            description:
              "On webhooks svc sends: Standard Webhooks HMAC-SHA256 of webhook-id, webhook-timestamp and the body with the merchant's signing secret (verify with @svc/webhooks)",
          },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });

  // The per-address limit runs before authentication; the per-credential one after it.
  const limits = await registerRateLimits(app, config.rateLimits);
  const auth = registerAuth(app, deps.db, config.adminToken, now, limits);
  limits.registerPerCredential();
  registerIdempotency(app, deps.db, {
    ttlSeconds: config.idempotencyTtlSeconds,
    leaseSeconds: config.idempotencyLeaseSeconds,
  });

  const merchants = createMerchantsService(deps.db, {
    onKeyRevoked: (keyHash) => auth.forgetKey(keyHash),
  });
  const keyring = deps.keyring ?? createKeyring(config.secretsKey || undefined, config.secretsPreviousKeys);
  const gatewaySettings = createGatewaySettingsService(deps.db, {
    keyring,
    defaultNotificationSecret: (pgCode) =>
      config.gatewayNotificationSecret
        ? sandboxSettingSecret(config.gatewayNotificationSecret, pgCode)
        : undefined,
  });
  const outbox =
    deps.outbox ?? new OutboxSignal(deps.db.kind === "postgres" ? notifyWorkers(deps.db) : undefined);
  const metrics = deps.metrics ?? createMetrics();
  const payments = createPaymentsService(deps.db, {
    now,
    // The payment webhook is written in the transaction that makes the payment final; the
    // workers are woken once it has committed.
    events: {
      onPaymentEvent: (q, tx) => emitPaymentWebhook(q, tx, now()).then(() => undefined),
      paymentEventCommitted: () => outbox.committed(),
    },
  });
  const sdk = createSdkService(deps.db, config.publicUrl);
  const checkout = createCheckoutService(deps.db, { config, gateways: deps.gateways, now, payments });
  const operations = createOperationsService(deps.db, {
    gateways: deps.gateways,
    now,
    publicUrl: config.publicUrl,
    outbox,
    reservationTimeoutSeconds: config.reservationTimeoutSeconds,
    queuedCheckSeconds: config.queuedCheckSeconds,
  });
  const gatewayOperations = createGatewayOperations(deps.db, { now });
  const notifications = createNotificationsService(deps.db, {
    gateways: deps.gateways,
    log: app.log,
    now,
    outbox,
    paymentByReference: checkout.paymentByReference,
    paymentByAttempt: checkout.paymentByAttempt,
    applyPaymentNotification: checkout.applyPaymentNotification,
    applyOperationResult: gatewayOperations.operationResult,
    applyOperationReversed: gatewayOperations.operationReversed,
    applyGatewayOperation: gatewayOperations.gatewayOperation,
  });
  const discrepancies = createDiscrepanciesService(deps.db, { now, settleByHand: operations.settleByHand });
  const webhookSettings = createSettingsService(deps.db, { now, allowPrivate: config.webhookAllowPrivate });
  const messages = createMessagesService(deps.db, { outbox });
  const endpoints = createEndpointsService(deps.db, {
    outbox,
    now,
    disableAfterMs: config.webhookDisableAfterSeconds * 1000,
    onDisabled: (count) => metrics.recordEndpointsDisabled(count),
    allowPrivate: config.webhookAllowPrivate,
  });

  app.get("/healthz", { schema: { hide: true } }, async () => ({ status: "ok" }));
  // Liveness is the process alone: an orchestrator must not restart healthy processes while the
  // database fails over. Readiness is whether this process can serve: its database answers
  // within READINESS_TIMEOUT_MS (a hung database is not ready either) and is migrated.
  app.get("/readyz", { schema: { hide: true } }, async (_request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), READINESS_TIMEOUT_MS);
    });
    try {
      const state = await Promise.race([readiness(deps.db), timedOut]);
      if (state === "timeout")
        return reply.status(503).send({
          status: "database_unreachable",
          reason: `the database did not answer within ${READINESS_TIMEOUT_MS} ms`,
        });
      if (state === "migrations_pending") return reply.status(503).send({ status: state });
      if (state === "database_read_only")
        return reply.status(503).send({ status: state, reason: "the database accepts no writes" });
      return { status: "ready" };
    } catch (error) {
      // Why, without addresses: a probe's answer is public.
      const code = (error as { code?: unknown }).code;
      return reply.status(503).send({
        status: "database_unreachable",
        reason:
          typeof code === "string" ? `the database connection failed (${code})` : "the database query failed",
      });
    } finally {
      clearTimeout(timer);
    }
  });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());

  metricsRoutes(app, deps.db, metrics, config.metricsToken);
  // Who did what: every action that changed something, as it answered (audit/audit.ts).
  registerAuditHook(app, deps.db, (err) => app.log.warn({ err }, "audit record failed"));

  // A worker-only process (SVC_ROLE=worker) serves health, readiness and metrics, nothing else.
  if (config.role !== "worker") {
    adminRoutes(app, merchants);
    gatewaySettingsRoutes(app, gatewaySettings);
    checkoutRoutes(app, checkout);
    sdkRoutes(app, checkout, sdk);
    hostedPageRoutes(app, checkout);
    paymentsRoutes(app, payments);
    sdkAssetRoutes(app, config);
    operationsRoutes(app, operations);
    notificationsRoutes(app, notifications);
    discrepanciesRoutes(app, discrepancies);
    settingsRoutes(app, webhookSettings);
    messagesRoutes(app, messages);
    endpointsRoutes(app, endpoints);
    listenRoutes(app, createListenService(deps.db, { endpoints, now }), outbox);
    testWebhookRoutes(app, { db: deps.db, outbox, now });
    overviewRoutes(app, { db: deps.db, now });
    auditRoutes(app, deps.db);
    dashboardRoutes(app, { config, now });
  }

  app.decorate("services", {
    db: deps.db,
    merchants,
    gatewaySettings,
    payments,
    checkout,
    sdk,
    operations,
    notifications,
    discrepancies,
    webhookSettings,
    messages,
    endpoints,
    outbox,
    metrics,
  });
  return app;
}

declare module "fastify" {
  interface FastifyInstance {
    services: {
      db: Db;
      merchants: ReturnType<typeof createMerchantsService>;
      gatewaySettings: GatewaySettingsService;
      payments: ReturnType<typeof createPaymentsService>;
      checkout: ReturnType<typeof createCheckoutService>;
      sdk: ReturnType<typeof createSdkService>;
      /** The dashboard calls operations.perform({ merchantId, initiator: user, via: "dashboard", … }). */
      operations: ReturnType<typeof createOperationsService>;
      notifications: ReturnType<typeof createNotificationsService>;
      discrepancies: ReturnType<typeof createDiscrepanciesService>;
      webhookSettings: ReturnType<typeof createSettingsService>;
      messages: ReturnType<typeof createMessagesService>;
      endpoints: ReturnType<typeof createEndpointsService>;
      outbox: OutboxSignal;
      metrics: Metrics;
    };
  }
}
