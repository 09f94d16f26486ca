import { describe, expect, it } from "vitest";
import { ApiProblem } from "./api/http.js";
import { customerMessage } from "./callbacks.js";
import { en } from "./i18n/en.js";
import type { PaymentMethod, TransactionDetails } from "./types.js";
import { availableOptions, isMinified, savedCardsFirst, sessionEnd } from "./selection.js";

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

describe("sessionEnd (what both views do with a loaded session)", () => {
  const listed = (d: TransactionDetails, forms?: PaymentMethod["form_of_payment"][]) =>
    sessionEnd(d, availableOptions(d, forms));
  it("an open session with an option: list it", () => {
    expect(listed(details({ state: "created" }))).toBeUndefined();
    expect(listed(details({ state: "pending" }))).toBeUndefined();
  });
  it("a payment that ended: its stored outcome", () => {
    for (const state of ["paid", "authorized", "failed", "canceled"])
      expect(listed(details({ state }))).toBe("final");
  });
  it("anything else ends with errorCallback: a code choosing the customer's words and a message for the developer", () => {
    const problem = (d: TransactionDetails, forms?: PaymentMethod["form_of_payment"][]) => {
      const end = listed(d, forms);
      expect(end).toBeInstanceOf(ApiProblem);
      const p = end as ApiProblem;
      return { code: p.code, words: customerMessage(en, p), detail: p.detail };
    };
    expect(problem(details({ state: "expired" }))).toEqual({
      code: "session_expired",
      words: en.err_expired,
      detail:
        "The checkout session's state is expired, so it takes no payment: create a new one with POST /v1/checkout.",
    });
    expect(problem(details({ state: "attempted" }))).toMatchObject({
      code: "payment_in_progress",
      words: en.err_in_progress,
    });
    expect(problem(details({ state: "on_hold" }))).toMatchObject({
      code: "invalid_state",
      words: en.err_ended,
      detail: expect.stringContaining("state is on_hold"),
    });
    // tokenPay alone without a saved card leaves nothing to show.
    expect(problem(details({}), ["token_pay"])).toMatchObject({
      code: "no_payment_option",
      words: en.noOptions,
      detail: expect.stringContaining("formsOfPayment"),
    });
  });
  it("a state is checked before the options: an expired session with no option is expired", () => {
    expect((listed(details({ state: "expired" }), ["token_pay"]) as ApiProblem).code).toBe("session_expired");
  });
});
