import type { FormOfPayment } from "./states.js";

/**
 * One entry of a transaction's `payment_methods` (Checkout API and the SDK's details call). The
 * checkout SDK re-declares it for its published types; a type test keeps the two equal.
 */
export interface PaymentMethod {
  pg_code: string;
  name: string;
  form_of_payment: FormOfPayment;
  amount: string;
  currency_code: string;
  fee: string;
  fee_description: string;
  /** A stable icon name: card, wallet_a, wallet_b, saved_card, bank. */
  icon: string;
  /** How the SDK runs it: wallet (device wallet API), otp (mobile number then code), hosted_page, token, redirect. */
  flow: "wallet" | "otp" | "hosted_page" | "token" | "redirect";
}
