/**
 * GET /v1/payment_intents/:id, GET /v1/payment_intents, POST …/:id/capture, POST …/:id/cancel
 * (docs.stripe.com/api/payment_intents). A capture takes `amount_to_capture` ≤
 * `amount_capturable`; a partial capture releases the rest. Since API version 2025-03-31.basil
 * neither a partial capture nor a cancel creates a Refund or changes the charge's
 * `amount_refunded` / `refunded` (docs.stripe.com/changelog/basil/2025-03-31/remove-refund-from-
 * partial-capture-and-payment-cancellation-flow): the charge shows `amount_captured`, and what can
 * be refunded is that. Multicapture is not modelled.
 */
import type Stripe from "stripe";
import type { ApiRequest } from "./context.js";
import { checkAmount } from "./currencies.js";
import { invalidRequest, StripeApiError } from "./errors.js";
import { checkExpand, checkListExpand, expandPaymentIntent, PAYMENT_INTENT_EXPANDABLE } from "./expand.js";
import { matchesCreated, page } from "./list.js";
import { CANCEL_FIELDS, CAPTURE_FIELDS, LIST_FIELDS, RETRIEVE_FIELDS } from "./payment-intent-params.js";
import { findPaymentIntent } from "./payment-intents.js";
import { read, readObject } from "./params.js";
import { snapshot } from "./store.js";
import { newId } from "./ids.js";

export function retrievePaymentIntent(req: ApiRequest): object {
  const params = readObject(req.form, RETRIEVE_FIELDS, []);
  const expand = read.strings(params, "expand") ?? [];
  checkExpand(expand, PAYMENT_INTENT_EXPANDABLE);
  const record = findPaymentIntent(req.account, req.pathParams[0] ?? "");
  return expandPaymentIntent(req.account, record.paymentIntent, expand);
}

export function listPaymentIntents(req: ApiRequest): object {
  const params = readObject(req.form, LIST_FIELDS, []);
  const expand = checkListExpand(read.strings(params, "expand") ?? [], PAYMENT_INTENT_EXPANDABLE);
  const customer = read.string(params, "customer");
  const items = [...req.account.paymentIntents.values()]
    .filter((r) => matchesCreated(r.paymentIntent.created, params))
    .filter((r) => customer === undefined || r.paymentIntent.customer === customer)
    .map((r) => ({
      id: r.paymentIntent.id,
      created: r.paymentIntent.created,
      seq: r.seq,
      object: expandPaymentIntent(req.account, r.paymentIntent, expand),
    }));
  return page(items, params, "/v1/payment_intents", "payment_intent");
}

function unexpectedState(pi: Stripe.PaymentIntent, message: string): StripeApiError {
  return new StripeApiError(400, {
    type: "invalid_request_error",
    code: "payment_intent_unexpected_state",
    message,
    payment_intent: snapshot(pi),
  });
}

export function capturePaymentIntent(req: ApiRequest): object {
  const params = readObject(req.form, CAPTURE_FIELDS, []);
  const expand = read.strings(params, "expand") ?? [];
  checkExpand(expand, PAYMENT_INTENT_EXPANDABLE);
  const record = findPaymentIntent(req.account, req.pathParams[0] ?? "");
  const pi = record.paymentIntent;
  if (pi.status === "succeeded")
    throw unexpectedState(
      pi,
      "This PaymentIntent could not be captured because it has already been captured.",
    );
  if (pi.status !== "requires_capture")
    throw unexpectedState(
      pi,
      `This PaymentIntent could not be captured because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
    );
  const amount = read.integer(params, "amount_to_capture") ?? pi.amount_capturable;
  checkAmount(amount, pi.currency, "amount_to_capture", { minimum: false });
  if (amount > pi.amount_capturable)
    throw invalidRequest(
      `The amount_to_capture (${amount}) must be less than or equal to the PaymentIntent's amount_capturable (${pi.amount_capturable}).`,
      { code: "amount_too_large", param: "amount_to_capture" },
    );
  const chargeRecord =
    typeof pi.latest_charge === "string" ? req.account.charges.get(pi.latest_charge) : undefined;
  if (!chargeRecord) throw unexpectedState(pi, "This PaymentIntent has no charge to capture.");
  const charge = chargeRecord.charge;
  const chargeBefore = { captured: charge.captured, amount_captured: charge.amount_captured };
  charge.captured = true;
  charge.amount_captured = amount; // the rest is released, with no Refund (basil)
  charge.balance_transaction = newId("txn");
  const piBefore = {
    status: pi.status,
    amount_capturable: pi.amount_capturable,
    amount_received: pi.amount_received,
  };
  pi.status = "succeeded";
  pi.amount_capturable = 0;
  pi.amount_received = amount;
  const metadata = read.object(params, "metadata");
  if (metadata) pi.metadata = { ...pi.metadata, ...read.metadata(params, "metadata") };
  const suffix = read.string(params, "statement_descriptor_suffix");
  if (suffix) pi.statement_descriptor_suffix = charge.statement_descriptor_suffix = suffix;
  req.ctx.events.record(req.account, req.cause, "charge.captured", charge, chargeBefore);
  req.ctx.events.record(req.account, req.cause, "payment_intent.succeeded", pi, piBefore);
  return expandPaymentIntent(req.account, pi, expand);
}

const CANCELABLE = [
  "requires_payment_method",
  "requires_capture",
  "requires_confirmation",
  "requires_action",
  "processing",
];

export function cancelPaymentIntent(req: ApiRequest): object {
  const params = readObject(req.form, CANCEL_FIELDS, []);
  const expand = read.strings(params, "expand") ?? [];
  checkExpand(expand, PAYMENT_INTENT_EXPANDABLE);
  const record = findPaymentIntent(req.account, req.pathParams[0] ?? "");
  const pi = record.paymentIntent;
  if (!CANCELABLE.includes(pi.status))
    throw unexpectedState(
      pi,
      `You cannot cancel this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(", ")}.`,
    );
  const before = { status: pi.status, amount_capturable: pi.amount_capturable, next_action: pi.next_action };
  // Canceling an uncaptured payment releases the authorisation. Since basil its charge is not
  // marked refunded and no charge.refunded is sent: it keeps amount_captured 0.
  pi.status = "canceled";
  pi.canceled_at = Math.floor(Date.now() / 1000);
  pi.cancellation_reason = read.string(params, "cancellation_reason") ?? null;
  pi.amount_capturable = 0;
  pi.next_action = null;
  record.pendingPaymentMethod = undefined;
  req.ctx.events.record(req.account, req.cause, "payment_intent.canceled", pi, before);
  return expandPaymentIntent(req.account, pi, expand);
}
