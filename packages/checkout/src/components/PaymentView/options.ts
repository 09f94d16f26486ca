/** Which options the view shows, and whether it is the minified single-wallet view. */
import type { FormOfPayment, PaymentMethod, TransactionDetails } from "../../types.js";

const WALLETS: FormOfPayment[] = ["wallet_a_pay", "wallet_b_pay"];

export function availableOptions(
  details: TransactionDetails,
  forms: FormOfPayment[] | undefined,
): PaymentMethod[] {
  return details.payment_methods.filter((m) => {
    if (forms && !forms.includes(m.form_of_payment)) return false;
    if (m.form_of_payment === "token_pay") return details.cards.some((c) => c.pg_code === m.pg_code);
    // Check 1 of the device wallet: the session has a pg_code linked to the wallet.
    if (m.form_of_payment === "wallet_a_pay") return details.wallet_a?.pg_code === m.pg_code;
    return true;
  });
}

export const isMinified = (options: PaymentMethod[]) =>
  options.length === 1 && WALLETS.includes(options[0]!.form_of_payment);
