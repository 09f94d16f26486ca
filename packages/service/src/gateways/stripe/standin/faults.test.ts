import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_A, RETURN_URL, startFixture, type Fixture } from "./testing.js";

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.standIn.close());

const params = {
  amount: 2_500,
  currency: "eur",
  confirm: true,
  payment_method: "pm_card_visa",
  return_url: RETURN_URL,
};

describe("Stripe stand-in: faults", () => {
  it("a lost answer: the PaymentIntent exists although the client got a connection error", async () => {
    // stripe-node retries a closed connection once even with maxNetworkRetries 0, so lose both.
    f.standIn.faults.push({ loseAnswers: 2, path: /^\/v1\/payment_intents$/ });
    const before = f.standIn.paymentIntents(ACCOUNT_A.secretKey).length;
    const error = await f.stripe.paymentIntents
      .create(params, { idempotencyKey: "lost-1" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    const made = f.standIn.paymentIntents(ACCOUNT_A.secretKey);
    expect(made).toHaveLength(before + 1);
    expect(made[0]?.status).toBe("succeeded");
    // The retry with the same key replays the answer the client never saw.
    const retried = await f.stripe.paymentIntents.create(params, { idempotencyKey: "lost-1" });
    expect(retried.id).toBe(made[0]?.id);
    expect(retried.lastResponse.headers["idempotent-replayed"]).toBe("true");
    const records = f.standIn.requests.filter((r) => r.idempotencyKey === "lost-1");
    expect(records.map((r) => [r.status, r.replayed])).toEqual([
      [null, false],
      [null, true],
      [200, true],
    ]);
  });

  it("one lost answer is recovered by the package's own retry with the same key", async () => {
    f.standIn.faults.push({ loseAnswers: 1, path: /^\/v1\/payment_intents$/ });
    const pi = await f.stripe.paymentIntents.create(params);
    expect(pi.lastResponse.headers["idempotent-replayed"]).toBe("true");
  });

  it("failNext answers Stripe's api_error without doing anything; the package retries", async () => {
    f.standIn.faults.push({ failNext: 1, status: 503 });
    const before = f.standIn.paymentIntents(ACCOUNT_A.secretKey).length;
    const error = await f.stripe.paymentIntents.create(params).catch((e: Stripe.errors.StripeError) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(error).toMatchObject({ statusCode: 503, type: "StripeAPIError" });
    expect((error as Stripe.errors.StripeError).raw).toMatchObject({ type: "api_error" });
    expect(f.standIn.paymentIntents(ACCOUNT_A.secretKey)).toHaveLength(before);

    f.standIn.faults.push({ failNext: 2, status: 500 });
    const retrying = f.client(ACCOUNT_A.secretKey, { maxNetworkRetries: 2 });
    const pi = await retrying.paymentIntents.create({ ...params, metadata: { attempt: "retried" } });
    expect(pi.status).toBe("succeeded");
    const keys = new Set(f.standIn.requests.slice(-3).map((r) => r.idempotencyKey));
    expect(keys.size).toBe(1); // the package kept its key across its retries
  });

  it("delayMs holds the answer", async () => {
    f.standIn.faults.push({ delayMs: 300, count: 1 });
    const started = Date.now();
    await f.stripe.paymentIntents.list({ limit: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });
});
