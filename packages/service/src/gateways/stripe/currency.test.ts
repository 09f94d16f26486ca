import { describe, expect, it } from "vitest";
import { fromStripeAmount, stripeAmountProblem, stripeExponent, toStripeAmount } from "./currency.js";

describe("Stripe amounts", () => {
  it("writes two-, zero- and three-decimal currencies as Stripe's API does", () => {
    expect(toStripeAmount(1050, "USD")).toBe(1050);
    expect(toStripeAmount(500, "JPY")).toBe(500);
    expect(toStripeAmount(5120, "KWD")).toBe(5120);
    expect(toStripeAmount(12, "ISK")).toBe(1200); // whole krónur, written with two decimals
    expect(toStripeAmount(1200, "MGA")).toBe(12); // ISO has 2 decimals, Stripe none
    expect(toStripeAmount(1230, "IQD")).toBe(123); // ISO has 3, Stripe 2
    expect(stripeExponent("BHD")).toBe(3);
  });

  it("reads them back into svc's minor units", () => {
    for (const [minor, currency] of [
      [1050, "USD"],
      [500, "JPY"],
      [5120, "KWD"],
      [12, "ISK"],
      [1200, "MGA"],
      [1230, "IQD"],
    ] as const)
      expect(fromStripeAmount(toStripeAmount(minor, currency), currency)).toBe(minor);
  });

  it("refuses what Stripe cannot charge, saying which amounts it can", () => {
    expect(stripeAmountProblem(5124, "KWD")).toBe("Stripe takes KWD in steps of 0.010: use 5.120 or 5.130");
    expect(stripeAmountProblem(5120, "KWD")).toBeUndefined();
    expect(stripeAmountProblem(1234, "MGA")).toMatch(/steps of 1\.00: use 12\.00 or 13\.00/);
    expect(stripeAmountProblem(1231, "IQD")).toMatch(/use 1\.230 or 1\.240/);
    expect(stripeAmountProblem(7, "ISK")).toBeUndefined();
    expect(stripeAmountProblem(1999, "USD")).toBeUndefined();
  });

  it("refuses a charge under Stripe's minimum or any amount over its eight digits; a refund may be small", () => {
    expect(stripeAmountProblem(30, "USD")).toBe("Stripe charges at least 0.50 USD");
    expect(stripeAmountProblem(50, "USD")).toBeUndefined();
    expect(stripeAmountProblem(30, "USD", "operation")).toBeUndefined();
    expect(stripeAmountProblem(29, "GBP")).toBe("Stripe charges at least 0.30 GBP");
    expect(stripeAmountProblem(49, "JPY")).toBe("Stripe charges at least 50 JPY");
    // No published minimum for KWD: Stripe converts, which svc cannot.
    expect(stripeAmountProblem(10, "KWD")).toBeUndefined();
    expect(stripeAmountProblem(99_999_999, "USD")).toBeUndefined();
    expect(stripeAmountProblem(100_000_000, "USD")).toBe("Stripe takes at most 999999.99 USD");
    expect(stripeAmountProblem(100_000_000, "USD", "operation")).toBe("Stripe takes at most 999999.99 USD");
    expect(stripeAmountProblem(100_000_000, "KWD")).toBe("Stripe takes at most 99999.990 KWD");
  });
});
