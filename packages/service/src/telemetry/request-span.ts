/**
 * What svc adds to @fastify/otel's request span (its `requestHook`, called as the span starts in
 * the first onRequest hook): the name HTTP semantic conventions give a server span
 * (`POST /v1/operations`, the route's template), the request id answers carry as `x-request-id`,
 * and the request's logger pinned to it (log-fields.ts).
 *
 * It also binds the request's stream to the span's context. @fastify/otel makes the request's
 * context active for the hooks that run at once, but Fastify reads a body from the stream's
 * events, which run in the context the connection was opened in: without the binding, the hooks
 * after parsing (authentication, the idempotency claim) and the handler would lose the request's
 * span, and their SQL and gateway calls would start traces of their own. (HTTP server
 * instrumentation binds the stream the same way.)
 */
import { context, type Span, trace } from "@opentelemetry/api";
import type { FastifyRequest } from "fastify";
import { pinSpanToLogger } from "./log-fields.js";

export function onRequestSpan(span: Span, request: FastifyRequest): void {
  span.updateName(`${request.method} ${request.routeOptions.url ?? ""}`.trimEnd());
  span.setAttribute("svc.request_id", request.id);
  context.bind(trace.setSpan(context.active(), span), request.raw);
  pinSpanToLogger(request.log, span);
}
