import { CHILD, OPERATIONS, SOURCES } from "./parse-operation.js";
import { withCanonicalState } from "./states.js";
import type { PaymentWebhook } from "./types.js";
import { type Table, validate } from "./validate.js";

// The contract's payment payload, field by field (see Rule in validate.ts for the notation).
const PAYMENT: Table = {
  event: ["payment"],
  session_id: "s",
  order_no: "s128?",
  state: ["paid", "authorized", "failed", "canceled", "expired"],
  amount: "d",
  currency_code: "c",
  operation: ["purchase", "authorize"],
  created_via: ["api", "dashboard"],
  type: ["e_commerce", "payment_request"],
  pg_code: "s~",
  form_of_payment: "s~",
  captured_amount: "d",
  refunded_amount: "d",
  voided_amount: "d",
  remaining_amount: "d",
  is_sandbox: "b",
  pg_response: "o",
  metadata: "o?",
  timestamp_utc: "t",
  signature: "s",
  transactions: [
    {
      ...CHILD,
      operation: OPERATIONS,
      reference_number: "s",
      source: SOURCES,
      created_at: "z",
    },
  ],
};

/**
 * Validates a payment webhook payload (`event: "payment"`) and returns it typed, with each
 * child's `state` normalised like {@link normaliseTxnState}. It does not check the signature:
 * use {@link verifyWebhook} on a request.
 *
 * @throws WebhookVerificationError `invalid_payload`, listing every broken rule in `issues`.
 * @example
 * const payment = parsePaymentWebhook(JSON.parse(archivedBody));
 * if (payment.state === "paid") await fulfilOrder(payment.order_no ?? payment.session_id);
 */
export function parsePaymentWebhook(value: unknown): PaymentWebhook {
  const payment = validate(value, PAYMENT) as unknown as PaymentWebhook;
  return {
    ...payment,
    transactions: payment.transactions.map(withCanonicalState),
  };
}
