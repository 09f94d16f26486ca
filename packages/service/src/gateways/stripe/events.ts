/**
 * Stripe's events at svc's notification endpoint, verified with the package's `constructEvent` on
 * the raw body and the setting's webhook signing secret. Events can arrive late, twice and out of
 * order, and one refund is told by several (charge.refunded, refund.created, refund.updated,
 * charge.refund.updated), so svc re-reads each object from Stripe and keys what it applies on the
 * object, not the event:
 * - a PaymentIntent's event → the payment's result as Stripe has it now (payment_result);
 * - a refund svc made (its metadata names svc's reference_number) → the final result of that
 *   operation when it was queued (operation_result); one already final is only confirmed;
 * - a refund made elsewhere (Stripe's dashboard) → relayed once it has succeeded, as an operation
 *   from the gateway (`operation`, deduplicated on the refund's id however many events tell it);
 *   failed after that → `operation_reversed`, a discrepancy for an operator;
 * - an authorization captured or released elsewhere (Stripe's dashboard, or its expiry) → relayed
 *   the same way, keyed on the PaymentIntent (authorizationOperation).
 */
import Stripe from "stripe";
import { formatAmount } from "@svc/protocol";
import { AppError } from "../../http/problem.js";
import {
  type GatewayNotification,
  type InboundNotification,
  type NotificationContext,
  type NotificationRead,
  NotificationRejected,
} from "../adapter.js";
import { transportError } from "./client.js";
import { fromStripeAmount } from "./currency.js";
import { authorizationMade, paymentResultOf, refundResponse } from "./mapping.js";

const PAYMENT_EVENTS = new Set([
  "payment_intent.succeeded",
  "payment_intent.amount_capturable_updated",
  "payment_intent.payment_failed",
  "payment_intent.canceled",
  "payment_intent.processing",
  "payment_intent.requires_action",
]);
const REFUND_EVENTS = new Set(["refund.created", "refund.updated", "refund.failed", "charge.refund.updated"]);

interface StripeEventDeps {
  stripe: Stripe;
  webhookSecret: string;
}

/**
 * Re-reads an object Stripe named, turning a failure into "answer later" (502: Stripe retries).
 * An object Stripe says does not exist (404 `resource_missing`: another account's, or gone) is
 * `undefined`: asking again would only meet the same answer for the days Stripe retries, so the
 * event is acknowledged and nothing is applied.
 */
async function reread<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404)
      return undefined;
    const cause = transportError(error, what)?.message ?? (error as Error).message;
    throw new AppError(
      "gateway_unavailable",
      `svc could not read the ${what} back from Stripe (${cause}); Stripe will send the event again.`,
    );
  }
}

/** A refund as svc applies it: the result of svc's own operation, or a refund made elsewhere. */
function refundNotification(
  refund: Stripe.Refund,
  eventId: string,
  pgReference: string | null,
): GatewayNotification | undefined {
  const notificationId = `${eventId}:${refund.id}`;
  const reference = refund.metadata?.reference_number;
  if (reference) {
    if (refund.status === "succeeded" || refund.status === "failed" || refund.status === "canceled")
      return {
        type: "operation_result",
        referenceNumber: reference,
        status: refund.status === "succeeded" ? "success" : "rejected",
        pgResponse: refundResponse(refund),
        notificationId,
      };
    return undefined; // still pending: a later event finishes it
  }
  // A refund made elsewhere that failed after it had succeeded (and so was relayed): svc's books
  // count it, so it goes to the Discrepancies page. One that never succeeded was never relayed.
  if (refund.status === "failed" || refund.status === "canceled")
    return {
      type: "operation_reversed",
      gatewayOperationId: refund.id,
      pgResponse: refundResponse(refund),
      notificationId,
    };
  if (refund.status !== "succeeded" || !pgReference) return undefined;
  const currency = refund.currency.toUpperCase();
  return {
    type: "operation",
    operation: "refund",
    pgReference,
    gatewayOperationId: refund.id,
    amount: formatAmount(fromStripeAmount(refund.amount, currency), currency),
    currency,
    pgResponse: refundResponse(refund),
    notificationId,
  };
}

/**
 * What became of an authorization outside svc, from its PaymentIntent as Stripe has it now: a
 * capture made on Stripe's dashboard (captured, and no `capture_reference` of svc's on it), or
 * the authorization released (canceled on the dashboard, or by Stripe when it expired after its
 * days). Each is relayed as an operation from the gateway, keyed on the PaymentIntent, so the
 * several events that tell it make one. svc's own capture wrote its reference and is not
 * relayed; svc's own void is recognised when it is applied (a payment is voided once).
 */
function authorizationOperation(pi: Stripe.PaymentIntent, eventId: string): GatewayNotification | undefined {
  // Only an authorization that was made: a PaymentIntent canceled before any card was
  // authorised released nothing.
  if (!authorizationMade(pi)) return undefined;
  const charge = pi.latest_charge as Stripe.Charge;
  const currency = pi.currency.toUpperCase();
  // Keyed on the PaymentIntent and what became of it (`:capture`, `:cancel`).
  const relayed = (operation: "capture" | "void", what: string, minor: number): GatewayNotification => ({
    type: "operation",
    operation,
    pgReference: pi.id,
    gatewayOperationId: `${pi.id}:${what}`,
    amount: formatAmount(fromStripeAmount(minor, currency), currency),
    currency,
    pgResponse: paymentResultOf(pi, "").pgResponse,
    notificationId: `${eventId}:${what}`,
    // A cancel carries no reference of svc's: Stripe's events tell svc's own voids too.
    ...(operation === "void" ? { includesOwn: true } : {}),
  });
  if (pi.status === "succeeded" && !pi.metadata?.capture_reference && pi.amount_received > 0)
    return relayed("capture", "capture", pi.amount_received);
  if (pi.status === "canceled" && !charge.captured) return relayed("void", "cancel", pi.amount);
  return undefined;
}

