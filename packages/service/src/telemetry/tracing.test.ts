/**
 * Traces across every hop (issue 24, item 7), with the SDK's in-memory exporter and everything
 * real on loopback: the service, PostgreSQL or PGlite, the sandbox gateway, the Stripe stand-in
 * and a merchant's receiver. Instrumentations patch modules process-wide, so this file starts
 * tracing before it imports anything of the service (vitest runs each file in a process of its
 * own); tracing-off.test.ts is the other case, test/e2e/tracing.test.ts the OTLP export of
 * `svc serve`.
 */
import dc from "node:diagnostics_channel";
import type { IncomingMessage, Server } from "node:http";
import { SpanKind } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTracing } from "./index.js";

const exporter = new InMemorySpanExporter();
const tracing = await startTracing({}, { spanProcessors: [new SimpleSpanProcessor({ exporter })] });
// Only now: `pg` is patched as it is imported.
const { startStack } = await import("../../../../test/support/stack.js");
const { STORES } = await import("../../../../test/support/stores.js");
const { api, apiKey, bearer, createMerchant, createTransaction } =
  await import("../../../../test/support/merchant.js");
const { paidParent } = await import("../../../../test/support/payments.js");
const { startReceiver } = await import("../../../../test/support/receiver.js");
const { configureWebhooks } = await import("../../../../test/support/webhooks.js");
const { until } = await import("../../../../test/support/until.js");
const { startStripeStandIn } = await import("../gateways/stripe/standin/index.js");
const { traceLogFields } = await import("./log-fields.js");
const { default: pg } = await import("pg");

type Stack = Awaited<ReturnType<typeof startStack>>;
type Merchant = Awaited<ReturnType<typeof createMerchant>>;
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** What every node:http server of this process (the sandbox, the Stripe stand-in) was sent. */
const arrived: { port: number; path: string; traceparent: string | undefined }[] = [];
dc.subscribe("http.server.request.start", (message) => {
  const { request, server } = message as { request: IncomingMessage; server: Server };
  const address = server.address();
  arrived.push({
    port: typeof address === "object" && address ? address.port : 0,
    path: request.url ?? "",
    traceparent: request.headers.traceparent as string | undefined,
  });
});
const portOf = (url: string) => Number(new URL(url).port);

const spans = () => exporter.getFinishedSpans();
const inTrace = (traceId: string) => spans().filter((s) => s.spanContext().traceId === traceId);
const traceparentOf = (span: ReadableSpan) =>
  `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`;

/** The request span of the answer with this x-request-id. */
const requestSpan = (requestId: string | null) =>
  until(
    () => spans().find((s) => s.kind === SpanKind.SERVER && s.attributes["svc.request_id"] === requestId),
    `the request span of ${requestId}`,
  );

afterAll(() => tracing?.shutdown());

