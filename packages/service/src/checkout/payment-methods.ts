/**
 * The `payment_methods` of a transaction: one entry per (pg_code, form of payment) the merchant's
 * gateway settings offer for the transaction's currency. svc charges the customer no fee for any
 * gateway (a gateway's own fees are the merchant's, settled with the gateway).
 *
 * Names are what a customer reads: the form of payment ("Credit or debit card"), never the
 * gateway setting's name, unless two gateways offer the same form — then the setting's name
 * tells them apart.
 */
import { type FormOfPayment, formatAmount, type Language, type PaymentMethod } from "@svc/protocol";
import { formsOfPaymentFor } from "../gateways/capabilities.js";
import type { GatewaySettingRow } from "../merchants/merchants.repo.js";
import { methodName, t } from "./i18n.js";

const FLOW: Record<FormOfPayment, PaymentMethod["flow"]> = {
  wallet_a_pay: "wallet",
  wallet_b_pay: "otp",
  svc_pg: "hosted_page",
  token_pay: "token",
  redirect: "redirect",
};
const ICON: Record<FormOfPayment, string> = {
  wallet_a_pay: "wallet_a",
  wallet_b_pay: "wallet_b",
  svc_pg: "card",
  token_pay: "saved_card",
  redirect: "bank",
};

export function paymentMethodsFor(
  tx: {
    pg_codes: string[];
    amount_minor: number;
    currency_code: string;
    language: Language;
    customer_id: string | null;
  },
  settings: GatewaySettingRow[],
): PaymentMethod[] {
  const byCode = new Map(settings.map((s) => [s.pg_code, s]));
  const methods: PaymentMethod[] = [];
  for (const code of tx.pg_codes) {
    const setting = byCode.get(code);
    if (!setting || !setting.currencies.includes(tx.currency_code)) continue;
    for (const form of formsOfPaymentFor(setting.kind)) {
      // Saved cards belong to a customer: without customer_id there is nothing to pay with.
      if (form === "token_pay" && !tx.customer_id) continue;
      methods.push({
        pg_code: code,
        name: methodName(tx.language, form),
        form_of_payment: form,
        amount: formatAmount(tx.amount_minor, tx.currency_code),
        currency_code: tx.currency_code,
        fee: formatAmount(0, tx.currency_code),
        fee_description: t(tx.language, "fee_none"),
        icon: ICON[form],
        flow: FLOW[form],
      });
    }
  }
  const count = (form: FormOfPayment) => methods.filter((m) => m.form_of_payment === form).length;
  const nameOf = new Map(settings.map((s) => [s.pg_code, s.name]));
  return methods.map((m) =>
    count(m.form_of_payment) > 1 ? { ...m, name: `${m.name} (${nameOf.get(m.pg_code)})` } : m,
  );
}
