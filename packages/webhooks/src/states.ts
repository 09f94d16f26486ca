import type { OperationKind, TxnState } from "./types.js";

/** {@link normaliseTxnState} of any value: false for a non-string. */
export const childState = (value: unknown) => typeof value === "string" && normaliseTxnState(value);

// Every TxnState: the three final states, and `<operation>_queued` / `<operation>_rejected`,
// here also with the hyphen the source document writes.
const TXN_STATE = /^(paid|refunded|voided|(capture|refund|void)[-_](queued|rejected))$/;

/**
 * The canonical spelling of a child transaction state, or undefined if it is not one. The
 * service sends underscores, but the source document also writes `refund-queued` and calls a
 * captured child `captured`; all of those map to one spelling so `switch` statements stay short.
 *
 * @example
 * normaliseTxnState("refund-queued"); // => "refund_queued"
 * normaliseTxnState("captured");      // => "paid"
 * normaliseTxnState("bogus");         // => undefined
 */
export function normaliseTxnState(state: string): TxnState | undefined {
  const canonical = state === "captured" ? "paid" : state;
  // Tested first, then spelled with an underscore: a state has at most one hyphen, and this costs
  // less than replacing every hyphen of every string before the test.
  return TXN_STATE.test(canonical) ? (canonical.replace("-", "_") as TxnState) : undefined;
}

/**
 * The child state an operation must have for a given result: a successful refund's child is
 * `refunded`, a queued one `refund_queued`, a rejected one `refund_rejected`.
 *
 * @example
 * expectedTxnState("capture", "success"); // => "paid"
 * expectedTxnState("void", "queued");     // => "void_queued"
 */
export function expectedTxnState(
  operation: OperationKind,
  result: "success" | "queued" | "rejected",
): TxnState {
  // A successful capture's child is paid; refund and void take "ed": refunded, voided.
  return (
    result !== "success" ? `${operation}_${result}` : operation === "capture" ? "paid" : `${operation}ed`
  ) as TxnState;
}

/** `child` with its `state` normalised: itself when already canonical, else a copy. */
export function withCanonicalState<T extends { state: string }>(child: T): T {
  const state = normaliseTxnState(child.state)!;
  return state === child.state ? child : { ...child, state };
}
