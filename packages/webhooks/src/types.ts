// Payload types of the webhooks the svc service sends. Field names are the wire names
// (snake_case) so a payload can be logged, stored and compared without mapping.

/**
 * An operation on a payment: capture adds money, refund and void deduct it.
 *
 * @example
 * const kind: OperationKind = op.operation; // "capture" | "refund" | "void"
 */
export type OperationKind = "capture" | "refund" | "void";
/**
 * Outcome of an operation: `rejected` always follows an earlier `queued`.
 *
 * @example
 * const result: OperationResult = op.result;
 * if (result === "queued") await archive(op);
 */
export type OperationResult = "success" | "queued" | "rejected";
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
export interface Initiator {
  id: number;
  first_name?: string;
  last_name?: string;
  username: string;
  email: string;
  phone?: string;
}

/**
 * The child transaction an operation created.
 *
 * @example
 * const { session_id, state }: OperationTxn = op.txn;
 */
export interface OperationTxn<S extends TxnState = TxnState> {
  /** Decimal string with the currency's exponent, e.g. "10.50". */
  amount: string;
  /** ISO 4217 code, three uppercase letters. */
  currency_code: string;
  /** The parent's order_no, or the operation's reference_number when the parent has none. */
  order_no: string;
  /** The child's own session id. */
  session_id: string;
  state: S;
}

interface OperationWebhookBase {
  /** Amount of the operation: decimal string in the parent's currency. */
  amount: string;
  initiator?: Initiator;
  is_sandbox: boolean;
  operation: OperationKind;
  /** The parent's order_no; absent when the parent has none. */
  order_no?: string;
  pg_code: string;
  /** The gateway's raw response; non-JSON replies arrive as `{ raw: "…" }`. */
  pg_response: Record<string, unknown>;
  /** Unique per operation; the same on the queued notice and its final result. */
  reference_number: string;
  /** The parent's session id. */
  session_id: string;
  /** Hex HMAC-SHA256 of the canonical payload; checked by verifyWebhook. */
  signature: string;
  /** `input`: dashboard or API; `pg`: done on the gateway's own dashboard. */
  source: "input" | "pg";
  /** Time of the operation, UTC, `YYYY-MM-DD HH:MM:SS`. */
  timestamp_utc: string;
}

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
export type PaymentState = "paid" | "authorized" | "failed" | "canceled" | "expired";

/**
 * One child transaction of a payment, as in the Payment Status API.
 *
 * @example
 * for (const child of payment.transactions) console.log(child.operation, child.state, child.amount);
 */
export interface PaymentTransaction {
  session_id: string;
  order_no: string;
  amount: string;
  currency_code: string;
  state: TxnState;
  operation: OperationKind;
  reference_number: string;
  source: "input" | "pg";
  /** ISO 8601 UTC, e.g. "2026-11-21T10:00:00Z". */
  created_at: string;
}

/**
 * The payment webhook: a payment's outcome, with its children.
 *
 * @example
 * if (event.type === "payment") { const payment: PaymentWebhook = event.payload; }
 */
export interface PaymentWebhook {
  event: "payment";
  session_id: string;
  order_no?: string;
  state: PaymentState;
  amount: string;
  currency_code: string;
  operation: "purchase" | "authorize";
  created_via: "api" | "dashboard";
  type: "e_commerce" | "payment_request";
  pg_code: string | null;
  form_of_payment: string | null;
  captured_amount: string;
  refunded_amount: string;
  voided_amount: string;
  remaining_amount: string;
  transactions: PaymentTransaction[];
  is_sandbox: boolean;
  pg_response: Record<string, unknown>;
  /** The merchant's own data given at checkout (string values); absent when none was given. */
  metadata?: Record<string, string>;
  timestamp_utc: string;
  signature: string;
}

/**
 * Any payload the service sends.
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
  | { type: "payment"; id: string; timestamp: number; payload: PaymentWebhook };
