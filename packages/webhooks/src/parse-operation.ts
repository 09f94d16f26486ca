import { childState, expectedTxnState, withCanonicalState } from "./states.js";
import type { OperationKind, OperationResult, OperationWebhook } from "./types.js";
import { OPTIONAL, type Table, validate } from "./validate.js";

export const OPERATIONS: readonly OperationKind[] = ["capture", "refund", "void"];
const RESULTS: readonly OperationResult[] = ["success", "queued", "rejected"];
export const SOURCES = ["input", "pg"];
/** The child transaction's fields, in an operation's `txn` and a payment's `transactions`. */
export const CHILD: Table = {
  session_id: "s",
  order_no: "s128",
  amount: "d",
  currency_code: "c",
  state: "x",
};

// The contract's operation payload, field by field (see Rule in validate.ts for the notation).
const OPERATION: Table = {
  event: "n?",
  amount: "d",
  initiator: {
    [OPTIONAL]: true,
    id: "i",
    first_name: "s32?",
    last_name: "s32?",
    username: "u150",
    email: "s254",
    phone: "s128?",
  },
  is_sandbox: "b",
  operation: OPERATIONS,
  order_no: "s128?",
  pg_code: "s",
  pg_response: "o",
  reference_number: "s",
  result: RESULTS,
  session_id: "s",
  signature: "s",
  source: SOURCES,
  success: "b",
  timestamp_utc: "t",
  txn: CHILD,
};

/**
 * Validates an operation webhook payload against every rule of the contract and returns it
 * typed, discriminated by `result`, with `txn.state` normalised (`refund-queued` →
 * `refund_queued`, `captured` → `paid`). It never modifies `value`: it returns `value` itself
 * when nothing needed normalising, else a copy. It does not check the signature: use
 * {@link verifyWebhook} on a request, this on a payload you already trust.
 *
 * @throws WebhookVerificationError `invalid_payload`, listing every broken rule in `issues`.
 * @example
 * const op = parseOperationWebhook(JSON.parse(archivedBody));
 * if (op.result === "success") console.log(op.txn.state); // "paid" | "refunded" | "voided"
 */
export function parseOperationWebhook(value: unknown): OperationWebhook {
  const op = validate(value, OPERATION, (p, issues) => {
    const { operation, result, success, txn } = p as Partial<Record<string, unknown>> & {
      txn?: { state?: unknown };
    };
    // Cross-field rules, checked when `result` is a known value.
    if (RESULTS.includes(result as OperationResult)) {
      if (success === (result !== "success"))
        issues.push(`success: must be ${!success} when result is ${result}`);
      const raw = txn?.state;
      const state = childState(raw);
      if (
        state &&
        OPERATIONS.includes(operation as OperationKind) &&
        state !== expectedTxnState(operation as OperationKind, result as OperationResult)
      ) {
        issues.push(`txn.state: ${raw} does not match a ${operation} with result ${result}`);
      }
    }
  }) as unknown as OperationWebhook;
  const txn = withCanonicalState(op.txn);
  return txn === op.txn ? op : ({ ...op, txn } as OperationWebhook);
}
