import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IDEMPOTENCY_KEY_TTL_MS, IdempotencyStore } from "./idempotency.js";
import { ACCOUNT_A, RETURN_URL, startFixture, type Fixture } from "./testing.js";

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.standIn.close());

const params = {
  amount: 1_500,
  currency: "usd",
  confirm: true,
  payment_method: "pm_card_visa",
  return_url: RETURN_URL,
};

describe("Stripe stand-in: idempotent requests (docs.stripe.com/api/idempotent_requests)", () => {
  it("the same key twice makes one PaymentIntent and replays the first answer", async () => {
    const first = await f.stripe.paymentIntents.create(params, { idempotencyKey: "order-1" });
    const again = await f.stripe.paymentIntents.create(params, { idempotencyKey: "order-1" });
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(again.lastResponse.headers["original-request"]).toBe(first.lastResponse.requestId);
    expect(first.lastResponse.headers["idempotent-replayed"]).toBeUndefined();
    expect(f.standIn.paymentIntents(ACCOUNT_A.secretKey).filter((p) => p.id === first.id)).toHaveLength(1);
    const created = f.standIn
      .events(ACCOUNT_A.secretKey)
      .filter((e) => e.type === "payment_intent.created" && e.data.object.id === first.id);
    expect(created).toHaveLength(1);
  });

  it("replays a decline too: same status, same body", async () => {
    const declined = { ...params, payment_method: "pm_card_chargeDeclined" };
    const one = await f.stripe.paymentIntents
      .create(declined, { idempotencyKey: "order-2" })
      .catch((e: Stripe.errors.StripeError) => e);
    const two = await f.stripe.paymentIntents
      .create(declined, { idempotencyKey: "order-2" })
      .catch((e: Stripe.errors.StripeError) => e);
    expect(one).toMatchObject({ statusCode: 402, code: "card_declined" });
    expect(two).toMatchObject({ statusCode: 402, code: "card_declined" });
    expect((two as Stripe.errors.StripeError).payment_intent?.id).toBe(
      (one as Stripe.errors.StripeError).payment_intent?.id,
    );
    expect((two as Stripe.errors.StripeError).headers?.["idempotent-replayed"]).toBe("true");
  });

  it("the same key with other parameters is an idempotency_error", async () => {
    await f.stripe.paymentIntents.create(params, { idempotencyKey: "order-3" });
    const error = await f.stripe.paymentIntents
      .create({ ...params, amount: 1_600 }, { idempotencyKey: "order-3" })
      .catch((e: Stripe.errors.StripeError) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect((error as Stripe.errors.StripeError).message).toBe(
      "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than 'order-3' if you meant to execute a different request.",
    );
  });

  it("keys are per account", async () => {
    const a = await f.stripe.paymentIntents.create(params, { idempotencyKey: "shared-key" });
    const b = await f.other.paymentIntents.create(params, { idempotencyKey: "shared-key" });
    expect(b.id).not.toBe(a.id);
  });

  it("a request refused in validation saves nothing: the key works once the parameters are fixed", async () => {
    const bad = await f.stripe.paymentIntents
      .create({ ...params, amount: 10 }, { idempotencyKey: "order-4" })
      .catch((e: Stripe.errors.StripeError) => e);
    expect(bad).toMatchObject({ code: "amount_too_small" });
    const good = await f.stripe.paymentIntents.create(params, { idempotencyKey: "order-4" });
    expect(good.status).toBe("succeeded");
    expect(good.lastResponse.headers["idempotent-replayed"]).toBeUndefined();
  });

  it("a key whose first request is still running gets 409 idempotency_key_in_use", async () => {
    f.standIn.faults.push({ delayMs: 500, count: 1, path: /^\/v1\/payment_intents$/ });
    const slow = f.stripe.paymentIntents.create(params, { idempotencyKey: "order-5" });
    await new Promise((r) => setTimeout(r, 100));
    const error = await f.stripe.paymentIntents
      .create(params, { idempotencyKey: "order-5" })
      .catch((e: Stripe.errors.StripeError) => e);
    expect(error).toMatchObject({ statusCode: 409, code: "idempotency_key_in_use" });
    const first = await slow;
    const replay = await f.stripe.paymentIntents.create(params, { idempotencyKey: "order-5" });
    expect(replay.id).toBe(first.id);
  });

  it("keys expire after 24 hours", () => {
    let now = 0;
    const store = new IdempotencyStore(() => now);
    store.begin("k", "POST /v1/refunds", "{}");
    store.save("k", { status: 200, body: "{}", requestId: "req_1" });
    expect(store.begin("k", "POST /v1/refunds", "{}").kind).toBe("replay");
    now = IDEMPOTENCY_KEY_TTL_MS;
    expect(store.begin("k", "POST /v1/refunds", '{"other":"x"}').kind).toBe("execute");
  });

  it("using a key on another endpoint is an idempotency_error", async () => {
    const pi = await f.stripe.paymentIntents.create(params, { idempotencyKey: "order-6" });
    const error = await f.stripe.refunds
      .create({ payment_intent: pi.id }, { idempotencyKey: "order-6" })
      .catch((e: Stripe.errors.StripeError) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
  });
});
