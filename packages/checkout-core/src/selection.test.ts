import { describe, expect, it } from "vitest";
import type { PaymentMethod, TransactionDetails } from "./types.js";
import { availableOptions, isMinified, savedCardsFirst } from "./selection.js";

const method = (form: PaymentMethod["form_of_payment"], pg = "sb"): PaymentMethod => ({
  pg_code: pg,
  name: form,
  form_of_payment: form,
  amount: "1.000",
  currency_code: "KWD",
  fee: "0.000",
  fee_description: "No fee",
  icon: "card",
  flow: "hosted_page",
});
const details = (over: Partial<TransactionDetails>): TransactionDetails => ({
  session_id: "s",
  order_no: null,
  amount: "1.000",
  currency_code: "KWD",
  state: "created",
  operation: "purchase",
  type: "e_commerce",
  language: "en",
  customer_id: null,
  customer_phone: null,
  expires_at: "",
  payment_methods: [method("svc_pg"), method("token_pay"), method("wallet_a_pay"), method("wallet_b_pay")],
  cards: [],
  wallet_a: null,
  ...over,
});

describe("availableOptions", () => {
  it("drops tokenPay without saved cards and wallet A without its pg_code", () => {
    expect(availableOptions(details({}), undefined).map((m) => m.form_of_payment)).toEqual([
      "svc_pg",
      "wallet_b_pay",
    ]);
    const all = details({
      cards: [{ token: "t", brand: "visa", last4: "4242", expiry: "12/39", pg_code: "sb" }],
      wallet_a: { merchant_identifier: "m", pg_code: "sb" },
    });
    expect(availableOptions(all, undefined)).toHaveLength(4);
  });
  it("filters by formsOfPayment", () => {
    expect(availableOptions(details({}), ["wallet_b_pay"]).map((m) => m.form_of_payment)).toEqual([
      "wallet_b_pay",
    ]);
  });
});

describe("isMinified", () => {
  it("is true for exactly one wallet option", () => {
    expect(isMinified([method("wallet_b_pay")])).toBe(true);
    expect(isMinified([method("wallet_a_pay")])).toBe(true);
    expect(isMinified([method("svc_pg")])).toBe(false);
    expect(isMinified([method("wallet_b_pay"), method("svc_pg")])).toBe(false);
  });
});

describe("savedCardsFirst", () => {
  const card = (token: string, last4 = "4242", expiry = "12/39", pg_code = "sb") => ({
    token,
    brand: "visa",
    last4,
    expiry,
    pg_code,
  });
  it("puts one row per saved card first, the same card saved twice once, then the other forms", () => {
    const methods = [method("wallet_b_pay"), method("token_pay"), method("svc_pg")];
    const rows = savedCardsFirst(methods, [
      card("t1"),
      card("t2"),
      card("t3", "1881"),
      card("t4", "4242", "01/40"),
    ]);
    expect(rows.map((r) => r.card?.token ?? r.method.form_of_payment)).toEqual([
      "t1",
      "t3",
      "t4",
      "wallet_b_pay",
      "svc_pg",
    ]);
  });
  it("cards of another gateway are not offered under this one", () => {
    const rows = savedCardsFirst([method("token_pay", "sb")], [card("t1", "4242", "12/39", "other")]);
    expect(rows).toEqual([]);
  });
});
