/**
 * The payment webhook, when a payment becomes final: its payload (the parent's outcome with its
 * totals and `transactions`, signed with @svc/webhooks) and its destination, written to the
 * outbox inside the caller's transaction.
 */
import { formatAmount } from "@svc/protocol";
import type { PaymentWebhook } from "@svc/webhooks";
import { canonicalJson } from "@svc/webhooks";
import { signPayload } from "@svc/webhooks/sign";
import type { Queryable } from "../db/client.js";
import { isSandboxPayment, timestampUtc } from "../webhooks/format.js";
import { EVENT_TYPES, type EventType } from "../webhooks/outbox.js";
import { publish, route } from "../webhooks/publish.js";
import { type Routing, settingsRepo } from "../webhooks/settings.repo.js";
import { type ChildRow, paymentsRepo } from "./payments.repo.js";
import { deriveTotals } from "./totals.js";
import { transactionsOf } from "./transactions.js";
import type { TransactionRow } from "./transactions.repo.js";
import { storable } from "../db/json.js";

/** The payment webhook payload: the parent's outcome with its totals and `transactions`. */
export async function paymentPayload(
  parent: TransactionRow,
  children: ChildRow[],
  at: Date,
  signing: Pick<Routing, "secret" | "live">,
): Promise<PaymentWebhook> {
  const totals = deriveTotals(parent, children);
  const money = (minor: number) => formatAmount(minor, parent.currency_code);
  const payload = {
    event: "payment",
    session_id: parent.session_id,
    ...(parent.order_no ? { order_no: parent.order_no } : {}),
    state: parent.state,
    amount: money(parent.amount_minor),
    currency_code: parent.currency_code,
    operation: parent.operation,
    created_via: parent.created_via,
    type: parent.type,
    pg_code: parent.pg_code,
    form_of_payment: parent.form_of_payment,
    captured_amount: money(totals.captured),
    refunded_amount: money(totals.refunded),
    voided_amount: money(totals.voided),
    remaining_amount: money(totals.remaining),
    transactions: transactionsOf(parent, children),
    // The merchant's own data, when the payment has some (the key is left out otherwise).
    ...(Object.keys(parent.metadata ?? {}).length > 0 ? { metadata: parent.metadata } : {}),
    is_sandbox: isSandboxPayment(signing.live, parent.pg_code, parent.pg_codes),
    // A gateway's words, as stored (db/json.ts): a lone surrogate in them cannot be signed.
    pg_response: storable(parent.pg_response ?? {}),
    timestamp_utc: timestampUtc(at),
    signature: "",
  } as PaymentWebhook;
  payload.signature = signing.secret ? await signPayload(payload, signing.secret) : "";
  return payload;
}

/** The event type of a payment webhook for the parent's state (`attempted` is `payment.pending`). */
export function paymentEventType(state: string): EventType {
  const type = state === "attempted" ? "payment.pending" : `payment.${state}`;
  if (!EVENT_TYPES.some((e) => e.type === type)) throw new Error(`no payment event type for state ${state}`);
  return type as EventType;
}

/**
 * The payment events the contract sends to the transaction's own `webhook_url` (else its
 * plugin's): the four outcomes. `payment.pending` and `payment.expired` go only to endpoints
 * that subscribe to them.
 */
const SEED_PAYMENT_EVENTS: ReadonlySet<string> = new Set([
  "payment.paid",
  "payment.authorized",
  "payment.failed",
  "payment.canceled",
]);

/**
 * The payment webhook, inside the caller's transaction: to the transaction's own `webhook_url`,
 * else its plugin's `webhook_url` (for the four outcomes), and to every endpoint subscribed to the
 * event. A URL given on the transaction is an explicit request, so the API gate does not apply to
 * it; `enabled` off still stops the seed's destinations. Returns the message id, if one was written.
 */
export async function emitPaymentWebhook(q: Queryable, parent: TransactionRow, at: Date) {
  const eventType = paymentEventType(parent.state);
  const routing = await settingsRepo.routing(q, parent.merchant_id, parent.type);
  if (!routing.secret) return undefined;
  const seedUrl =
    routing.config.enabled && SEED_PAYMENT_EVENTS.has(eventType)
      ? (parent.webhook_url ?? (routing.plugin.enabled ? routing.plugin.webhook_url : null))
      : null;
  const destinations = route(seedUrl ? [seedUrl] : [], routing.endpoints, eventType);
  if (destinations.length === 0) return undefined;
  const children = await paymentsRepo.children(q, parent.session_id);
  const payload = await paymentPayload(parent, children, at, routing);
  return publish(q, {
    message: {
      merchantId: parent.merchant_id,
      kind: "payment",
      eventType,
      parentSessionId: parent.session_id,
      result: parent.state,
    },
    destinations,
    // The payment payload carries the metadata for every destination: one body for all.
    body: () => canonicalJson(payload),
    config: routing.config,
  });
}
