import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReceiver, type Receiver } from "../../../../../../test/support/receiver.js";
import { ACCOUNT_A, ACCOUNT_B, eventually, RETURN_URL, startFixture, type Fixture } from "./testing.js";

let f: Fixture;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  f = await startFixture({
    accounts: [{ ...ACCOUNT_A, webhookUrl: `${receiver.url}/stripe/a` }, ACCOUNT_B],
    webhookRetryDelaysMs: [30, 60],
  });
});
afterAll(async () => {
  await f.standIn.close();
  await receiver.close();
});

const verify = (body: string, signature: string, secret = ACCOUNT_A.webhookSecret) =>
  f.stripe.webhooks.constructEvent(body, signature, secret);

describe("Stripe stand-in: webhooks (docs.stripe.com/webhooks)", () => {
  it("delivers each event signed so that stripe.webhooks.constructEvent verifies it", async () => {
    receiver.requests.length = 0;
    receiver.respond = () => ({ status: 200 });
    const pi = await f.stripe.paymentIntents.create(
      {
        amount: 3_000,
        currency: "usd",
        confirm: true,
        payment_method: "pm_card_visa",
        return_url: RETURN_URL,
      },
      { idempotencyKey: "hook-1" },
    );
    const received = await receiver.waitFor(3, { path: "/stripe/a" });
    const events = received.map((r) => verify(r.body, String(r.headers["stripe-signature"])));
    expect(events.map((e) => e.type).sort()).toEqual([
      "charge.succeeded",
      "payment_intent.created",
      "payment_intent.succeeded",
    ]);
    for (const event of events) {
      expect(event).toMatchObject({ object: "event", api_version: "2026-10-28.endive", livemode: false });
      expect(event.request).toEqual({ id: pi.lastResponse.requestId, idempotency_key: "hook-1" });
    }
    expect(String(received[0]?.headers["content-type"])).toMatch(/^application\/json/);
  });

  it("a tampered payload or another secret fails verification", async () => {
    receiver.requests.length = 0;
    await f.stripe.paymentIntents.create({ amount: 3_000, currency: "usd" });
    const [request] = await receiver.waitFor(1, { path: "/stripe/a" });
    const signature = String(request?.headers["stripe-signature"]);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(() => verify(`${request?.body} `, signature)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
    expect(() => verify(request?.body ?? "", signature, ACCOUNT_B.webhookSecret)).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
  });

  it("tries again after a 500, signing afresh, with the same event", async () => {
    receiver.requests.length = 0;
    receiver.respond = (_req, index) => ({ status: index === 0 ? 500 : 200 });
    await f.stripe.paymentIntents.create({ amount: 3_000, currency: "usd" });
    const [first, second] = await receiver.waitFor(2, { path: "/stripe/a" });
    const a = verify(first?.body ?? "", String(first?.headers["stripe-signature"]));
    const b = verify(second?.body ?? "", String(second?.headers["stripe-signature"]));
    expect(b.id).toBe(a.id);
    const attempts = () => f.standIn.deliveries.filter((d) => d.eventId === a.id);
    await eventually(() => attempts()[1]?.status !== null);
    expect(attempts().map((d) => [d.attempt, d.status])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(attempts()[0]?.account).toBe("sk_test_…0001");
    receiver.respond = () => ({ status: 200 });
  });

  it("tries again when the receiver cannot be reached, and gives up after the last delay", async () => {
    f.standIn.setWebhookUrl(ACCOUNT_A.secretKey, "http://127.0.0.1:9/unreachable");
    try {
      const pi = await f.stripe.paymentIntents.create({ amount: 3_000, currency: "usd" });
      const event = f.standIn
        .events(ACCOUNT_A.secretKey)
        .find((e) => e.type === "payment_intent.created" && e.data.object.id === pi.id);
      const attempts = () => f.standIn.deliveries.filter((d) => d.eventId === event?.id);
      const deadline = Date.now() + 5_000;
      while (attempts().length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(attempts().map((d) => d.status)).toEqual([null, null, null]);
      await new Promise((r) => setTimeout(r, 150));
      expect(attempts()).toHaveLength(3); // 1 + two retry delays
      const listed = await f.stripe.events.retrieve(event?.id ?? "");
      expect(listed.pending_webhooks).toBe(1);
    } finally {
      f.standIn.setWebhookUrl(ACCOUNT_A.secretKey, `${receiver.url}/stripe/a`);
    }
  });

  it("a dashboard refund's events reach the receiver with request.id null", async () => {
    const pi = await f.stripe.paymentIntents.create({
      amount: 3_000,
      currency: "usd",
      confirm: true,
      payment_method: "pm_card_visa",
      return_url: RETURN_URL,
    });
    const refund = f.standIn.dashboardRefund(pi.id);
    const refundEvents = () =>
      receiver.requests
        .map((r) => verify(r.body, String(r.headers["stripe-signature"])))
        .filter(
          (e) =>
            e.type === "refund.created" ||
            (e.type === "charge.refunded" && e.data.object.id === pi.latest_charge),
        );
    await eventually(() => refundEvents().length === 2);
    const events = refundEvents();
    const created = events.find((e) => e.type === "refund.created");
    expect(created?.data.object).toMatchObject({ id: refund.id, metadata: {} });
    expect(created?.request).toEqual({ id: null, idempotency_key: null });
  });
});
