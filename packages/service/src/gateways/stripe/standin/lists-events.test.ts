import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Stripe from "stripe";
import { ACCOUNT_A, RETURN_URL, startFixture, type Fixture } from "./testing.js";

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.standIn.close());

describe("Stripe stand-in: lists and events", () => {
  it("lists PaymentIntents newest first, with created filters and cursors", async () => {
    const made: Stripe.PaymentIntent[] = [];
    for (let i = 0; i < 3; i++)
      made.push(await f.stripe.paymentIntents.create({ amount: 1_000 + i, currency: "usd" }));
    const page1 = await f.stripe.paymentIntents.list({ limit: 2 });
    expect(page1).toMatchObject({ object: "list", has_more: true, url: "/v1/payment_intents" });
    expect(page1.data.map((p) => p.id)).toEqual([made[2]?.id, made[1]?.id]);
    const page2 = await f.stripe.paymentIntents.list({ limit: 2, starting_after: page1.data[1]?.id });
    expect(page2.data.map((p) => p.id)).toEqual([made[0]?.id]);
    expect(page2.has_more).toBe(false);
    const created = made[0]?.created ?? 0;
    const since = await f.stripe.paymentIntents.list({ created: { gte: created }, limit: 100 });
    expect(since.data).toHaveLength(3);
    const before = await f.stripe.paymentIntents.list({ created: { lt: created } });
    expect(before.data).toHaveLength(0);
    const byCustomer = await f.stripe.paymentIntents.list({ customer: "cus_none" });
    expect(byCustomer.data).toHaveLength(0);
    // Auto-pagination of the package works against the stand-in's cursors.
    const all: string[] = [];
    for await (const pi of f.stripe.paymentIntents.list({ limit: 1 })) all.push(pi.id);
    expect(all).toEqual(made.map((p) => p.id).reverse());
  });

  it("refuses a limit outside 1–100", async () => {
    const error = await f.stripe.paymentIntents
      .list({ limit: 101 })
      .catch((e: Stripe.errors.StripeError) => e);
    expect(error).toMatchObject({ statusCode: 400, param: "limit" });
  });

  it("retrieves and lists events, filtered by type", async () => {
    const pi = await f.stripe.paymentIntents.create({
      amount: 2_000,
      currency: "usd",
      confirm: true,
      payment_method: "pm_card_visa",
      return_url: RETURN_URL,
    });
    const logged = f.standIn
      .events(ACCOUNT_A.secretKey)
      .find((e) => e.type === "payment_intent.succeeded" && e.data.object.id === pi.id);
    expect(logged).toBeDefined();
    const fetched = await f.stripe.events.retrieve(logged?.id ?? "");
    expect(fetched).toMatchObject({
      id: logged?.id,
      type: "payment_intent.succeeded",
      api_version: "2026-10-28.endive",
    });
    expect(fetched.data.previous_attributes).toMatchObject({ status: "requires_confirmation" });
    const charges = await f.stripe.events.list({ type: "charge.*", limit: 100 });
    expect(charges.data.every((e) => e.type.startsWith("charge."))).toBe(true);
    const succeeded = await f.stripe.events.list({ types: ["payment_intent.succeeded"] });
    expect(succeeded.data[0]?.id).toBe(logged?.id);
    const missing = await f.other.events
      .retrieve(logged?.id ?? "")
      .catch((e: Stripe.errors.StripeError) => e);
    expect(missing).toMatchObject({ statusCode: 404, code: "resource_missing" });
  });
});
