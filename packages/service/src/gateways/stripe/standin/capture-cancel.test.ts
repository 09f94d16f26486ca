import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_A, RETURN_URL, startFixture, type Fixture } from "./testing.js";

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.standIn.close());

const authorised = () =>
  f.stripe.paymentIntents.create({
    amount: 10_000,
    currency: "usd",
    confirm: true,
    capture_method: "manual",
    payment_method: "pm_card_visa",
    return_url: RETURN_URL,
  });

const eventTypes = (id: string) =>
  f.standIn
    .events(ACCOUNT_A.secretKey)
    .filter((e) => {
      const o = e.data.object as { id?: string; payment_intent?: unknown };
      return o.id === id || o.payment_intent === id;
    })
    .map((e) => e.type);

describe("Stripe stand-in: manual capture and cancel", () => {
  it("a dashboard capture and cancel: the API's effects and events, no metadata and no request", async () => {
    const captured = f.standIn.dashboardCapture((await authorised()).id, 7_000);
    expect(captured).toMatchObject({ status: "succeeded", amount_received: 7_000, metadata: {} });
    const canceled = f.standIn.dashboardCancel((await authorised()).id);
    expect(canceled).toMatchObject({ status: "canceled", cancellation_reason: null, amount_capturable: 0 });
    const events = f.standIn.events(ACCOUNT_A.secretKey);
    for (const [type, id] of [
      ["payment_intent.succeeded", captured.id],
      ["charge.captured", captured.latest_charge],
      ["payment_intent.canceled", canceled.id],
    ] as const) {
      const event = events.find((e) => e.type === type && (e.data.object as { id: string }).id === id);
      expect(event?.request, type).toEqual({ id: null, idempotency_key: null });
    }
    // What the dashboard did is what the API then shows, and it cannot be done again.
    expect(await f.stripe.paymentIntents.retrieve(captured.id)).toMatchObject({ status: "succeeded" });
    const again = await f.stripe.paymentIntents
      .cancel(canceled.id)
      .catch((e: Stripe.errors.StripeError) => e);
    expect(again).toMatchObject({ statusCode: 400, code: "payment_intent_unexpected_state" });
  });

  it("captures the full amount", async () => {
    const pi = await authorised();
    expect(pi).toMatchObject({ status: "requires_capture", amount_capturable: 10_000, amount_received: 0 });
    const captured = await f.stripe.paymentIntents.capture(pi.id);
    expect(captured).toMatchObject({ status: "succeeded", amount_capturable: 0, amount_received: 10_000 });
    const charge = await f.stripe.charges.retrieve(captured.latest_charge as string);
    expect(charge).toMatchObject({ captured: true, amount_captured: 10_000, amount_refunded: 0 });
    expect(eventTypes(pi.id)).toEqual([
      "payment_intent.created",
      "charge.succeeded",
      "payment_intent.amount_capturable_updated",
      "charge.captured",
      "payment_intent.succeeded",
    ]);
  });

  it("a partial capture releases the rest, with no Refund since 2025-03-31.basil", async () => {
    const pi = await authorised();
    const captured = await f.stripe.paymentIntents.capture(pi.id, {
      amount_to_capture: 6_000,
      metadata: { step: "ship" },
    });
    expect(captured).toMatchObject({ status: "succeeded", amount_received: 6_000, amount_capturable: 0 });
    expect(captured.metadata).toEqual({ step: "ship" });
    const charge = await f.stripe.charges.retrieve(captured.latest_charge as string);
    expect(charge).toMatchObject({ amount_captured: 6_000, amount_refunded: 0, refunded: false });
    expect((await f.stripe.refunds.list({ payment_intent: pi.id })).data).toEqual([]);
    // What is left to refund is what was captured; refunding all of it marks the charge refunded.
    const refund = await f.stripe.refunds.create({ payment_intent: pi.id });
    expect(refund.amount).toBe(6_000);
    expect(await f.stripe.charges.retrieve(charge.id)).toMatchObject({
      amount_refunded: 6_000,
      refunded: true,
    });
  });

  it("refuses to capture more than amount_capturable", async () => {
    const pi = await authorised();
    const error = await f.stripe.paymentIntents
      .capture(pi.id, { amount_to_capture: 10_001 })
      .catch((e: Stripe.errors.StripeError) => e);
    expect(error).toMatchObject({ statusCode: 400, code: "amount_too_large", param: "amount_to_capture" });
  });

  it("refuses a second capture with payment_intent_unexpected_state", async () => {
    const pi = await authorised();
    await f.stripe.paymentIntents.capture(pi.id);
    const error = await f.stripe.paymentIntents.capture(pi.id).catch((e: Stripe.errors.StripeError) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(error).toMatchObject({
      code: "payment_intent_unexpected_state",
      message: "This PaymentIntent could not be captured because it has already been captured.",
    });
    expect((error as Stripe.errors.StripeError).payment_intent?.status).toBe("succeeded");
  });

  it("refuses to capture an automatic-capture payment that needs a payment method", async () => {
    const pi = await f.stripe.paymentIntents.create({ amount: 1_000, currency: "usd" });
    const error = await f.stripe.paymentIntents.capture(pi.id).catch((e: Stripe.errors.StripeError) => e);
    expect((error as Stripe.errors.StripeError).message).toBe(
      "This PaymentIntent could not be captured because it has a status of requires_payment_method. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.",
    );
  });

  it("cancels an authorised payment, releasing the authorisation: no Refund and no charge.refunded since basil", async () => {
    const pi = await authorised();
    const canceled = await f.stripe.paymentIntents.cancel(pi.id, {
      cancellation_reason: "requested_by_customer",
    });
    expect(canceled).toMatchObject({
      status: "canceled",
      cancellation_reason: "requested_by_customer",
      amount_capturable: 0,
    });
    expect(canceled.canceled_at).toBeGreaterThan(0);
    const charge = await f.stripe.charges.retrieve(canceled.latest_charge as string);
    expect(charge).toMatchObject({
      captured: false,
      refunded: false,
      amount_captured: 0,
      amount_refunded: 0,
    });
    expect(eventTypes(pi.id).at(-1)).toBe("payment_intent.canceled");
    expect(eventTypes(pi.id)).not.toContain("charge.refunded");
    expect((await f.stripe.refunds.list({ payment_intent: pi.id })).data).toEqual([]);
  });

  it("refuses to cancel a succeeded payment", async () => {
    const pi = await f.stripe.paymentIntents.create({
      amount: 1_000,
      currency: "usd",
      confirm: true,
      payment_method: "pm_card_visa",
      return_url: RETURN_URL,
    });
    const error = await f.stripe.paymentIntents.cancel(pi.id).catch((e: Stripe.errors.StripeError) => e);
    expect(error).toMatchObject({
      code: "payment_intent_unexpected_state",
      message:
        "You cannot cancel this PaymentIntent because it has a status of succeeded. Only a PaymentIntent with one of the following statuses may be canceled: requires_payment_method, requires_capture, requires_confirmation, requires_action, processing.",
    });
  });

  it("confirms later a PaymentIntent created with a payment method", async () => {
    const pi = await f.stripe.paymentIntents.create({
      amount: 1_000,
      currency: "usd",
      payment_method: "pm_card_visa",
    });
    expect(pi.status).toBe("requires_confirmation");
    const confirmed = await f.stripe.paymentIntents.confirm(pi.id, { return_url: RETURN_URL });
    expect(confirmed.status).toBe("succeeded");
  });
});
