import { childState, expectedTxnState } from "./states.js";
import { OPERATION_FIELDS, OPERATIONS, RESULTS } from "./payloads.js";
import type { OperationKind, OperationResult, OperationWebhook, TxnState } from "./types.js";
import { validate } from "./validate.js";

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
  // txn.state spelled canonically (`childState`), read once: for the rule below and the result.
  let state: TxnState | false | undefined;
  const op = validate(value, OPERATION_FIELDS, (p, issues) => {
    const { operation, result, success, txn } = p as Partial<Record<string, unknown>> & {
      txn?: { state?: unknown };
    };
    const raw = txn?.state;
    state = childState(raw);
    // Cross-field rules, checked when `result` is a known value.
    if (RESULTS.includes(result as OperationResult)) {
      if (success === (result !== "success"))
        issues.push(`success: must be ${!success} when result is ${result}`);
      if (
        state &&
        OPERATIONS.includes(operation as OperationKind) &&
        state !== expectedTxnState(operation as OperationKind, result as OperationResult)
      ) {
        issues.push(`txn.state: ${raw} does not match a ${operation} with result ${result}`);
      }
    }
  }) as unknown as OperationWebhook;
  return state === op.txn.state ? op : ({ ...op, txn: { ...op.txn, state } } as OperationWebhook);
}
