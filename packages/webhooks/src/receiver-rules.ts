/**
 * `@svc/webhooks/rules`: the contract's receiver rules as helpers (parent key, queued or final,
 * amount delta in minor units). A separate entry, so a receiver that needs only `verifyWebhook`
 * does not load them; their types are exported from the root too.
 *
 * @example
 * import { amountDelta, isQueued, parentKey } from "@svc/webhooks/rules";
 *
 * @packageDocumentation
 */
import type { OperationQueued, OperationRejected, OperationSucceeded, OperationWebhook } from "./types.js";
import { DECIMAL } from "./validate.js";

/**
 * How to find the parent transaction an operation acted on.
 *
 * @example
 * const key: ParentKey = parentKey(op); // { session_id: "sess_…", order_no: "ORD-1001" }
 */
export interface ParentKey {
  session_id: string;
  /** Present when the parent was created with an order number. */
  order_no?: string;
}

/**
 * Receiver rule 1: the parent transaction is found by `session_id` (always present) or
 * `order_no`; the child is `payload.txn`.
 *
 * @example
 * const { session_id, order_no } = parentKey(op);
 * const order = await db.orders.findBy(order_no ? { order_no } : { session_id });
 */
export function parentKey(payload: Pick<OperationWebhook, "session_id" | "order_no">): ParentKey {
  return payload.order_no === undefined
    ? { session_id: payload.session_id }
    : { session_id: payload.session_id, order_no: payload.order_no };
}

/**
 * Receiver rule 2: a queued operation is only a notice. Archive it; the final result
 * (`success` or `rejected`, same `reference_number`) arrives later at the same URL, always after
 * this one.
 *
 * @example
 * if (isQueued(op)) return archive(op); // op.txn.state is "refund_queued" etc.
 */
export function isQueued(payload: OperationWebhook): payload is OperationQueued {
  return payload.result === "queued";
}

/**
 * True for the final word on an operation: `success` or `rejected`.
 *
 * @example
 * if (isFinal(op)) await settle(op.reference_number, op.result);
 */
export function isFinal(payload: OperationWebhook): payload is OperationSucceeded | OperationRejected {
  return payload.result === "success" || payload.result === "rejected";
}

/**
 * A decimal amount as an exact integer of minor units.
 *
 * @example
 * const { minor, exponent }: MinorUnits = toMinorUnits("86.000"); // 86000n, 3
 */
export interface MinorUnits {
  /** Digits without the decimal point: "86.000" → 86000n. */
  minor: bigint;
  /** Digits after the point, i.e. the currency's ISO 4217 exponent as sent: "86.000" → 3. */
  exponent: number;
}

/**
 * Converts a decimal amount string to minor units without floating point. The service writes
 * amounts with exactly the currency's exponent ("86.000" KWD, "10.50" USD, "500" JPY), so the
 * exponent is read from the string itself and no currency table is needed.
 *
 * @throws RangeError when `amount` is not a non-negative decimal string.
 * @example
 * toMinorUnits("10.50"); // => { minor: 1050n, exponent: 2 }
 * toMinorUnits("500");   // => { minor: 500n, exponent: 0 }
 */
export function toMinorUnits(amount: string): MinorUnits {
  if (!DECIMAL.test(amount)) throw new RangeError(`not a decimal amount: ${JSON.stringify(amount)}`);
  const [units, fraction = ""] = amount.split(".");
  return { minor: BigInt(units + fraction), exponent: fraction.length };
}

/**
 * The signed change an operation makes to its parent, in minor units of `currency_code`.
 *
 * @example
 * const delta: AmountDelta = amountDelta(op); // { minor: -1050n, exponent: 2, currency_code: "USD" }
 */
export interface AmountDelta extends MinorUnits {
  currency_code: string;
}

/**
 * Receiver rule 3: how much the operation changed the parent, in its currency's minor units.
 * A successful capture adds `amount`, a successful refund or void deducts it; queued and
 * rejected operations change nothing yet (0).
 *
 * @example
 * const delta = amountDelta(op); // refund of "10.50" USD
 * // => { minor: -1050n, exponent: 2, currency_code: "USD" }
 * order.balanceMinor += delta.minor;
 */
export function amountDelta(payload: OperationWebhook): AmountDelta {
  const { minor, exponent } = toMinorUnits(payload.amount);
  const sign = payload.result !== "success" ? 0n : payload.operation === "capture" ? 1n : -1n;
  return { minor: sign * minor, exponent, currency_code: payload.txn.currency_code };
}
