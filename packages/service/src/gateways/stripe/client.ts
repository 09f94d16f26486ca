/**
 * The official `stripe` client as svc uses it: the API version pinned (answers keep the shape svc
 * reads, whatever the account's default), no retries of its own (svc's recovery asks Stripe what
 * happened instead, with the same Idempotency-Key), svc's gateway timeout, and the host from the
 * gateway setting's api_base_url when it is not api.stripe.com (a stand-in in tests).
 */
import Stripe from "stripe";
import { GatewayError, neverSent } from "../gateway-error.js";
import { tracingActive } from "../../telemetry/trace-context.js";
import { tracedStripeHttpClient } from "./traced-http-client.js";

/** The Stripe API version svc is written against (the `stripe` package's own, 23.1.0). */
export const STRIPE_API_VERSION = "2026-10-28.endive" as const;
export const STRIPE_API_HOST = "https://api.stripe.com";

export function stripeClient(
  secretKey: string,
  options: { baseUrl: string | null; timeoutMs: number },
): Stripe {
  const base = new URL(options.baseUrl ?? STRIPE_API_HOST);
  return new Stripe(secretKey, {
    apiVersion: STRIPE_API_VERSION,
    maxNetworkRetries: 0,
    timeout: options.timeoutMs,
    telemetry: false,
    appInfo: { name: "svc", url: "https://github.com/svc-payments/svc" },
    host: base.hostname.replace(/^\[|\]$/g, ""),
    port: Number(base.port || (base.protocol === "https:" ? 443 : 80)),
    protocol: base.protocol === "http:" ? "http" : "https",
    // While tracing runs, each call is a span and Stripe receives its traceparent.
    ...(tracingActive() ? { httpClient: tracedStripeHttpClient() } : {}),
  });
}

/**
 * An error from the client that is not Stripe's answer to the request (network, timeout, 5xx,
 * a key Stripe refuses) as a GatewayError; undefined for Stripe's card and request errors, which
 * are answers (a decline, a refusal of the operation).
 */
export function transportError(error: unknown, what: string): GatewayError | undefined {
  if (!(error instanceof Stripe.errors.StripeError)) {
    return new GatewayError("gateway_unavailable", `Stripe ${what} failed: ${(error as Error).message}`, {
      cause: error,
      outcomeUnknown: !neverSent(error),
    });
  }
  const status = error.statusCode;
  if (
    error instanceof Stripe.errors.StripeConnectionError ||
    status === undefined ||
    status >= 500 ||
    status === 409
  )
    return new GatewayError("gateway_unavailable", `Stripe did not answer the ${what}: ${error.message}`, {
      cause: error,
      ...(status === undefined ? {} : { statusCode: status }),
      outcomeUnknown: !neverSent(error.cause ?? error.raw),
    });
  // Stripe did not process a rate-limited request: nothing was done, it may be sent again.
  if (status === 429)
    return new GatewayError("gateway_unavailable", `Stripe limited the ${what}: ${error.message}`, {
      statusCode: status,
      outcomeUnknown: false,
    });
  if (
    error instanceof Stripe.errors.StripeAuthenticationError ||
    error instanceof Stripe.errors.StripePermissionError
  )
    return new GatewayError(
      "gateway_request_rejected",
      `Stripe refused the gateway setting's secret key (${error.message}); save a valid one.`,
      { statusCode: status, outcomeUnknown: false },
    );
  return undefined;
}

/** A Stripe error answer as a pg_response (no request details, no key). */
export function errorResponse(
  error: InstanceType<typeof Stripe.errors.StripeError>,
): Record<string, unknown> {
  const raw = error.raw as { payment_intent?: { id?: string }; charge?: string } | undefined;
  return {
    // Stripe's own word for the error (`card_error`), not the package's class name (`StripeCardError`).
    type: error.rawType ?? error.type,
    code: error.code ?? null,
    decline_code: error.decline_code ?? null,
    message: error.message,
    ...(raw?.payment_intent?.id ? { payment_intent: raw.payment_intent.id } : {}),
    ...(raw?.charge ? { charge: raw.charge } : {}),
    ...(error.requestId ? { request_id: error.requestId } : {}),
  };
}
