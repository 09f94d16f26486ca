import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_A, API_VERSION, RETURN_URL, startFixture, type Fixture } from "./testing.js";

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.standIn.close());

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: Stripe.errors.StripeError) => e,
  );

describe("Stripe stand-in: authentication and parameters", () => {
  it("answers 401 for a wrong key, naming it masked", async () => {
    const wrong = f.client("sk_test_notAnAccountKey9999");
    const error = await refusal(wrong.paymentIntents.list());
    expect(error).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(error?.message).toMatch(/^Invalid API Key provided: sk_test_\*+9999$/);
    expect(f.standIn.requests.at(-1)?.keyId).toBe("sk_test_…9999");
  });

  it("accepts Basic auth with the key as the user, and refuses no key at all", async () => {
    const basic = await fetch(`${f.standIn.url}/v1/payment_intents`, {
      headers: { authorization: `Basic ${Buffer.from(`${ACCOUNT_A.secretKey}:`).toString("base64")}` },
    });
    expect(basic.status).toBe(200);
    expect(basic.headers.get("request-id")).toMatch(/^req_/);
    expect(basic.headers.get("stripe-version")).toBe(API_VERSION);
    const none = await fetch(`${f.standIn.url}/v1/payment_intents`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
  });

  it("refuses unknown, missing and mistyped parameters as Stripe does", async () => {
    const unknown = await refusal(
      f.stripe.paymentIntents.create({
        amount: 500,
        currency: "usd",
        colour: "red",
      } as Stripe.PaymentIntentCreateParams),
    );
    expect(unknown).toMatchObject({
      statusCode: 400,
      code: "parameter_unknown",
      param: "colour",
      message: "Received unknown parameter: colour",
    });
    const nested = await refusal(
      f.stripe.paymentIntents.create({
        amount: 500,
        currency: "usd",
        automatic_payment_methods: { enabled: true, shiny: true },
      } as Stripe.PaymentIntentCreateParams),
    );
    expect(nested).toMatchObject({ code: "parameter_unknown", param: "automatic_payment_methods[shiny]" });
    // API version 2026-10-28.endive has allowed_payment_method_types; payment_method_types is unknown.
    const old = await refusal(
      f.stripe.paymentIntents.create({
        amount: 500,
        currency: "usd",
        payment_method_types: ["card"],
      } as Stripe.PaymentIntentCreateParams),
    );
    expect(old).toMatchObject({ code: "parameter_unknown", param: "payment_method_types" });
    const missing = await refusal(
      f.stripe.paymentIntents.create({ currency: "usd" } as Stripe.PaymentIntentCreateParams),
    );
    expect(missing).toMatchObject({
      code: "parameter_missing",
      param: "amount",
      message: "Missing required param: amount.",
    });
    const mistyped = await refusal(
      f.stripe.paymentIntents.create({ amount: "five" as unknown as number, currency: "usd" }),
    );
    expect(mistyped).toMatchObject({ code: "parameter_invalid_integer", message: "Invalid integer: five" });
    const empty = await refusal(
      f.stripe.paymentIntents.create({ amount: 500, currency: "usd", description: "" }),
    );
    expect(empty).toMatchObject({ code: "parameter_invalid_empty", param: "description" });
    const unmodelled = await refusal(
      f.stripe.paymentIntents.create({
        amount: 500,
        currency: "usd",
        shipping: { name: "A", address: { line1: "x" } },
      }),
    );
    expect(unmodelled?.message).toMatch(/^The Stripe stand-in does not model 'shipping'/);
  });

  it("applies Stripe's currency rules: three-decimal, ISK, minimums, lowercase", async () => {
    const kwd = await refusal(f.stripe.paymentIntents.create({ amount: 5_124, currency: "kwd" }));
    expect(kwd).toMatchObject({ statusCode: 400, code: "invalid_charge_amount", param: "amount" });
    expect((await f.stripe.paymentIntents.create({ amount: 5_120, currency: "kwd" })).amount).toBe(5_120);
    const isk = await refusal(f.stripe.paymentIntents.create({ amount: 50_050, currency: "isk" }));
    expect(isk).toMatchObject({ code: "invalid_charge_amount_no_decimal_compatible" });
    const small = await refusal(f.stripe.paymentIntents.create({ amount: 49, currency: "usd" }));
    expect(small).toMatchObject({ code: "amount_too_small", message: "Amount must be at least $0.50 usd" });
    expect((await f.stripe.paymentIntents.create({ amount: 50, currency: "jpy" })).currency).toBe("jpy");
    const upper = await refusal(f.stripe.paymentIntents.create({ amount: 500, currency: "USD" }));
    expect(upper?.message).toMatch(/^Invalid currency: USD\./);
  });

  it("refuses another API version than the one it speaks", async () => {
    const old = f.client(ACCOUNT_A.secretKey, { apiVersion: "2024-06-20" as typeof API_VERSION });
    const error = await refusal(old.paymentIntents.list());
    expect(error?.message).toMatch(/speaks only API version 2026-10-28\.endive/);
  });

  it("logs requests so a test can check every POST's Idempotency-Key and Stripe-Version", async () => {
    await f.stripe.paymentIntents.create({
      amount: 700,
      currency: "usd",
      confirm: true,
      payment_method: "pm_card_visa",
      return_url: RETURN_URL,
    });
    const posts = f.standIn.requests.filter((r) => r.method === "POST");
    expect(posts.length).toBeGreaterThan(0);
    for (const post of posts) {
      expect(post.idempotencyKey).toBeTruthy();
      expect(post.stripeVersion).toBe(API_VERSION);
    }
    const last = posts.at(-1);
    expect(last?.params).toMatchObject({ amount: "700", currency: "usd", confirm: "true" });
    expect(JSON.stringify(f.standIn.requests)).not.toContain(ACCOUNT_A.secretKey);
  });

  it("answers an unknown URL with Stripe's 404", async () => {
    const response = await fetch(`${f.standIn.url}/v1/customers`, {
      headers: { authorization: `Bearer ${ACCOUNT_A.secretKey}` },
    });
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/^Unrecognized request URL \(GET: \/v1\/customers\)/);
  });
});
