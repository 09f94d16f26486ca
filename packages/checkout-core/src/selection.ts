/** Which options the view shows, in which order, and whether it is the minified single-wallet view. */
import type { FormOfPayment, PaymentMethod, SavedCard, TransactionDetails } from "./types.js";

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

export interface OptionEntry {
  method: PaymentMethod;
  /** Set for a saved card: each card is an option of its own. */
  card?: SavedCard;
}

/**
 * The rows of the list: every saved card first (one row per card; the same card saved twice —
 * same gateway, brand, last digits and expiry — shows once), then the other forms in the
 * service's order.
 */
export function savedCardsFirst(methods: PaymentMethod[], cards: SavedCard[]): OptionEntry[] {
  const seen = new Set<string>();
  const saved: OptionEntry[] = [];
  for (const method of methods.filter((m) => m.form_of_payment === "token_pay")) {
    for (const card of cards.filter((c) => c.pg_code === method.pg_code)) {
      const key = [card.pg_code, card.brand.toLowerCase(), card.last4, card.expiry].join("|");
      if (seen.has(key)) continue;
      seen.add(key);
      saved.push({ method, card });
    }
  }
  return [
    ...saved,
    ...methods.filter((m) => m.form_of_payment !== "token_pay").map((method) => ({ method })),
  ];
}
