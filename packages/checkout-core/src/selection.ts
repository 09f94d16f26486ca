/**
 * Which options the view shows, in which order, whether it is the minified single-wallet view,
 * and whether the loaded session can list any at all.
 */
import { ApiProblem } from "./api/http.js";
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

/** The states a payment ended in: the service keeps its outcome (`getResult` returns it). */
const FINAL_STATES = ["paid", "authorized", "failed", "canceled"];

/**
 * What a view does with the session it loaded, before listing `options` (both SDKs ask this):
 * - `undefined`: the session is open (`created` or `pending`) and there is an option: list them;
 * - `"final"`: a payment already ended (paid, authorized, failed, canceled): hand over the stored
 *   outcome (`getResult`) through its callback;
 * - an `ApiProblem`: end with `errorCallback` (its `detail` as the message, its `code` choosing
 *   the customer's words): `session_expired`, `payment_in_progress` (a payment started elsewhere
 *   and not over: its outcome comes by webhook), `invalid_state` (any other state), or
 *   `no_payment_option` (`formsOfPayment` and the transaction leave nothing to show).
 */
export function sessionEnd(
  details: TransactionDetails,
  options: PaymentMethod[],
): "final" | ApiProblem | undefined {
  const { state } = details;
  if (FINAL_STATES.includes(state)) return "final";
  if (state !== "created" && state !== "pending")
    return new ApiProblem(
      state === "expired"
        ? "session_expired"
        : state === "attempted"
          ? "payment_in_progress"
          : "invalid_state",
      `The checkout session's state is ${state}, so it takes no payment: create a new one with POST /v1/checkout.`,
      0,
    );
  if (options.length === 0)
    return new ApiProblem(
      "no_payment_option",
      "No form of payment to show: formsOfPayment leaves none of the transaction's (tokenPay needs a saved card, walletAPay a gateway linked to the wallet).",
      0,
    );
}
