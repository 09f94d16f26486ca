import {
  CHILD_STATES,
  FORMS_OF_PAYMENT,
  OPERATIONS,
  PARENT_STATES,
  PAYMENT_OPERATIONS,
  TRANSACTION_TYPES,
} from "@svc/protocol";
import { describe, expect, it } from "vitest";
import { displayState, label, labelCodes } from "./labels.js";

describe("dashboard labels", () => {
  it("English and Arabic label the same codes", () => {
    expect(labelCodes("ar").sort()).toEqual(labelCodes("en").sort());
  });
  it("labels every code the dashboard shows: no state, operation, type or form of payment falls back to its code", () => {
    const codes = [
      ...PARENT_STATES,
      ...CHILD_STATES,
      ...OPERATIONS,
      ...TRANSACTION_TYPES,
      ...PAYMENT_OPERATIONS,
      ...FORMS_OF_PAYMENT,
    ];
    expect(codes.filter((code) => !labelCodes("en").includes(code))).toEqual([]);
  });
  it("labels codes and falls back to the code in words", () => {
    expect(label("wallet_b_pay")).toBe("Wallet B (mobile number)");
    expect(label("e_commerce", "ar")).toBe("تجارة إلكترونية");
    expect(label("something_new")).toBe("something new");
    expect(label(null)).toBe("—");
  });
  const totals = {
    captured_amount: "0.000",
    refunded_amount: "0.000",
    voided_amount: "0.000",
    refundable_amount: "0.000",
    capturable_amount: "0.000",
  };
  it.each([
    [{ state: "paid", refunded_amount: "2.000", refundable_amount: "8.000" }, "partially_refunded"],
    [{ state: "paid", refunded_amount: "10.000", refundable_amount: "0.000" }, "refunded"],
    [{ state: "paid", refundable_amount: "10.000" }, "paid"],
    [{ state: "authorized", captured_amount: "3.000", capturable_amount: "5.000" }, "partially_captured"],
    [
      {
        state: "authorized",
        captured_amount: "8.000",
        capturable_amount: "0.000",
        refundable_amount: "8.000",
      },
      "captured",
    ],
    [{ state: "authorized", voided_amount: "8.000" }, "voided"],
    [{ state: "authorized", capturable_amount: "8.000" }, "authorized"],
    [{ state: "failed" }, "failed"],
  ])("%j is %s", (p, expected) => {
    expect(displayState({ ...totals, ...p })).toBe(expected);
  });
});