describe.each(STORES)("tracing a refund on %s", (store) => {
  let stack: Stack;
  let m: Merchant;
  let receiver: Receiver;
  beforeAll(async () => {
    // Logging on, so the logger is built as in production (with the trace-id mixin).
    stack = await startStack(store, { config: { logLevel: "error" } });
    m = await createMerchant(stack);
    receiver = await startReceiver();
    await configureWebhooks(stack, m, {
      operations_webhook_url: `${receiver.url}/ops`,
      notify_api_initiated: true,
    });
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  const refund = (sessionId: string, headers: Record<string, string> = {}) =>
    api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: sessionId, amount: "2.000" },
      headers,
    });

  it("is one trace from the request to its SQL and the gateway; the webhook attempt is linked to it", async () => {
    const parent = await paidParent(stack, m);
    const answer = await refund(parent.session_id);
    expect(answer.status, answer.text).toBe(200);
    const server = await requestSpan(answer.headers.get("x-request-id"));
    const traceId = server.spanContext().traceId;
    const underRequest = (s: ReadableSpan) => s.parentSpanContext?.spanId === server.spanContext().spanId;
    expect(server.name).toBe("POST /v1/operations");
    expect(server.parentSpanContext).toBeUndefined();
    expect(server.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/v1/operations",
      "http.response.status_code": 200,
    });

    // The gateway call: an undici CLIENT span under the request, whose traceparent the sandbox got.
    const gateway = inTrace(traceId).find(
      (s) =>
        s.kind === SpanKind.CLIENT && String(s.attributes["url.full"]) === `${stack.gatewayUrl}/operations`,
    )!;
    expect(gateway).toBeDefined();
    expect(underRequest(gateway)).toBe(true);
    expect(gateway.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.response.status_code": 200,
    });
    const atSandbox = arrived.filter((a) => a.port === portOf(stack.gatewayUrl) && a.path === "/operations");
    expect(atSandbox.at(-1)!.traceparent).toBe(traceparentOf(gateway));

    // The SQL: a span per statement on PostgreSQL; PGlite is not `pg` and shows none.
    const sql = inTrace(traceId).filter((s) => s.name.startsWith("pg.query"));
    if (store === "postgres") {
      const texts = sql.map((s) => String(s.attributes["db.query.text"]));
      expect(sql.every(underRequest)).toBe(true);
      for (const statement of [
        /from unnest\(\$1::text\[\][\s\S]*transactions/, // the parent, its gateway and routing
        /insert into operations/, // the reservation
        // The finish and its webhook, in one statement.
        /^with finished as \(update operations[\s\S]*insert into webhook_deliveries/,
      ])
        expect(
          texts.some((t) => statement.test(t)),
          String(statement),
        ).toBe(true);
      expect(sql.every((s) => s.attributes["db.system.name"] === "postgresql")).toBe(true);
    } else {
      expect(sql).toEqual([]);
    }

    // The message keeps the request's span context; the attempt, in the worker, links to it.
    const childSessionId = answer.json.txn.session_id as string;
    const [message] = await stack.db.query<{ traceparent: string | null }>(
      "select traceparent from webhook_messages where child_session_id = $1",
      [childSessionId],
    );
    expect(message!.traceparent).toBe(traceparentOf(server));
    const attempt = await until(
      () =>
        spans().find(
          (s) => s.name === "webhook delivery attempt" && s.links.some((l) => l.context.traceId === traceId),
        ),
      "the delivery attempt's span",
    );
    expect(attempt.kind).toBe(SpanKind.CONSUMER);
    expect(attempt.parentSpanContext).toBeUndefined();
    expect(attempt.spanContext().traceId).not.toBe(traceId);
    expect(attempt.links.map((l) => l.context.spanId)).toEqual([server.spanContext().spanId]);
    expect(attempt.attributes).toMatchObject({
      "svc.webhook.event_type": "operation",
      "svc.webhook.attempt": 1,
      "http.response.status_code": 200,
    });
    // Its POST is a CLIENT span beneath it, and the merchant's endpoint got that span's traceparent.
    const post = inTrace(attempt.spanContext().traceId).find(
      (s) => s.kind === SpanKind.CLIENT && s.parentSpanContext?.spanId === attempt.spanContext().spanId,
    )!;
    expect(post.attributes["url.full"]).toBe(`${receiver.url}/ops`);
    const delivered = receiver.requests.find((r) => r.json?.txn?.session_id === childSessionId)!;
    expect(delivered.headers.traceparent).toBe(traceparentOf(post));
    // The worker's claims and records are no request's work: none is in the refund's trace.
    const worker = /^with (due|r) as/;
    expect(inTrace(traceId).filter((s) => worker.test(String(s.attributes["db.query.text"])))).toEqual([]);
  });

  it("parallel refunds, finished in shared batches, each keep their own request's trace in their message", async () => {
    const parents = [];
    for (let i = 0; i < 8; i++) parents.push(await paidParent(stack, m));
    const answers = await Promise.all(parents.map((p) => refund(p.session_id)));
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(200);
      const server = await requestSpan(answer.headers.get("x-request-id"));
      const [message] = await stack.db.query<{ traceparent: string | null }>(
        "select traceparent from webhook_messages where child_session_id = $1",
        [answer.json.txn.session_id],
      );
      expect(message!.traceparent).toBe(traceparentOf(server));
    }
  });

  it("continues a client's W3C traceparent", async () => {
    const parent = await paidParent(stack, m);
    const client = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" };
    const answer = await refund(parent.session_id, {
      traceparent: `00-${client.traceId}-${client.spanId}-01`,
    });
    expect(answer.status, answer.text).toBe(200);
    const server = await requestSpan(answer.headers.get("x-request-id"));
    expect(server.spanContext().traceId).toBe(client.traceId);
    expect(server.parentSpanContext).toMatchObject({ spanId: client.spanId, isRemote: true });
    const atSandbox = arrived.filter((a) => a.port === portOf(stack.gatewayUrl) && a.path === "/operations");
    expect(atSandbox.at(-1)!.traceparent).toMatch(new RegExp(`^00-${client.traceId}-[0-9a-f]{16}-01$`));
  });

  it("does not trace probes and /metrics", async () => {
    const before = spans().filter((s) => s.kind === SpanKind.SERVER).length;
    for (const path of ["/healthz", "/readyz", "/metrics"]) await api(stack, "GET", path);
    await api(stack, "GET", "/openapi.json"); // traced: the last SERVER span
    const server = await until(() => {
      const all = spans().filter((s) => s.kind === SpanKind.SERVER);
      return all.length > before ? all.slice(before) : undefined;
    }, "a request span");
    expect(server.map((s) => s.name)).toEqual(["GET /openapi.json"]);
  });

  it("patches pg and builds the logger with trace ids in its lines", () => {
    expect("__wrapped" in pg.Client.prototype.query).toBe(true);
    const mixin = Object.getOwnPropertySymbols(stack.service.app.log).find(
      (s) => s.description === "pino.mixin",
    );
    expect((stack.service.app.log as unknown as Record<symbol, unknown>)[mixin!]).toBe(traceLogFields);
  });
});

