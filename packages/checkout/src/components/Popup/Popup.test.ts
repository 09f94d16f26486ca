import { describe, expect, it } from "vitest";
import type { CancelCallbackData } from "../../types.js";
import { popupText } from "./Popup.js";

const base: CancelCallbackData = { status: "canceled", message: "declined", form_of_payment: "redirect" };

describe("popupText (the national-debit rule)", () => {
  it("shows pg_response for ndebit", () => {
    const data = {
      ...base,
      payment_gateway_info: { pg_code: "nd", pg_name: "ndebit", pg_response: { result: "NOT CAPTURED" } },
    };
    expect(JSON.parse(popupText(data))).toEqual({ result: "NOT CAPTURED" });
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
