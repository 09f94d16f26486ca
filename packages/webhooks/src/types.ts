// Payload types of the webhooks the svc service sends. Field names are the wire names
// (snake_case) so a payload can be logged, stored and compared without mapping. The payloads'
// fields are inferred from their one description in payloads.ts (`FieldsOf`); only the operation
// webhook's variants by `result` are written out here, as its cross-field rules check them.

import type {
  CHILD_FIELDS,
  ENDPOINT_DISABLED_FIELDS,
  OPERATION_FIELDS,
  OPERATIONS,
  PAYMENT_FIELDS,
  PAYMENT_TRANSACTION_FIELDS,
  RESULTS,
} from "./payloads.js";
import type { FieldsOf } from "./validate.js";

/**
 * An operation on a payment: capture adds money, refund and void deduct it.
 *
 * @example
 * const kind: OperationKind = op.operation; // "capture" | "refund" | "void"
 */
export type OperationKind = (typeof OPERATIONS)[number];
/**
 * Outcome of an operation: `rejected` always follows an earlier `queued`.
 *
 * @example
 * const result: OperationResult = op.result;
 * if (result === "queued") await archive(op);
 */
export type OperationResult = (typeof RESULTS)[number];
/**
 * Child transaction state after a successful operation (`paid` = captured).
 *
 * @example
 * if (op.result === "success") { const state: FinalTxnState = op.txn.state; }
 */
export type FinalTxnState = "paid" | "refunded" | "voided";
/**
 * Child transaction state of a queued operation: the gateway will answer later.
 *
 * @example
 * if (op.result === "queued") { const state: QueuedTxnState = op.txn.state; } // e.g. "refund_queued"
 */
export type QueuedTxnState = "capture_queued" | "refund_queued" | "void_queued";
/**
 * Child transaction state of a queued operation the gateway then refused.
 *
 * @example
 * if (op.result === "rejected") { const state: RejectedTxnState = op.txn.state; } // e.g. "refund_rejected"
 */
export type RejectedTxnState = "capture_rejected" | "refund_rejected" | "void_rejected";
/**
 * Every child state, in the normalised underscore spelling.
 *
 * @example
 * const state: TxnState = op.txn.state;
 * if (state === "refunded") await markRefunded(op.txn.session_id);
 */
export type TxnState = FinalTxnState | QueuedTxnState | RejectedTxnState;

/**
 * The dashboard user who made the operation; absent for private-key API calls and gateways.
 *
 * @example
 * const who: Initiator | undefined = op.initiator;
 * if (who) audit.log(`${op.operation} by ${who.username} <${who.email}>`);
 */
export type Initiator = FieldsOf<(typeof OPERATION_FIELDS)["initiator"]>;

/**
 * The child transaction an operation created.
 *
 * @example
 * const { session_id, state }: OperationTxn = op.txn;
 */
export interface OperationTxn<S extends TxnState = TxnState> extends FieldsOf<typeof CHILD_FIELDS> {
  state: S;
}

/** Every field of the operation webhook; the variants below narrow the three `result` decides. */
type OperationWebhookBase = FieldsOf<typeof OPERATION_FIELDS>;

/**
 * A successful operation: money moved, `txn.state` is `paid`, `refunded` or `voided`.
 *
 * @example
 * if (op.result === "success") { const done: OperationSucceeded = op; await applyToOrder(done); }
 */
export interface OperationSucceeded extends OperationWebhookBase {
  result: "success";
  success: true;
  txn: OperationTxn<FinalTxnState>;
}
/**
 * A queued operation: only a notice, the final result follows at the same URL.
 *
 * @example
 * if (op.result === "queued") { const notice: OperationQueued = op; await archive(notice); }
 */
export interface OperationQueued extends OperationWebhookBase {
  result: "queued";
  success: false;
  txn: OperationTxn<QueuedTxnState>;
}
/**
 * A queued operation the gateway refused in the end: nothing moved.
 *
 * @example
 * if (op.result === "rejected") { const refused: OperationRejected = op; await notifyStaff(refused); }
 */
export interface OperationRejected extends OperationWebhookBase {
  result: "rejected";
  success: false;
  txn: OperationTxn<RejectedTxnState>;
}

/**
 * The operation webhook, discriminated by `result`. It has no `event` key.
 *
 * @example
 * if (event.type === "operation") { const op: OperationWebhook = event.payload; }
 */
export type OperationWebhook = OperationSucceeded | OperationQueued | OperationRejected;

/**
 * A payment's outcome.
 *
 * @example
 * const state: PaymentState = payment.state;
 * if (state === "paid") await fulfilOrder(payment);
 */
export type PaymentState = PaymentWebhook["state"];

/**
 * One child transaction of a payment, as in the Payment Status API.
 *
 * @example
 * for (const child of payment.transactions) console.log(child.operation, child.state, child.amount);
 */
export type PaymentTransaction = FieldsOf<typeof PAYMENT_TRANSACTION_FIELDS>;

/**
 * The payment webhook: a payment's outcome, with its children.
 *
 * @example
 * if (event.type === "payment") { const payment: PaymentWebhook = event.payload; }
 */
export type PaymentWebhook = FieldsOf<typeof PAYMENT_FIELDS>;

/**
 * `webhook.endpoint_disabled`: one of the merchant's endpoints was disabled because every delivery
 * to it failed for the configured period (5 days by default). Sent to the merchant's other
 * endpoints subscribed to it.
 *
 * @example
 * if (event.type === "webhook.endpoint_disabled") alertOps(`${event.payload.endpoint.url}: ${event.payload.last_error}`);
 */
export type EndpointDisabledWebhook = FieldsOf<typeof ENDPOINT_DISABLED_FIELDS> & {
  /** The endpoint that was disabled: its id, URL and description (possibly empty). */
  endpoint: { id: string; url: string; description: string };
};

/**
 * The payloads `verifyWebhook` parses and types (svc's notices: `@svc/webhooks/notices`).
 *
 * @example
 * const payload: WebhookPayload = parseOperationWebhook(JSON.parse(archivedBody));
 */
export type WebhookPayload = OperationWebhook | PaymentWebhook;

/**
 * A verified webhook: the delivery's headers and its validated payload.
 *
 * @example
 * const event: WebhookEvent = await verifyWebhook(rawBody, req.headers, process.env.WEBHOOK_SECRET!);
 * if (event.type === "payment") await fulfilOrder(event.payload);
 */
export type WebhookEvent =
  | { type: "operation"; id: string; timestamp: number; payload: OperationWebhook }
  | { type: "payment"; id: string; timestamp: number; payload: PaymentWebhook }
  | OtherWebhookEvent;

/**
 * An authentic message that is neither an operation nor a payment webhook: one of svc's notices
 * about the account (`event: "webhook.endpoint_disabled"`, parsed by `@svc/webhooks/notices`), or
 * an event a newer service sends. Both signatures are checked, its fields are not. Answer it 2xx
 * when you have no use for it, so it is not retried.
 *
 * @example
 * if (event.type === "other") console.info(`not handled: ${event.event}`);
 */
export interface OtherWebhookEvent {
  type: "other";
  /** The payload's `event`, e.g. "webhook.endpoint_disabled". */
  event: string;
  id: string;
  timestamp: number;
  payload: Record<string, unknown>;
}
