/**
 * Stripe's own Node HTTP client with a CLIENT span per request, used while tracing runs
 * (docs/operations.md, Tracing). The `stripe` package speaks node:http, which svc does not
 * instrument (the http instrumentation would also trace every server request a second time), so
 * the gateway call is a span here, like the undici one of the sandbox and KNET adapters, and
 * Stripe receives its `traceparent`. Requests are made by the same client Stripe uses by default.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import Stripe from "stripe";

const tracer = trace.getTracer("svc-gateways");

/** A Stripe `httpClient`: its default Node client, each request under a span of its own. */
export function tracedStripeHttpClient(): NonNullable<Stripe.StripeConfig["httpClient"]> {
  const inner = Stripe.createNodeHttpClient();
  return {
    getClientName: () => inner.getClientName(),
    async makeRequest(host, port, path, method, headers, requestData, protocol, timeout) {
      const span = tracer.startSpan(method, {
        kind: SpanKind.CLIENT,
        attributes: {
          "http.request.method": method,
          "server.address": host,
          "server.port": Number(port),
          "url.scheme": protocol,
          // Without the query: a GET's parameters may name a customer.
          "url.path": path.split("?")[0]!,
          "svc.gateway.kind": "stripe",
        },
      });
      const withTraceparent = { ...headers };
      propagation.inject(trace.setSpan(context.active(), span), withTraceparent);
      try {
        const response = await inner.makeRequest(
          host,
          port,
          path,
          method,
          withTraceparent,
          requestData,
          protocol,
          timeout,
        );
        const status = response.getStatusCode();
        span.setAttribute("http.response.status_code", status);
        if (status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
        return response;
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        throw error;
      } finally {
        span.end();
      }
    },
  };
}
