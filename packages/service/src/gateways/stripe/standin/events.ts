/**
 * Events as Stripe records them (docs.stripe.com/api/events): one per change, in the account's
 * log (read back with GET /v1/events), with `data.object` a snapshot of the object after the
 * change, `data.previous_attributes` the changed fields' old values, and `request` naming the
 * API request that caused it (null id for a change made on the dashboard or by Stripe itself).
 * Each event built here is checked by tsc against its member of the package's `Stripe.Event`.
 */
import type Stripe from "stripe";
import { newId } from "./ids.js";
import { snapshot, type AccountState } from "./store.js";

/** The API version of every event: the one stripe@23.1.0 pins. */
export const EVENT_API_VERSION = "2026-10-28.endive";

/** The object each event type carries, as the package's event types declare. */
export interface EventObjects {
  "payment_intent.created": Stripe.PaymentIntent;
  "payment_intent.requires_action": Stripe.PaymentIntent;
  "payment_intent.succeeded": Stripe.PaymentIntent;
  "payment_intent.amount_capturable_updated": Stripe.PaymentIntent;
  "payment_intent.payment_failed": Stripe.PaymentIntent;
  "payment_intent.canceled": Stripe.PaymentIntent;
  "charge.succeeded": Stripe.Charge;
  "charge.failed": Stripe.Charge;
  "charge.captured": Stripe.Charge;
  "charge.refunded": Stripe.Charge;
  "charge.refund.updated": Stripe.Refund;
  "refund.created": Stripe.Refund;
  "refund.updated": Stripe.Refund;
  "refund.failed": Stripe.Refund;
}
export type EventType = keyof EventObjects;

interface BuiltEvent<K extends EventType> {
  id: string;
  object: "event";
  api_version: string;
  created: number;
  data: { object: EventObjects[K]; previous_attributes?: Partial<EventObjects[K]> };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: K;
}

/** tsc proves each built event is the package's event of that type (no casts needed). */
type Proof = { [K in EventType]: BuiltEvent<K> extends Extract<Stripe.Event, { type: K }> ? true : never };
export const EVENT_SHAPES_MATCH_THE_PACKAGE: Proof = {
  "payment_intent.created": true,
  "payment_intent.requires_action": true,
  "payment_intent.succeeded": true,
  "payment_intent.amount_capturable_updated": true,
  "payment_intent.payment_failed": true,
  "payment_intent.canceled": true,
  "charge.succeeded": true,
  "charge.failed": true,
  "charge.captured": true,
  "charge.refunded": true,
  "charge.refund.updated": true,
  "refund.created": true,
  "refund.updated": true,
  "refund.failed": true,
};

/** The request that caused a change; a dashboard action has none. */
export interface Cause {
  requestId: string | null;
  idempotencyKey: string | null;
}

export const DASHBOARD_CAUSE: Cause = { requestId: null, idempotencyKey: null };

export type EventSink = (account: AccountState, event: Stripe.Event) => void;

/** Builds events for one account and hands each to the sink (log + webhook delivery). */
export class EventRecorder {
  constructor(private readonly sink: EventSink) {}

  /**
   * Records an event whose `data.object` is a snapshot of `object` now.
   *
   * @example
   * recorder.record(account, cause, "payment_intent.succeeded", pi, { status: "requires_action" });
   */
  record<K extends EventType>(
    account: AccountState,
    cause: Cause,
    type: K,
    object: EventObjects[K],
    previous?: Partial<EventObjects[K]>,
  ): void {
    const event: BuiltEvent<K> = {
      id: newId("evt"),
      object: "event",
      api_version: EVENT_API_VERSION,
      created: Math.floor(Date.now() / 1000),
      data: { object: snapshot(object), ...(previous ? { previous_attributes: snapshot(previous) } : {}) },
      livemode: false,
      pending_webhooks: account.webhookUrl ? 1 : 0,
      request: { id: cause.requestId, idempotency_key: cause.idempotencyKey },
      type,
    };
    this.sink(account, asStripeEvent(event));
  }
}

/**
 * Widens one built event to the package's union. The `Proof` above is what makes this sound:
 * every `BuiltEvent<K>` is assignable to the union member of type K.
 */
function asStripeEvent<K extends EventType>(event: BuiltEvent<K>): Stripe.Event {
  return event as BuiltEvent<EventType> as unknown as Stripe.Event;
}
