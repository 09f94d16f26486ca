import { describe, expect, it } from "vitest";

describe("importing the package in Node", () => {
  it("touches no window or document (safe during server rendering)", async () => {
    expect(typeof (globalThis as { window?: unknown }).window).toBe("undefined");
    const sdk = await import("./index.js");
    expect(typeof sdk.Checkout).toBe("function");
    expect(typeof sdk.CheckoutTheme).toBe("function");
    // Constructing validates only; the view (and the DOM) is built by paymentView().
    const checkout = new sdk.Checkout({
      merchantId: "shop.example.com",
      apiKey: "pk_x",
      sessionId: "sess_x",
      delegate: { successCallback() {}, cancelCallback() {}, errorCallback() {} },
    });
    expect(checkout.baseUrl).toBe("https://shop.example.com");
  });
});
