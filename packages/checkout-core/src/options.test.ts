import { describe, expect, it } from "vitest";
import { CheckoutError } from "./errors.js";
import { baseUrlOf, type CheckoutOptionsBase, validateOptions } from "./options.js";

const delegate = { successCallback() {}, cancelCallback() {}, errorCallback() {} };
const valid: CheckoutOptionsBase = {
  merchantId: "shop.example.com",
  apiKey: "pk_abc",
  sessionId: "sess_x",
  delegate,
};
const codeOf = (o: Partial<CheckoutOptionsBase>) => {
  try {
    validateOptions({ ...valid, ...o } as CheckoutOptionsBase);
    return "ok";
  } catch (e) {
    expect(e).toBeInstanceOf(CheckoutError);
    return (e as CheckoutError).code;
  }
};

describe("validateOptions", () => {
  it("accepts valid options", () => expect(codeOf({})).toBe("ok"));
  it("refuses a scheme in merchantId, naming the fix", () => {
    expect(codeOf({ merchantId: "http://localhost:3000" })).toBe("invalid_merchant_id");
    expect(() => validateOptions({ ...valid, merchantId: "https://a.example" })).toThrow('give "a.example"');
  });
  it("refuses a private key and anything that is not a public key", () => {
    expect(codeOf({ apiKey: "sk_live" })).toBe("private_key");
    expect(codeOf({ apiKey: "abc" })).toBe("invalid_api_key");
  });
  it("names the missing delegate methods", () => {
    expect(() => validateOptions({ ...valid, delegate: { successCallback() {} } as never })).toThrow(
      "delegate must implement errorCallback, cancelCallback.",
    );
  });
  it("refuses a missing session and unknown forms of payment", () => {
    expect(codeOf({ sessionId: "" })).toBe("missing_session_id");
    expect(codeOf({ formsOfPayment: ["applePay" as never] })).toBe("invalid_forms_of_payment");
  });
});

describe("baseUrlOf", () => {
  it("is https, except plain http for localhost and 127.0.0.1", () => {
    expect(baseUrlOf("shop.example.com")).toBe("https://shop.example.com");
    expect(baseUrlOf("localhost:3000")).toBe("http://localhost:3000");
    expect(baseUrlOf("127.0.0.1:8080")).toBe("http://127.0.0.1:8080");
    expect(baseUrlOf("localhost.example.com")).toBe("https://localhost.example.com");
  });
});
