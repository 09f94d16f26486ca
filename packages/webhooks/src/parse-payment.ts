import { PAYMENT_FIELDS } from "./payloads.js";
import { withCanonicalState } from "./states.js";
import type { PaymentWebhook } from "./types.js";
import { validate } from "./validate.js";

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
  const payment = validate(value, PAYMENT_FIELDS) as unknown as PaymentWebhook;
  return {
    ...payment,
    transactions: payment.transactions.map(withCanonicalState),
  };
}
