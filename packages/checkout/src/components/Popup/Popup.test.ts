import { describe, expect, it } from "vitest";
import { popupRows } from "../../popup/popup-view.js";
import type { CancelCallbackData } from "@svc/checkout-core";
import { popupText } from "./Popup.js";

const base: CancelCallbackData = { status: "canceled", message: "declined", form_of_payment: "redirect" };
const ndebit = {
  ...base,
  payment_gateway_info: {
    pg_code: "nd",
    pg_name: "ndebit",
    pg_response: { result: "NOT CAPTURED", auth_code: "123456", is_sandbox: true, switch_note: "x" },
  },
};

describe("popupText (the national-debit rule)", () => {
  it("shows pg_response for ndebit", () => {
    expect(JSON.parse(popupText(ndebit))).toEqual(ndebit.payment_gateway_info.pg_response);
  });
  it("shows the whole data for another gateway", () => {
    const data = {
      ...base,
      payment_gateway_info: { pg_code: "sb", pg_name: "sandbox", pg_response: { result: "DECLINED" } },
    };
    expect(JSON.parse(popupText(data))).toEqual(data);
  });
  it("uses the default message without a gateway response", () => {
    expect(popupText(base)).toBe("Payment was cancelled.");
    expect(popupText(undefined)).toBe("Payment was cancelled.");
  });
});

describe("popupRows (the rule as a receipt)", () => {
  it("ndebit: pg_response as translated rows, booleans as words, unknown keys humanised", () => {
    expect(popupRows(ndebit, "en")).toEqual([
      { label: "Result", value: "NOT CAPTURED" },
      { label: "Authorization code", value: "123456" },
      { label: "Test payment", value: "Yes" },
      { label: "Switch note", value: "x" },
    ]);
    expect(popupRows(ndebit, "ar").slice(0, 3)).toEqual([
      { label: "النتيجة", value: "NOT CAPTURED" },
      { label: "رمز التفويض", value: "123456" },
      { label: "دفعة تجريبية", value: "نعم" },
    ]);
  });
  it("another gateway: the whole data, nested objects flattened, empty values left out", () => {
    const data = {
      ...base,
      order_no: "",
      payment_gateway_info: { pg_code: "sb", pg_name: "sandbox", pg_response: { result: "DECLINED" } },
    };
    expect(popupRows(data, "en").map((r) => r.label)).toEqual([
      "Status",
      "Message",
      "Payment method",
      "Gateway code",
      "Gateway",
      "Result",
    ]);
  });
  it("no gateway response: no rows (the popup shows the default text)", () => {
    expect(popupRows(base, "en")).toEqual([]);
  });
});
