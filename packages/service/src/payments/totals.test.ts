/**
 * The derived totals: reservations and queued operations count against what a merchant may still
 * ask for; a gateway's facts are judged against settled money only; and when both together exceed
 * what was paid (for the moment until the gateway declines svc's requests), no amount goes below 0.
 */
import { describe, expect, it } from "vitest";
import { deriveSettledTotals, deriveTotals, releasedByCapture } from "./totals.js";

const paid = { state: "paid", amount_minor: 10_000 };
const authorized = { state: "authorized", amount_minor: 10_000 };
type Op = "refund" | "capture" | "void";
const child = (operation: Op, state: string, amount_minor: number) => ({ operation, state, amount_minor });

describe("deriveTotals", () => {
  it("a gateway that captures once (Stripe): after a partial capture, done or in flight, nothing is capturable; a rejected one frees it", () => {
    const once = { ...authorized, captures_once: true };
    expect(deriveTotals(once, [child("capture", "paid", 6_000)])).toEqual({
      captured: 6_000,
      refunded: 0,
      voided: 0,
      capturable: 0,
      refundable: 6_000,
      remaining: 6_000,
    });
    expect(deriveTotals(once, [child("capture", "capture_pending", 6_000)])).toMatchObject({ capturable: 0 });
    expect(deriveTotals(once, [child("capture", "capture_queued", 6_000)])).toMatchObject({ capturable: 0 });
    expect(deriveTotals(once, [child("capture", "capture_rejected", 6_000)])).toMatchObject({
      capturable: 10_000,
    });
    expect(deriveTotals(once, [])).toMatchObject({ capturable: 10_000 });
    // Elsewhere the rest stays capturable.
    expect(deriveTotals(authorized, [child("capture", "paid", 6_000)])).toMatchObject({ capturable: 4_000 });
    // The settled totals (a gateway's own capture is judged against them) say the same.
    expect(deriveSettledTotals(once, [child("capture", "paid", 6_000)])).toMatchObject({ capturable: 0 });
  });

  it("what a gateway that captures once released: the rest, once a capture succeeded; nothing before, nothing elsewhere", () => {
    const once = { ...authorized, captures_once: true };
    expect(
      releasedByCapture(once, [child("capture", "paid", 6_000), child("refund", "refunded", 1_000)]),
    ).toBe(4_000);
    expect(releasedByCapture(once, [child("capture", "paid", 10_000)])).toBe(0);
    expect(releasedByCapture(once, [child("capture", "capture_pending", 6_000)])).toBe(0);
    expect(releasedByCapture(once, [child("capture", "capture_rejected", 6_000)])).toBe(0);
    expect(releasedByCapture(once, [])).toBe(0);
    expect(releasedByCapture(authorized, [child("capture", "paid", 6_000)])).toBe(0);
    expect(releasedByCapture({ ...paid, captures_once: true }, [])).toBe(0);
  });

  it("counts refunds in flight and queued against what is refundable", () => {
    const totals = deriveTotals(paid, [
      child("refund", "refunded", 2_000),
      child("refund", "refund_pending", 3_000),
      child("refund", "refund_queued", 1_000),
      child("refund", "refund_rejected", 9_000),
    ]);
    expect(totals).toEqual({
      captured: 10_000,
      refunded: 2_000,
      voided: 0,
      capturable: 0,
      refundable: 4_000,
      remaining: 4_000,
    });
  });

  it("gateway refunds plus svc's refunds in flight beyond the paid amount: refundable stops at 0", () => {
    const totals = deriveTotals(paid, [
      child("refund", "refunded", 6_000),
      child("refund", "refund_pending", 9_000),
    ]);
    expect(totals).toMatchObject({ refunded: 6_000, refundable: 0, remaining: 0 });
  });

  it("a gateway capture plus svc's void in flight beyond the authorization: capturable stops at 0", () => {
    const totals = deriveTotals(authorized, [
      child("capture", "paid", 5_000),
      child("void", "void_pending", 10_000),
    ]);
    expect(totals).toEqual({
      captured: 5_000,
      refunded: 0,
      voided: 0,
      capturable: 0,
      refundable: 5_000,
      remaining: 5_000,
    });
  });
});

describe("deriveSettledTotals", () => {
  it("leaves out what is in flight or queued: only what the gateway has done counts", () => {
    const children = [
      child("refund", "refunded", 2_000),
      child("refund", "refund_pending", 3_000),
      child("refund", "refund_queued", 1_000),
    ];
    expect(deriveSettledTotals(paid, children)).toMatchObject({ refunded: 2_000, refundable: 8_000 });
  });

  it("on an authorization: captures and voids in flight or queued leave the capturable amount whole", () => {
    const children = [
      child("capture", "paid", 1_000),
      child("capture", "capture_pending", 4_000),
      child("capture", "capture_queued", 2_000),
      child("void", "void_pending", 3_000),
    ];
    expect(deriveSettledTotals(authorized, children)).toMatchObject({
      captured: 1_000,
      capturable: 9_000,
      refundable: 1_000,
    });
    expect(deriveTotals(authorized, children)).toMatchObject({ captured: 1_000, capturable: 0 });
  });
});