/** Stripe's object ids: a prefix and an underscore, then letters, digits and underscores (pi_3a9X…, re_…, ch_…). */
const STRIPE_ID = /^[a-z]+_[A-Za-z0-9_]{1,250}$/;

/**
 * The id of the object an event is about, or undefined when it cannot be one of Stripe's (missing,
 * not text, `pi_\ud800`): such an event names an object Stripe has not, so it is acknowledged and
 * nothing applied, as for an object Stripe says does not exist (asking Stripe is not even possible).
 */
function objectIdOf(event: Stripe.Event): string | undefined {
  const id = (event.data.object as { id?: unknown }).id;
  return typeof id === "string" && STRIPE_ID.test(id) ? id : undefined;
}

/**
 * Whether svc should apply a refund: its own operation's result always (svc finds the operation by
 * its reference number), a refund made elsewhere only on a payment of this setting. A Stripe account
 * has payments svc never made (another system's, or another setting's on the same account): a
 * refund of one is acknowledged and nothing applied, not answered 404 for the days Stripe retries.
 */
async function ours(n: GatewayNotification, context: NotificationContext): Promise<boolean> {
  return n.type !== "operation" || (await context.paymentByReference(n.pgReference)) !== undefined;
}

const idOf = (value: string | { id: string } | null | undefined) =>
  value == null ? null : typeof value === "string" ? value : value.id;

export async function readStripeEvent(
  input: InboundNotification,
  context: NotificationContext,
  deps: StripeEventDeps,
): Promise<NotificationRead> {
  if (input.contentType !== "application/json")
    throw new AppError("unsupported_media_type", "Stripe's events are application/json.");
  const header = input.headers["stripe-signature"];
  let event: Stripe.Event;
  try {
    event = deps.stripe.webhooks.constructEvent(
      input.rawBody,
      Array.isArray(header) ? (header[0] ?? "") : (header ?? ""),
      deps.webhookSecret,
    );
  } catch (error) {
    // The body is checked only after its signature: a SyntaxError is a signed body that is not
    // JSON. Anything else (the package's own errors on a malformed header, e.g. an empty v1=) is
    // a signature that does not verify.
    if (error instanceof SyntaxError)
      throw new AppError("validation_failed", "The signed body of the Stripe event is not JSON.");
    throw new NotificationRejected(
      "The Stripe-Signature does not verify with this gateway setting's webhook signing secret (was the raw body signed, and is the secret the endpoint's?).",
    );
  }
  const shape = event as unknown as { type?: unknown; data?: { object?: unknown } } | null;
  if (
    shape === null ||
    typeof shape !== "object" ||
    typeof shape.type !== "string" ||
    typeof shape.data?.object !== "object" ||
    shape.data.object === null
  )
    throw new AppError(
      "validation_failed",
      "A Stripe event has a type and a data.object; this signed body has not, so it is not one.",
    );
  const notifications: GatewayNotification[] = [];
  const id = objectIdOf(event);
  if (id === undefined) return { notifications };
  if (PAYMENT_EVENTS.has(event.type)) {
    const pi = await reread("PaymentIntent", () =>
      deps.stripe.paymentIntents.retrieve(id, { expand: ["latest_charge"] }),
    );
    // By the PaymentIntent's id, or, for an attempt whose answer svc never got (so it stored no
    // id), by the attempt its metadata names: read back from Stripe with this setting's key.
    const ref =
      pi &&
      ((await context.paymentByReference(pi.id)) ??
        (typeof pi.metadata?.attempt_id === "string"
          ? await context.paymentByAttempt(pi.metadata.attempt_id)
          : undefined));
    if (pi && ref) {
      notifications.push({
        type: "payment_result",
        pgReference: pi.id,
        result: paymentResultOf(pi, ref.returnUrl),
        notificationId: event.id,
        attemptId: ref.attemptId,
      });
      if (ref.operation === "authorize") {
        const operation = authorizationOperation(pi, event.id);
        if (operation) notifications.push(operation);
      }
    }
  } else if (REFUND_EVENTS.has(event.type)) {
    const refund = await reread("refund", () => deps.stripe.refunds.retrieve(id));
    const found = refund && refundNotification(refund, event.id, idOf(refund.payment_intent));
    if (found && (await ours(found, context))) notifications.push(found);
  } else if (event.type === "charge.refunded") {
    const charge = event.data.object as Stripe.Charge;
    const refunds = await reread("refunds", () =>
      deps.stripe.refunds.list({ charge: id, limit: 100 }).autoPagingToArray({ limit: 1_000 }),
    );
    for (const refund of refunds ?? []) {
      const found = refundNotification(
        refund,
        event.id,
        idOf(refund.payment_intent) ?? idOf(charge.payment_intent),
      );
      if (found && (await ours(found, context))) notifications.push(found);
    }
  }
  return { notifications };
}
