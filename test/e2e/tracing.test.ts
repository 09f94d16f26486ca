/**
 * Issue 24, item 7, as production runs it: `svc serve` in its own process, configured by the
 * standard OTEL_* variables only, exports a refund's trace by OTLP (HTTP/JSON, to a collector on
 * loopback here) — the request, its SQL (on PostgreSQL), the gateway call, and the webhook
 * attempt linked to it — and its log lines carry the trace id beside the request id. This is
 * also the start path the in-process tests cannot see: tracing started by the CLI before the
 * service's modules load, through tsx. On PostgreSQL only (as `npm test` and CI run it): on
 * PGlite the process spends most of the test's time opening its store, and shows no SQL spans.
 */
import http from "node:http";
import { afterAll, expect, it } from "vitest";
import { startSandboxGateway } from "../../packages/service/src/gateways/sandbox/server.js";
import { freePort } from "../support/free-port.js";
import { api, apiKey, createMerchant, type ServiceUrl } from "../support/merchant.js";
import { paidParent } from "../support/payments.js";
import { startReceiver } from "../support/receiver.js";
import { startServe } from "../support/serve.js";
import { ADMIN_TOKEN, GATEWAY_SECRET } from "../support/stack.js";
import { freshPostgresUrl } from "../support/stores.js";
import { until } from "../support/until.js";
import { configureWebhooks } from "../support/webhooks.js";

const POSTGRES = Boolean(process.env.SVC_TEST_DATABASE_URL);

/** A span as OTLP/JSON carries it (ids in hex), with its resource's service.name. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  serviceName: unknown;
}
const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

type OtlpAttribute = { key: string; value: Record<string, unknown> };
const attributesOf = (list: OtlpAttribute[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, Object.values(value)[0]]));

/** An OTLP/HTTP collector that keeps the spans it is sent. */
async function startCollector() {
  const spans: OtlpSpan[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      if (req.url === "/v1/traces")
        for (const rs of JSON.parse(body).resourceSpans ?? []) {
          const serviceName = attributesOf(rs.resource?.attributes)["service.name"];
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({ ...s, attributes: attributesOf(s.attributes), links: s.links ?? [], serviceName });
        }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    url: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of cleanup.reverse()) await close();
});

it.skipIf(!POSTGRES)("svc serve exports a refund's trace by OTLP and logs its trace id", async () => {
  const collector = await startCollector();
  cleanup.push(collector.close);
  const gateway = await startSandboxGateway({ port: 0, notificationSecret: GATEWAY_SECRET });
  cleanup.push(() => gateway.close());
  const receiver = await startReceiver();
  cleanup.push(receiver.close);
  const port = await freePort();
  const svc: ServiceUrl = { url: `http://127.0.0.1:${port}` };
  const serve = await startServe({
    SVC_PORT: String(port),
    SVC_PUBLIC_URL: svc.url,
    SVC_ADMIN_TOKEN: ADMIN_TOKEN,
    SVC_GATEWAY_URL: gateway.url,
    SVC_GATEWAY_SECRET: GATEWAY_SECRET,
    SVC_WEBHOOK_ALLOW_PRIVATE: "true",
    SVC_LOG_LEVEL: "info",
    SVC_DATABASE_URL: await freshPostgresUrl(),
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_BSP_SCHEDULE_DELAY: "100",
  });
  cleanup.push(() => serve.stop());

  const m = await createMerchant(svc);
  await configureWebhooks(svc, m, {
    operations_webhook_url: `${receiver.url}/ops`,
    notify_api_initiated: true,
  });
  const parent = await paidParent(svc, m);
  const refund = await api(svc, "POST", "/v1/operations", {
    auth: apiKey(m.privateKey),
    body: { operation: "refund", session_id: parent.session_id, amount: "2.000" },
  });
  expect(refund.status, refund.text).toBe(200);
  const requestId = refund.headers.get("x-request-id");

  const server = await until(
    () => collector.spans.find((s) => s.kind === SERVER && s.attributes["svc.request_id"] === requestId),
    "the refund's request span at the collector",
  );
  expect(server).toMatchObject({ name: "POST /v1/operations", serviceName: "svc" });
  expect(server.parentSpanId ?? "").toBe("");
  const attempt = await until(
    () =>
      collector.spans.find(
        (s) => s.name === "webhook delivery attempt" && s.links.some((l) => l.spanId === server.spanId),
      ),
    "the webhook attempt's span at the collector",
  );
  const post = await until(
    () => collector.spans.find((s) => s.kind === CLIENT && s.parentSpanId === attempt.spanId),
    "the attempt's POST",
  );
  const trace = collector.spans.filter((s) => s.traceId === server.traceId);
  const under = trace.filter((s) => s.parentSpanId === server.spanId);
  expect(
    under.find((s) => s.kind === CLIENT && s.attributes["url.full"] === `${gateway.url}/operations`),
  ).toBeDefined();
  const sql = under.filter((s) => s.name.startsWith("pg.query"));
  // The finish and its webhook message: one statement (operationsRepo.finishManyReporting).
  expect(
    sql.find((s) => String(s.attributes["db.query.text"]).startsWith("with finished as (update operations")),
  ).toBeDefined();
  expect(attempt).toMatchObject({
    kind: CONSUMER,
    links: [{ traceId: server.traceId, spanId: server.spanId }],
  });
  expect(attempt.traceId).not.toBe(server.traceId);
  const delivered = receiver.requests.find((r) => r.json?.txn?.session_id === refund.json.txn.session_id)!;
  expect(delivered.headers.traceparent).toBe(`00-${post.traceId}-${post.spanId}-01`);

  // The request's log lines (pino JSON on stdout) carry its trace and span ids beside reqId.
  // Polled, not read once: the process writes its log lines to stdout asynchronously (pino's
  // default destination), on a path of their own, not ordered with the spans it exports, so the
  // spans at the collector do not mean the line has reached this process yet. Whole lines only
  // (the last piece of the output may be a line still arriving).
  const lines = () =>
    serve
      .output()
      .split("\n")
      .slice(0, -1)
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const completed = await until(
    () => lines().find((l) => l.reqId === requestId && l.msg === "request completed"),
    "the request's completion log line",
    5_000,
  );
  expect(completed).toMatchObject({ trace_id: server.traceId, span_id: server.spanId });
});
