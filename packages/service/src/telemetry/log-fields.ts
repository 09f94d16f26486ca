/**
 * Trace ids in log lines. While tracing runs, the service's pino logger gets {@link traceLogFields}
 * as its `mixin`: every line written while a span is active carries `trace_id` and `span_id`
 * beside Fastify's `reqId`. A request's lines carry its request span's ids even where the async
 * context is not the request's (Fastify writes "request completed" from the socket's callback):
 * request-span.ts pins the span to the request's logger with {@link pinSpanToLogger}. Off,
 * buildApp adds no mixin and nothing here runs.
 */
import { context, type Span, trace } from "@opentelemetry/api";

const REQUEST_SPAN = Symbol("svc.requestSpan");

type Pinned = { bindings?: unknown; [REQUEST_SPAN]?: Span };

/** pino's mixin: `{trace_id, span_id}` of the active span, else of the logger's request, else nothing. */
export function traceLogFields(
  _merge: object,
  _level: number,
  logger?: object,
): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active()) ?? (logger as Pinned | undefined)?.[REQUEST_SPAN];
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** Makes `span` the one a request's logger (a pino child) reports when no span is active. */
export function pinSpanToLogger(log: object, span: Span): void {
  // Only a request's own pino child: without a logger, Fastify shares one no-op object.
  if (typeof (log as Pinned).bindings === "function") (log as Pinned)[REQUEST_SPAN] = span;
}
