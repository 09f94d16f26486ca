/**
 * What the service's own code needs of tracing, on @opentelemetry/api alone (no SDK): whether it
 * runs, the active span's W3C `traceparent`, and a stored one read back as a span context for a
 * link. While tracing is off every function returns at its first line, so the hot paths that
 * call them (the outbox, the worker, the logger) pay one boolean test.
 */
import { context, isSpanContextValid, ROOT_CONTEXT, type SpanContext, trace } from "@opentelemetry/api";

let active = false;

/** True once startTracing (index.ts) started the SDK in this process, until its shutdown. */
export function tracingActive(): boolean {
  return active;
}

/** Set by startTracing and its shutdown (index.ts) only. */
export function setTracingActive(on: boolean): void {
  active = on;
}

/** A W3C trace context version 00 header: version, trace id, parent span id, flags. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** `traceparent` of a span context (version 00). */
export function formatTraceparent(span: SpanContext): string {
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
}

/** The span context a stored `traceparent` names, or undefined for null or anything malformed. */
export function parseTraceparent(traceparent: string | null | undefined): SpanContext | undefined {
  const match = traceparent ? TRACEPARENT.exec(traceparent) : null;
  if (!match) return undefined;
  const span: SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16),
    isRemote: true,
  };
  return isSpanContextValid(span) ? span : undefined;
}

/**
 * The active span's `traceparent`, to store with work that continues later elsewhere (an outbox
 * message); null when tracing is off or no span is active.
 */
export function activeTraceparent(): string | null {
  if (!active) return null;
  const span = trace.getSpan(context.active())?.spanContext();
  return span && isSpanContextValid(span) ? formatTraceparent(span) : null;
}

/**
 * Runs `fn` outside any trace: background work that a request only woke (the delivery worker,
 * woken by a commit) would otherwise join that request's trace, with everything it does for
 * other requests too.
 */
export function outsideTraces<T>(fn: () => T): T {
  return active ? context.with(ROOT_CONTEXT, fn) : fn();
}
