import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_A, rawCard, RETURN_URL, startFixture, type Fixture } from "./testing.js";

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.standIn.close());

const pay = (data: Stripe.PaymentIntentCreateParams.PaymentMethodData | string) =>
  f.stripe.paymentIntents.create({
    amount: 2000,
    currency: "eur",
    confirm: true,
    return_url: RETURN_URL,
    ...(typeof data === "string" ? { payment_method: data } : { payment_method_data: data }),
  });

async function declineOf(data: Stripe.PaymentIntentCreateParams.PaymentMethodData | string) {
  const error = await pay(data).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Stripe.errors.StripeError);
  return error as Stripe.errors.StripeCardError;
}

describe("Stripe stand-in: test cards (docs.stripe.com/testing)", () => {
  it.each([
    ["4242424242424242", "visa"],
    ["5555555555554444", "mastercard"],
    ["378282246310005", "amex"],
    ["6011111111111117", "discover"],
    ["3566002020360505", "jcb"],
  ])("%s (%s) succeeds with a captured charge", async (number, brand) => {
    const pi = await pay(rawCard(number, { cvc: brand === "amex" ? "1234" : "123" }));
    expect(pi.status).toBe("succeeded");
    expect(pi.amount_received).toBe(2000);
    const charge = await f.stripe.charges.retrieve(pi.latest_charge as string);
    expect(charge).toMatchObject({ status: "succeeded", captured: true, paid: true, amount_captured: 2000 });
    expect(charge.payment_method_details?.card?.brand).toBe(brand);
    expect(charge.refunds).toBeUndefined(); // only when expanded, since API version 2022-11-15
  });

  it.each([
    ["4000000000000002", "card_declined", "generic_decline", "Your card was declined."],
    ["4000000000009995", "card_declined", "insufficient_funds", "Your card has insufficient funds."],
    ["4000000000009987", "card_declined", "lost_card", "Your card was declined."],
    ["4000000000000069", "expired_card", "expired_card", "Your card has expired."],
    ["4000000000000127", "incorrect_cvc", "incorrect_cvc", "Your card's security code is incorrect."],
    [
      "4000000000000119",
      "processing_error",
      "processing_error",
      "An error occurred while processing your card. Try again in a little bit.",
    ],
  ])("%s is declined: %s / %s", async (number, code, declineCode, message) => {
    const error = await declineOf(rawCard(number));
    expect(error.type).toBe("StripeCardError");
    expect(error.statusCode).toBe(402);
    expect(error).toMatchObject({ code, decline_code: declineCode, message });
    expect(error.doc_url).toBe(`https://stripe.com/docs/error-codes/${code.replaceAll("_", "-")}`);
    expect(error.raw).toMatchObject({ type: "card_error", charge: expect.stringMatching(/^ch_/) });
    const pi = error.payment_intent;
    expect(pi?.status).toBe("requires_payment_method");
    expect(pi?.payment_method).toBeNull();
    expect(pi?.last_payment_error).toMatchObject({ type: "card_error", code, decline_code: declineCode });
    expect(error.payment_method?.card?.last4).toBe(number.slice(-4));
    const charge = await f.stripe.charges.retrieve(error.charge as string);
    expect(charge).toMatchObject({
      status: "failed",
      failure_code: code,
      failure_message: message,
      paid: false,
    });
    const events = f.standIn
      .events(ACCOUNT_A.secretKey)
      .filter((e) => e.data.object && "id" in e.data.object);
    expect(
      events.filter((e) => e.type === "payment_intent.payment_failed").map((e) => e.data.object),
    ).toContainEqual(expect.objectContaining({ id: pi?.id }));
  });

  it("answers Stripe's test PaymentMethod ids like their cards", async () => {
    expect((await pay("pm_card_visa")).status).toBe("succeeded");
    const declined = await declineOf("pm_card_chargeDeclinedInsufficientFunds");
    expect(declined.decline_code).toBe("insufficient_funds");
  });

  it("refuses a number that fails the Luhn check as incorrect_number, creating nothing", async () => {
    const before = f.standIn.paymentIntents(ACCOUNT_A.secretKey).length;
    const error = await declineOf(rawCard("4242424242424241"));
    expect(error).toMatchObject({
      code: "incorrect_number",
      message: "Your card number is incorrect.",
      statusCode: 402,
    });
    expect(error.param).toBe("payment_method_data[card][number]");
    expect(f.standIn.paymentIntents(ACCOUNT_A.secretKey)).toHaveLength(before);
  });

  it("refuses past and impossible expiry dates as invalid_expiry_year / invalid_expiry_month", async () => {
    const year = new Date().getUTCFullYear();
    expect((await declineOf(rawCard("4242424242424242", { exp_year: year - 1 }))).code).toBe(
      "invalid_expiry_year",
    );
    expect((await declineOf(rawCard("4242424242424242", { exp_month: 13 }))).code).toBe(
      "invalid_expiry_month",
    );
    expect((await declineOf(rawCard("4242424242424242", { cvc: "99" }))).code).toBe("invalid_cvc");
  });

  it("answers a live card number as Stripe's test mode does", async () => {
    const error = await declineOf(rawCard("4111111111111111"));
    expect(error.decline_code).toBe("live_mode_test_card");
  });

  it("refuses raw card numbers with Stripe's wording for an account without raw card data access", async () => {
    const standIn = await startFixture({
      accounts: [{ ...ACCOUNT_A, rawCardData: false }],
    });
    try {
      const error = await standIn.stripe.paymentIntents
        .create({
          amount: 2000,
          currency: "eur",
          confirm: true,
          return_url: RETURN_URL,
          payment_method_data: rawCard("4242424242424242"),
        })
        .catch((e: Stripe.errors.StripeError) => e);
      // 402 with type invalid_request_error: stripe-node (by status) raises a StripeCardError.
      expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
      expect((error as Stripe.errors.StripeError).statusCode).toBe(402);
      expect((error as Stripe.errors.StripeError).raw).toMatchObject({ type: "invalid_request_error" });
      expect((error as Stripe.errors.StripeError).message).toMatch(
        /^Sending credit card numbers directly to the Stripe API is generally unsafe\./,
      );
      // Test PaymentMethods carry no raw number, so they still work.
      const pi = await standIn.stripe.paymentIntents.create({
        amount: 2000,
        currency: "eur",
        confirm: true,
        return_url: RETURN_URL,
        payment_method: "pm_card_visa",
      });
      expect(pi.status).toBe("succeeded");
    } finally {
      await standIn.standIn.close();
    }
  });
});
