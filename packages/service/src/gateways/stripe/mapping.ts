/**
 * Stripe's objects as svc's gateway results. A PaymentIntent's status decides a payment
 * (docs.stripe.com/payments/paymentintents/lifecycle); a Refund's status decides a refund
 * (succeeded, or pending until Stripe's events finish it, or failed/canceled).
 */
import type Stripe from "stripe";
import type { GatewayOperationResult, GatewayPaymentResult, PgResponse } from "../adapter.js";

/** What svc keeps of a PaymentIntent as pg_response (never card data beyond brand and last 4). */
export function paymentIntentResponse(pi: Stripe.PaymentIntent): PgResponse {
  const error = pi.last_payment_error;
  const charge = typeof pi.latest_charge === "object" ? pi.latest_charge : undefined;
  const card = charge?.payment_method_details?.card;
  return {
    payment_intent: pi.id,
    status: pi.status,
    amount: pi.amount,
    currency: pi.currency,
    ...(pi.latest_charge
      ? { charge: typeof pi.latest_charge === "string" ? pi.latest_charge : pi.latest_charge.id }
      : {}),
    ...(card ? { card_brand: card.brand, card_last4: card.last4 } : {}),
    ...(error
      ? { code: error.code ?? null, decline_code: error.decline_code ?? null, message: error.message ?? null }
      : {}),
  };
}

/** Whether the customer went through 3-D Secure on this PaymentIntent's charge. */
function challenged(pi: Stripe.PaymentIntent): boolean {
  const charge = typeof pi.latest_charge === "object" ? pi.latest_charge : undefined;
  return Boolean(charge?.payment_method_details?.card?.three_d_secure);
}

/**
 * Whether the PaymentIntent's card was authorised (its charge succeeded), read from its expanded
 * `latest_charge`; as a plain id it tells nothing, and counts as not.
 */
export function authorizationMade(pi: Stripe.PaymentIntent): boolean {
  return typeof pi.latest_charge === "object" && pi.latest_charge?.status === "succeeded";
}

/**
 * A PaymentIntent as a payment result. `waitUrl` is where a customer waits while Stripe is still
 * processing (svc's result page).
 */
export function paymentResultOf(pi: Stripe.PaymentIntent, waitUrl: string): GatewayPaymentResult {
  const pgResponse = paymentIntentResponse(pi);
  const base = { pgReference: pi.id, pgResponse };
  switch (pi.status) {
    case "succeeded":
    case "requires_capture":
      return { status: "approved", ...base, ...(challenged(pi) ? { challengeOccurred: true } : {}) };
    case "requires_action": {
      const url = pi.next_action?.redirect_to_url?.url;
      return { status: "action_required", ...base, redirectUrl: url ?? waitUrl };
    }
    case "processing":
      return { status: "action_required", ...base, redirectUrl: waitUrl };
    case "canceled":
      // Canceled after its card was authorised: an authorization released (on Stripe's dashboard,
      // or by Stripe when it expired) that svc had not heard of yet. The customer did pay it, so it
      // is approved (authorized); the release comes after it as a void from the gateway
      // (events.ts, authorizationOperation), as it happened. Counted as never paid, the void
      // would find nothing to void and go to the Discrepancies page.
      return authorizationMade(pi) ? { status: "approved", ...base } : { status: "canceled", ...base };
    default:
      // requires_payment_method (declined, or 3-D Secure failed), requires_confirmation.
      return { status: "declined", ...base, ...(challenged(pi) ? { challengeOccurred: true } : {}) };
  }
}

/** What svc keeps of a Refund as pg_response. */
export function refundResponse(refund: Stripe.Refund): PgResponse {
  return {
    refund: refund.id,
    status: refund.status,
    amount: refund.amount,
    currency: refund.currency,
    ...(refund.charge
      ? { charge: typeof refund.charge === "string" ? refund.charge : refund.charge.id }
      : {}),
    ...(refund.failure_reason ? { failure_reason: refund.failure_reason } : {}),
  };
}

/** A Refund as an operation result: pending ones are queued (Stripe's events finish them). */
export function refundResultOf(refund: Stripe.Refund): GatewayOperationResult {
  const pgResponse = refundResponse(refund);
  if (refund.status === "succeeded") return { status: "success", pgResponse };
  if (refund.status === "pending" || refund.status === "requires_action")
    return { status: "queued", pgResponse };
  return { status: "declined", pgResponse };
}
