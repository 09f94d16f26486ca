import { invalid } from "./parse-operation.js";
import { normaliseTxnState } from "./states.js";
import type { PaymentTransaction, PaymentWebhook } from "./types.js";
import {
  bool,
  currency,
  decimal,
  type Issues,
  isRecord,
  object,
  oneOf,
  str,
  timestampUtc,
} from "./validate.js";

// ISO 8601 UTC as the Payment Status API writes it, with optional fractional seconds.
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|\+00:00)$/;

function checkTransaction(issues: Issues, value: unknown, path: string): PaymentTransaction | undefined {
  if (!isRecord(value)) {
    issues.push(`${path}: expected an object`);
    return undefined;
  }
  str(issues, value, "session_id", path);
  str(issues, value, "order_no", path, { max: 128 });
  decimal(issues, value, "amount", path);
  currency(issues, value, "currency_code", path);
  const raw = str(issues, value, "state", path);
  const state = raw === undefined ? undefined : normaliseTxnState(raw);
  if (raw !== undefined && state === undefined)
    issues.push(`${path}.state: unknown state ${JSON.stringify(raw)}`);
  oneOf(issues, value, "operation", path, ["capture", "refund", "void"] as const);
  str(issues, value, "reference_number", path);
  oneOf(issues, value, "source", path, ["input", "pg"] as const);
  str(issues, value, "created_at", path, {
    pattern: ISO_UTC,
    expected: "ISO 8601 UTC like 2026-11-21T10:00:00Z",
  });
  return { ...value, state } as unknown as PaymentTransaction;
}

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
  const issues: Issues = [];
  if (!isRecord(value)) throw invalid(["payload: expected a JSON object"]);
  oneOf(issues, value, "event", "", ["payment"] as const);
  str(issues, value, "session_id", "");
  str(issues, value, "order_no", "", { optional: true, max: 128 });
  oneOf(issues, value, "state", "", ["paid", "authorized", "failed", "canceled", "expired"] as const);
  decimal(issues, value, "amount", "");
  currency(issues, value, "currency_code", "");
  oneOf(issues, value, "operation", "", ["purchase", "authorize"] as const);
  oneOf(issues, value, "created_via", "", ["api", "dashboard"] as const);
  oneOf(issues, value, "type", "", ["e_commerce", "payment_request"] as const);
  str(issues, value, "pg_code", "", { nullable: true });
  str(issues, value, "form_of_payment", "", { nullable: true });
  for (const key of ["captured_amount", "refunded_amount", "voided_amount", "remaining_amount"]) {
    decimal(issues, value, key, "");
  }
  bool(issues, value, "is_sandbox", "");
  object(issues, value, "pg_response", "");
  timestampUtc(issues, value, "timestamp_utc", "");
  str(issues, value, "signature", "");
  const list = value.transactions;
  let transactions: (PaymentTransaction | undefined)[] = [];
  if (!Array.isArray(list)) issues.push("transactions: expected an array");
  else transactions = list.map((t, i) => checkTransaction(issues, t, `transactions[${i}]`));
  if (issues.length > 0) throw invalid(issues);
  return { ...value, transactions } as unknown as PaymentWebhook;
}
