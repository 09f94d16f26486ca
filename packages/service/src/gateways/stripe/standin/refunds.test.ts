import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_A, eventually, rawCard, RETURN_URL, startFixture, type Fixture } from "./testing.js";

/** Short enough for a quick test, long enough to see the first state. */
const ASYNC_REFUND_DELAY_MS = 150;

let f: Fixture;
beforeAll(async () => {
  f = await startFixture({ asyncRefundDelayMs: ASYNC_REFUND_DELAY_MS });
});
afterAll(() => f.standIn.close());

const paid = (number = "4242424242424242", amount = 5_000) =>
  f.stripe.paymentIntents.create({
    amount,
    currency: "eur",
    confirm: true,
    payment_method_data: rawCard(number),
    return_url: RETURN_URL,
  });

const refundEvents = (refundId: string) =>
  f.standIn.events(ACCOUNT_A.secretKey).filter((e) => {
    const o = e.data.object as { id?: string; object?: string };
    return o.id === refundId;
  });

describe("Stripe stand-in: refunds", () => {
  it("refunds in full by default, with refund.created and charge.refunded", async () => {
    const pi = await paid();
    const refund = await f.stripe.refunds.create({
      payment_intent: pi.id,
      reason: "requested_by_customer",
      metadata: { svc: "r1" },
    });
    expect(refund).toMatchObject({
      amount: 5_000,
      status: "succeeded",
      payment_intent: pi.id,
      metadata: { svc: "r1" },
    });
    const charge = await f.stripe.charges.retrieve(pi.latest_charge as string, { expand: ["refunds"] });
    expect(charge).toMatchObject({ amount_refunded: 5_000, refunded: true });
    expect(charge.refunds?.data.map((r) => r.id)).toEqual([refund.id]);
    const events = f.standIn.events(ACCOUNT_A.secretKey);
    const created = events.find((e) => e.type === "refund.created" && e.data.object.id === refund.id);
    expect(created?.request?.id).toMatch(/^req_/);
    expect(created?.request?.idempotency_key).toMatch(/^stripe-node-retry-/);
    const refunded = events.find((e) => e.type === "charge.refunded" && e.data.object.id === charge.id);
    expect(refunded?.data.previous_attributes).toEqual({ amount_refunded: 0, refunded: false });
  });

  it("refunds in parts, then refuses more than what remains", async () => {
    const pi = await paid();
    await f.stripe.refunds.create({ payment_intent: pi.id, amount: 2_000 });
    await f.stripe.refunds.create({ charge: pi.latest_charge as string, amount: 1_000 });
    const over = await f.stripe.refunds
      .create({ payment_intent: pi.id, amount: 2_001 })
      .catch((e: Stripe.errors.StripeError) => e);
    expect(over).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(over).toMatchObject({
      param: "amount",
      message: "Refund amount (€20.01) is greater than unrefunded amount on charge (€20.00)",
    });
    await f.stripe.refunds.create({ payment_intent: pi.id });
    const again = await f.stripe.refunds
      .create({ payment_intent: pi.id, amount: 1 })
      .catch((e: Stripe.errors.StripeError) => e);
    expect(again).toMatchObject({ code: "charge_already_refunded" });
    const list = await f.stripe.refunds.list({ payment_intent: pi.id });
    expect(list.data.map((r) => r.amount)).toEqual([2_000, 1_000, 2_000]);
  });

  it("refuses to refund a payment that was not captured", async () => {
    const pi = await f.stripe.paymentIntents.create({
      amount: 5_000,
      currency: "eur",
      confirm: true,
      capture_method: "manual",
      payment_method: "pm_card_visa",
      return_url: RETURN_URL,
    });
    const error = await f.stripe.refunds
      .create({ payment_intent: pi.id })
      .catch((e: Stripe.errors.StripeError) => e);
    expect(error).toMatchObject({ statusCode: 400, code: "charge_not_refundable" });
  });

  it("4000000000007726: the refund is pending, then succeeds, with refund.updated and charge.refund.updated", async () => {
    const pi = await paid("4000000000007726");
    const refund = await f.stripe.refunds.create({ payment_intent: pi.id });
    expect(refund.status).toBe("pending");
    await eventually(() => refundEvents(refund.id).some((e) => e.type === "refund.updated"));
    expect((await f.stripe.refunds.retrieve(refund.id)).status).toBe("succeeded");
    const events = refundEvents(refund.id);
    expect(events.map((e) => e.type)).toEqual(["refund.created", "refund.updated", "charge.refund.updated"]);
    expect(events[1]?.data.previous_attributes).toMatchObject({ status: "pending" });
    expect(events[1]?.request?.id).toBeNull();
  });

  it("4000000000005126: the refund succeeds, then fails, with refund.failed", async () => {
    const pi = await paid("4000000000005126");
    const refund = await f.stripe.refunds.create({ payment_intent: pi.id });
    expect(refund.status).toBe("succeeded");
    await eventually(() => refundEvents(refund.id).some((e) => e.type === "refund.failed"));
    const failed = await f.stripe.refunds.retrieve(refund.id);
    expect(failed).toMatchObject({ status: "failed", failure_reason: "expired_or_canceled_card" });
    expect(refundEvents(refund.id).map((e) => e.type)).toEqual([
      "refund.created",
      "refund.updated",
      "refund.failed",
      "charge.refund.updated",
    ]);
    const charge = await f.stripe.charges.retrieve(pi.latest_charge as string);
    expect(charge).toMatchObject({ amount_refunded: 0, refunded: false });
  });

  it("a dashboard refund emits the same events with no metadata and no request", async () => {
    const pi = await paid();
    const refund = f.standIn.dashboardRefund(pi.id, 1_500);
    expect(refund).toMatchObject({ amount: 1_500, metadata: {}, status: "succeeded" });
    const events = f.standIn.events(ACCOUNT_A.secretKey);
    const created = events.find((e) => e.type === "refund.created" && e.data.object.id === refund.id);
    expect(created?.request).toEqual({ id: null, idempotency_key: null });
    expect(events.some((e) => e.type === "charge.refunded" && e.data.object.id === pi.latest_charge)).toBe(
      true,
    );
    expect(f.standIn.refunds(ACCOUNT_A.secretKey)[0]?.id).toBe(refund.id);
  });

  it("another account's PaymentIntent is resource_missing", async () => {
    const pi = await paid();
    const error = await f.other.refunds
      .create({ payment_intent: pi.id })
      .catch((e: Stripe.errors.StripeError) => e);
    expect(error).toMatchObject({
      statusCode: 404,
      code: "resource_missing",
      message: `No such payment_intent: '${pi.id}'`,
    });
    const read = await f.other.paymentIntents.retrieve(pi.id).catch((e: Stripe.errors.StripeError) => e);
    expect(read).toMatchObject({ statusCode: 404, code: "resource_missing" });
  });
});
