/**
 * What confirming a card PaymentIntent does (docs.stripe.com/payments/paymentintents/lifecycle):
 * a 3-D Secure card stops at `requires_action` with a redirect to the stand-in's 3DS page;
 * otherwise a Charge is made, succeeded (the PaymentIntent `succeeded`, or `requires_capture`
 * with manual capture) or failed (back to `requires_payment_method` with `last_payment_error`,
 * and a 402 for the caller). Events follow each step in the order listed in events.ts.
 */
import type Stripe from "stripe";
import type { Decline } from "./cards.js";
import { newCharge } from "./charge-object.js";
import type { StandInContext } from "./context.js";
import { docUrl, StripeApiError } from "./errors.js";
import type { Cause } from "./events.js";
import type { PaymentMethodRecord } from "./payment-method.js";
import { snapshot, type AccountState, type PaymentIntentRecord } from "./store.js";

/** Stripe's message when 3-D Secure authentication fails. */
export const AUTHENTICATION_FAILURE_MESSAGE =
  "The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.";

/** The URL of the stand-in's 3-D Secure page for a PaymentIntent. */
export function threeDSecureUrl(ctx: StandInContext, paymentIntentId: string): string {
  return `${ctx.publicUrl()}/standin/3ds/${paymentIntentId}`;
}

/**
 * Confirms `record` with `method`. Returns normally for success or `requires_action`; throws
 * Stripe's 402 `card_error` (carrying the updated PaymentIntent) for a decline.
 */
export function confirmWith(
  ctx: StandInContext,
  account: AccountState,
  record: PaymentIntentRecord,
  method: PaymentMethodRecord,
  returnUrl: string | undefined,
  cause: Cause,
): void {
  const pi = record.paymentIntent;
  account.paymentMethods.set(method.paymentMethod.id, method);
  record.card = method.card;
  const outcome = method.card.outcome;
  if (outcome.kind === "three_d_secure" && !record.authenticated) {
    const previous = { status: pi.status, next_action: pi.next_action };
    record.pendingPaymentMethod = method;
    record.returnUrl = returnUrl;
    pi.payment_method = method.paymentMethod.id;
    pi.status = "requires_action";
    pi.last_payment_error = null;
    const url = threeDSecureUrl(ctx, pi.id);
    // Without a return_url Stripe hands 3DS to Stripe.js (use_stripe_sdk); with one, a redirect.
    pi.next_action = returnUrl
      ? { type: "redirect_to_url", redirect_to_url: { url, return_url: returnUrl } }
      : { type: "use_stripe_sdk", use_stripe_sdk: { type: "three_d_secure_redirect", stripe_js: url } };
    ctx.events.record(account, cause, "payment_intent.requires_action", pi, previous);
    return;
  }
  const result = outcome.kind === "three_d_secure" ? outcome.afterAuthentication : outcome;
  const decline = result.kind === "decline" ? result.decline : undefined;
  authorise(ctx, account, record, method, decline, cause, record.authenticated === true);
  if (decline) throw declineError(record, method, account);
}

/** The 402 Stripe answers for a declined confirmation, shaped as Stripe's card errors. */
export function declineError(
  record: PaymentIntentRecord,
  method: PaymentMethodRecord,
  account: AccountState,
): StripeApiError {
  const error = record.paymentIntent.last_payment_error;
  const chargeId = record.paymentIntent.latest_charge;
  return new StripeApiError(402, {
    type: "card_error",
    message: error?.message ?? "Your card was declined.",
    ...(error?.code ? { code: error.code } : {}),
    ...(error?.decline_code ? { decline_code: error.decline_code } : {}),
    ...(error?.param ? { param: error.param } : {}),
    ...(typeof chargeId === "string" ? { charge: chargeId } : {}),
    payment_intent: snapshot(record.paymentIntent),
    payment_method: snapshot(
      account.paymentMethods.get(method.paymentMethod.id)?.paymentMethod ?? method.paymentMethod,
    ),
  });
}

/**
 * Makes the Charge of an attempt and moves the PaymentIntent on. `threeDSecure` marks a charge
 * authenticated on the 3DS page (its `three_d_secure` details filled).
 */
export function authorise(
  ctx: StandInContext,
  account: AccountState,
  record: PaymentIntentRecord,
  method: PaymentMethodRecord,
  decline: Decline | undefined,
  cause: Cause,
  threeDSecure: boolean,
): void {
  const pi = record.paymentIntent;
  const previous: Partial<Stripe.PaymentIntent> = {
    status: pi.status,
    amount_capturable: pi.amount_capturable,
    amount_received: pi.amount_received,
    latest_charge: pi.latest_charge,
    next_action: pi.next_action,
  };
  const charge = newCharge(pi, method.paymentMethod, decline);
  const details = charge.payment_method_details?.card;
  if (threeDSecure && details)
    details.three_d_secure = {
      authentication_flow: "challenge",
      electronic_commerce_indicator: "05",
      exemption_indicator: null,
      result: "authenticated",
      result_reason: null,
      transaction_id: charge.id.replace("ch_", "3ds_"),
      version: "2.2.0",
    };
  account.charges.set(charge.id, { charge, seq: account.nextSeq(), card: method.card });
  pi.latest_charge = charge.id;
  pi.next_action = null;
  record.pendingPaymentMethod = undefined;
  record.authenticated = false;
  if (decline) {
    pi.status = "requires_payment_method";
    pi.payment_method = null;
    pi.last_payment_error = {
      type: "card_error",
      code: decline.code,
      decline_code: decline.declineCode,
      message: decline.message,
      charge: charge.id,
      doc_url: docUrl(decline.code),
      payment_method: snapshot(method.paymentMethod),
      ...(decline.param ? { param: decline.param } : {}),
    };
    ctx.events.record(account, cause, "charge.failed", charge);
    ctx.events.record(account, cause, "payment_intent.payment_failed", pi, previous);
    return;
  }
  pi.payment_method = method.paymentMethod.id;
  pi.last_payment_error = null;
  ctx.events.record(account, cause, "charge.succeeded", charge);
  if (pi.capture_method === "manual") {
    pi.status = "requires_capture";
    pi.amount_capturable = pi.amount;
    ctx.events.record(account, cause, "payment_intent.amount_capturable_updated", pi, previous);
  } else {
    pi.status = "succeeded";
    pi.amount_received = pi.amount;
    ctx.events.record(account, cause, "payment_intent.succeeded", pi, previous);
  }
}

/** The customer failed (or abandoned) authentication on the 3DS page. */
export function failAuthentication(
  ctx: StandInContext,
  account: AccountState,
  record: PaymentIntentRecord,
  cause: Cause,
): void {
  const pi = record.paymentIntent;
  const method = record.pendingPaymentMethod;
  const previous = { status: pi.status, next_action: pi.next_action, payment_method: pi.payment_method };
  pi.status = "requires_payment_method";
  pi.next_action = null;
  pi.payment_method = null;
  pi.last_payment_error = {
    type: "invalid_request_error",
    code: "payment_intent_authentication_failure",
    message: AUTHENTICATION_FAILURE_MESSAGE,
    doc_url: docUrl("payment_intent_authentication_failure"),
    ...(method ? { payment_method: snapshot(method.paymentMethod) } : {}),
  };
  record.pendingPaymentMethod = undefined;
  ctx.events.record(account, cause, "payment_intent.payment_failed", pi, previous);
}
