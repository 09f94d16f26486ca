import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completeThreeDSecure } from "../../../../../../test/support/stripe.js";
import { ACCOUNT_A, rawCard, RETURN_URL, startFixture, type Fixture } from "./testing.js";

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.standIn.close());

async function requiringAction(number: string, captureMethod: "automatic" | "manual" = "automatic") {
  const pi = await f.stripe.paymentIntents.create({
    amount: 4200,
    currency: "gbp",
    confirm: true,
    capture_method: captureMethod,
    return_url: RETURN_URL,
    payment_method_data: rawCard(number),
    metadata: { order: "o-3ds" },
  });
  expect(pi.status).toBe("requires_action");
  expect(pi.next_action?.type).toBe("redirect_to_url");
  expect(pi.next_action?.redirect_to_url?.return_url).toBe(RETURN_URL);
  const url = pi.next_action?.redirect_to_url?.url ?? "";
  expect(url.startsWith(`${f.standIn.url}/standin/3ds/${pi.id}`)).toBe(true);
  return { pi, url };
}

function typesFor(piId: string): string[] {
  return f.standIn
    .events(ACCOUNT_A.secretKey)
    .filter((e) => {
      const object = e.data.object as { id?: string; payment_intent?: unknown };
      return object.id === piId || object.payment_intent === piId;
    })
    .map((e) => e.type);
}

describe("Stripe stand-in: 3-D Secure", () => {
  it.each(["4000000000003220", "4000002760003184"])(
    "%s: completing authentication makes the payment succeed",
    async (number) => {
      const { pi, url } = await requiringAction(number);
      const { location } = await completeThreeDSecure(url, "complete");
      const back = new URL(location);
      expect(`${back.origin}${back.pathname}`).toBe(RETURN_URL);
      expect(back.searchParams.get("payment_intent")).toBe(pi.id);
      expect(back.searchParams.get("payment_intent_client_secret")).toBe(pi.client_secret);
      expect(back.searchParams.get("redirect_status")).toBe("succeeded");
      const after = await f.stripe.paymentIntents.retrieve(pi.id, { expand: ["latest_charge"] });
      expect(after.status).toBe("succeeded");
      expect(
        (after.latest_charge as Stripe.Charge).payment_method_details?.card?.three_d_secure?.result,
      ).toBe("authenticated");
      expect(typesFor(pi.id)).toEqual([
        "payment_intent.created",
        "payment_intent.requires_action",
        "charge.succeeded",
        "payment_intent.succeeded",
      ]);
    },
  );

  it("failing authentication returns the payment to requires_payment_method", async () => {
    const { pi, url } = await requiringAction("4000000000003220");
    const { location } = await completeThreeDSecure(url, "fail");
    expect(new URL(location).searchParams.get("redirect_status")).toBe("failed");
    const after = await f.stripe.paymentIntents.retrieve(pi.id);
    expect(after.status).toBe("requires_payment_method");
    expect(after.last_payment_error?.code).toBe("payment_intent_authentication_failure");
    expect(after.latest_charge).toBeNull();
    expect(typesFor(pi.id)).toEqual([
      "payment_intent.created",
      "payment_intent.requires_action",
      "payment_intent.payment_failed",
    ]);
  });

  it("4000008400001629 is declined after a completed authentication", async () => {
    const { pi, url } = await requiringAction("4000008400001629");
    const { location } = await completeThreeDSecure(url, "complete");
    expect(new URL(location).searchParams.get("redirect_status")).toBe("failed");
    const after = await f.stripe.paymentIntents.retrieve(pi.id);
    expect(after.status).toBe("requires_payment_method");
    expect(after.last_payment_error).toMatchObject({
      code: "card_declined",
      decline_code: "generic_decline",
    });
    expect(typesFor(pi.id)).toContain("charge.failed");
  });

  it("with manual capture, authentication leads to requires_capture", async () => {
    const { pi, url } = await requiringAction("4000000000003220", "manual");
    await completeThreeDSecure(url, "complete");
    const after = await f.stripe.paymentIntents.retrieve(pi.id);
    expect(after.status).toBe("requires_capture");
    expect(after.amount_capturable).toBe(4200);
  });

  it("the page is gone once authentication is over", async () => {
    const { url } = await requiringAction("4000000000003220");
    await completeThreeDSecure(url, "complete");
    await expect(completeThreeDSecure(url, "complete")).rejects.toThrow(/answered 404/);
  });

  it("refuses to confirm without return_url while automatic payment methods may redirect", async () => {
    const error = await f.stripe.paymentIntents
      .create({
        amount: 4200,
        currency: "gbp",
        confirm: true,
        payment_method: "pm_card_threeDSecure2Required",
      })
      .catch((e: Stripe.errors.StripeError) => e);
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect((error as Stripe.errors.StripeError).message).toMatch(/^A `return_url` must be specified/);
  });

  it("without return_url and with only cards allowed, 3DS is left to Stripe.js (use_stripe_sdk)", async () => {
    const pi = await f.stripe.paymentIntents.create({
      amount: 4200,
      currency: "gbp",
      confirm: true,
      allowed_payment_method_types: ["card"],
      payment_method: "pm_card_threeDSecure2Required",
    });
    expect(pi.status).toBe("requires_action");
    expect(pi.next_action?.type).toBe("use_stripe_sdk");
  });
});