describe(`tracing a refund through Stripe on ${STORES[0]}`, () => {
  const account = {
    secretKey: "sk_test_svcTracing0123456789",
    webhookSecret: "whsec_c3ZjLXRyYWNpbmctc2VjcmV0",
  };
  it("the stripe package's node:http call is a CLIENT span of svc's own, and Stripe gets its traceparent", async () => {
    const stack = await startStack(STORES[0]!);
    const stripe = await startStripeStandIn({ accounts: [account] });
    try {
      const m = await createMerchant(stack);
      const pgCode = `stripe-${m.id.slice(4, 10)}`;
      const created = await api(stack, "POST", `/v1/admin/merchants/${m.id}/gateways`, {
        auth: bearer,
        body: {
          pg_code: pgCode,
          kind: "stripe",
          currencies: ["USD"],
          api_base_url: stripe.url,
          credentials: { secret_key: account.secretKey, webhook_secret: account.webhookSecret },
        },
      });
      expect(created.status, created.text).toBe(201);
      const tx = (
        await createTransaction(stack, m, { pg_codes: [pgCode], amount: "10.00", currency_code: "USD" })
      ).json;
      const paid = await fetch(`${stack.url}/pay/${tx.session_id}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          pg_code: pgCode,
          number: "4242424242424242",
          expiry: "12/39",
          cvc: "123",
        }),
        redirect: "manual",
      });
      expect(paid.status).toBe(303);
      const answer = await api(stack, "POST", "/v1/operations", {
        auth: apiKey(m.privateKey),
        body: { operation: "refund", session_id: tx.session_id, amount: "2.50" },
      });
      expect(answer.status, answer.text).toBe(200);
      const server = await requestSpan(answer.headers.get("x-request-id"));
      const call = inTrace(server.spanContext().traceId).find(
        (s) => s.kind === SpanKind.CLIENT && s.attributes["url.path"] === "/v1/refunds",
      )!;
      expect(call.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
      expect(call.attributes).toMatchObject({
        "http.request.method": "POST",
        "server.port": portOf(stripe.url),
        "http.response.status_code": 200,
        "svc.gateway.kind": "stripe",
      });
      const atStripe = arrived.filter((a) => a.port === portOf(stripe.url) && a.path === "/v1/refunds");
      expect(atStripe.at(-1)!.traceparent).toBe(traceparentOf(call));
    } finally {
      await stack.close();
      await stripe.close();
    }
  });
});
