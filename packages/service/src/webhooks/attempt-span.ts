/**
 * The span of one delivery attempt, while tracing runs (docs/operations.md, Tracing). An attempt
 * happens in the worker, outside the request that wrote its message and often long after it, so
 * it starts a trace of its own (a CONSUMER span, as a message's processing is) **linked** to the
 * producer's span, whose `traceparent` the message keeps. Its POST is a CLIENT span beneath it
 * (the undici instrumentation), whose `traceparent` header the receiver gets.
 */
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { parseTraceparent } from "../telemetry/trace-context.js";
import type { AttemptOutcome } from "./deliver.js";
import type { ClaimedDelivery } from "./delivery.repo.js";

const tracer = trace.getTracer("svc-webhooks");

/** Runs `attempt` under the delivery's attempt span; the outcome is recorded on the span. */
export async function tracedAttempt(
  delivery: Pick<ClaimedDelivery, "id" | "message_id" | "event_type" | "tries" | "traceparent">,
  attempt: () => Promise<AttemptOutcome>,
): Promise<AttemptOutcome> {
  const producer = parseTraceparent(delivery.traceparent);
  const span = tracer.startSpan(
    "webhook delivery attempt",
    {
      kind: SpanKind.CONSUMER,
      root: true,
      links: producer ? [{ context: producer, attributes: { "svc.link": "webhook message written" } }] : [],
      attributes: {
        "svc.webhook.message_id": delivery.message_id,
        "svc.webhook.delivery_id": delivery.id,
        "svc.webhook.event_type": delivery.event_type,
        "svc.webhook.attempt": delivery.tries,
      },
    },
    ROOT_CONTEXT,
  );
  try {
    const outcome = await context.with(trace.setSpan(ROOT_CONTEXT, span), attempt);
    if (outcome.statusCode !== null) span.setAttribute("http.response.status_code", outcome.statusCode);
    if (!outcome.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? "failed" });
    return outcome;
  } finally {
    span.end();
  }
}
