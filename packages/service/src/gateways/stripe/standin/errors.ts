/**
 * Stripe's error answers (docs.stripe.com/api/errors): one envelope `{ error: {...} }`, a `type`
 * per category, a `code` from Stripe's catalogue where Stripe sends one, and `doc_url` /
 * `request_log_url` as Stripe fills them. Handlers throw `StripeApiError`; the router writes it.
 */
import type Stripe from "stripe";

export type StripeErrorType = "api_error" | "card_error" | "idempotency_error" | "invalid_request_error";

/** The fields of Stripe's error object that the stand-in fills (docs.stripe.com/api/errors). */
export interface StripeErrorFields {
  type: StripeErrorType;
  message: string;
  code?: string;
  decline_code?: string;
  param?: string;
  charge?: string;
  payment_intent?: Stripe.PaymentIntent;
  payment_method?: Stripe.PaymentMethod;
}

/**
 * `validation` errors are refused before the endpoint starts executing, so Stripe saves no
 * idempotent result for them (docs.stripe.com/api/idempotent_requests); `execution` errors are
 * saved and replayed like any answer.
 */
export type ErrorPhase = "validation" | "execution";

/** An answer in Stripe's error shape with this HTTP status. */
export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly fields: StripeErrorFields,
    readonly phase: ErrorPhase = "execution",
  ) {
    super(fields.message);
  }
}

/** Stripe links each error code to a page named after it, with hyphens. */
export function docUrl(code: string): string {
  return `https://stripe.com/docs/error-codes/${code.replaceAll("_", "-")}`;
}

/**
 * The body Stripe sends: its keys in alphabetical order (as Stripe's own answers have them), a
 * `doc_url` whenever there is a code, and a `request_log_url` into the test-mode logs.
 */
export function errorBody(fields: StripeErrorFields, requestId: string, nowSeconds: number): object {
  const withLinks: Record<string, unknown> = {
    ...fields,
    ...(fields.code ? { doc_url: docUrl(fields.code) } : {}),
    request_log_url: `https://dashboard.stripe.com/test/logs/${requestId}?t=${nowSeconds}`,
  };
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(withLinks).sort()) sorted[key] = withLinks[key];
  return { error: sorted };
}

/** A 400 `invalid_request_error`, the category of most refusals. */
export function invalidRequest(
  message: string,
  extra: { code?: string; param?: string; phase?: ErrorPhase; status?: number } = {},
): StripeApiError {
  const { phase, status, ...rest } = extra;
  return new StripeApiError(status ?? 400, { type: "invalid_request_error", message, ...rest }, phase);
}

/** Stripe's 404 for an id this account does not have (another account's id included). */
export function resourceMissing(noun: string, id: string, param?: string): StripeApiError {
  return new StripeApiError(404, {
    type: "invalid_request_error",
    code: "resource_missing",
    message: `No such ${noun}: '${id}'`,
    ...(param ? { param } : {}),
  });
}
