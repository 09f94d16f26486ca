/**
 * The OpenTelemetry Node SDK as svc runs it, loaded only when tracing is on (index.ts):
 *
 * - `@fastify/otel`: the SERVER span of every request (`POST /v1/operations`), registered on each
 *   Fastify instance as it is created (`registerOnInitialization`), continuing a client's
 *   `traceparent`. One span per request: no span per hook or for the handler (their names are
 *   the plugin chain, and they doubled a request's spans), request-span.ts keeps the request's
 *   context through them instead. Probes and /metrics are not traced.
 * - `@opentelemetry/instrumentation-pg`: a span per SQL statement on PostgreSQL (PGlite is not
 *   `pg` and has none), only under a span: the worker's claims and the sweeps, which run outside
 *   any request, would each be a trace of one statement.
 * - `@opentelemetry/instrumentation-undici`: a CLIENT span per gateway call and webhook attempt,
 *   which sends the `traceparent` header; again only under a span, so a test's own `fetch` or the
 *   sandbox's notifications are not traced or given a header.
 *
 * Exporters, sampler, propagators and resource come from the OTEL_* variables as the SDK reads
 * them; service.name is `svc` unless OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) names it.
 * svc sends traces only: OpenTelemetry metrics and logs stay off unless OTEL_METRICS_EXPORTER /
 * OTEL_LOGS_EXPORTER ask for them (the SDK would otherwise default both to OTLP).
 */
import { FastifyOtelInstrumentation } from "@fastify/otel";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";
import { NodeSDK, resources } from "@opentelemetry/sdk-node";
import type { SpanProcessor } from "@opentelemetry/sdk-trace";
import { onRequestSpan } from "./request-span.js";

/** Paths polled by load balancers and Prometheus: a trace each would drown the rest. */
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

export interface TracingSdkOptions {
  /** Where spans go instead of the exporters OTEL_TRACES_EXPORTER names (tests: an in-memory exporter). */
  spanProcessors?: SpanProcessor[];
}

export function createTracingSdk(
  env: Record<string, string | undefined>,
  options: TracingSdkOptions = {},
): NodeSDK {
  return new NodeSDK({
    // The detected resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, process, host) wins.
    resource: resources.defaultResource().merge(resources.resourceFromAttributes({ "service.name": "svc" })),
    instrumentations: [
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        instrumentHooks: false,
        instrumentHandler: false,
        requestHook: onRequestSpan,
        ignorePaths: ({ url }) => UNTRACED_PATHS.has((url ?? "").split("?")[0]!),
      }),
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
    ...(env.OTEL_METRICS_EXPORTER?.trim() ? {} : { metricReaders: [] }),
    ...(env.OTEL_LOGS_EXPORTER?.trim() ? {} : { logRecordProcessors: [] }),
  });
}
