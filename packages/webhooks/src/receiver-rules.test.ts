import { describe, expect, it } from "vitest";
import { operationPayload } from "../test/fixtures.js";
import {
  expectedTxnState,
  normaliseTxnState,
  type OperationWebhook,
  parseOperationWebhook,
} from "./index.js";
import { amountDelta, isFinal, isQueued, parentKey, toMinorUnits } from "./receiver-rules.js";

function op(overrides: Partial<Record<string, unknown>>, txnState?: string): OperationWebhook {
  const base = { ...operationPayload(), signature: "00", ...overrides };
  const operation = base.operation as "capture" | "refund" | "void";
  const state = txnState ?? expectedTxnState(operation, base.result as "success");
  return parseOperationWebhook({ ...base, txn: { ...base.txn, state } });
}

describe("receiver rules", () => {
  it("finds the parent by session_id and order_no", () => {
    expect(parentKey(op({}))).toStrictEqual({ session_id: "sess_parent_01", order_no: "ORD-1001" });
    expect(parentKey(op({ order_no: undefined }))).toStrictEqual({ session_id: "sess_parent_01" });
  });

  it("tells queued notices from final results", () => {
    const queued = op({ result: "queued", success: false });
    expect([isQueued(queued), isFinal(queued)]).toEqual([true, false]);
    const rejected = op({ result: "rejected", success: false });
    expect([isQueued(rejected), isFinal(rejected)]).toEqual([false, true]);
    expect([isQueued(op({})), isFinal(op({}))]).toEqual([false, true]);
  });

  it("computes the signed amount delta in minor units", () => {
    expect(amountDelta(op({ operation: "capture" }))).toStrictEqual({
      minor: 10500n,
      exponent: 3,
      currency_code: "KWD",
    });
    expect(amountDelta(op({ operation: "refund" })).minor).toBe(-10500n);
    expect(amountDelta(op({ operation: "void" })).minor).toBe(-10500n);
    expect(amountDelta(op({ result: "queued", success: false })).minor).toBe(0n);
    expect(amountDelta(op({ result: "rejected", success: false })).minor).toBe(0n);
  });

  it("reads minor units from the amount string exactly", () => {
    expect(toMinorUnits("86.000")).toStrictEqual({ minor: 86000n, exponent: 3 });
    expect(toMinorUnits("10.50")).toStrictEqual({ minor: 1050n, exponent: 2 });
    expect(toMinorUnits("500")).toStrictEqual({ minor: 500n, exponent: 0 });
    expect(toMinorUnits("0.07")).toStrictEqual({ minor: 7n, exponent: 2 });
    expect(toMinorUnits("92233720368547758.07").minor).toBe(9223372036854775807n);
    for (const bad of ["", "1.", ".5", "-1", "1e3", "01", " 1"])
      expect(() => toMinorUnits(bad)).toThrow(RangeError);
  });

  it("normalises every state spelling", () => {
    expect(normaliseTxnState("captured")).toBe("paid");
    expect(normaliseTxnState("void-rejected")).toBe("void_rejected");
    expect(normaliseTxnState("capture_queued")).toBe("capture_queued");
    expect(normaliseTxnState("PAID")).toBeUndefined();
    expect(expectedTxnState("capture", "success")).toBe("paid");
    expect(expectedTxnState("refund", "success")).toBe("refunded");
    expect(expectedTxnState("void", "success")).toBe("voided");
    expect(expectedTxnState("void", "queued")).toBe("void_queued");
    expect(expectedTxnState("refund", "rejected")).toBe("refund_rejected");
  });
});
