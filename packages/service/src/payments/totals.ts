/**
 * A parent's totals, derived from its state and its children (never stored, so they cannot drift).
 * - captured: money taken — the whole amount of a paid purchase, or the successful captures of an authorisation;
 * - refunded / voided: successful refunds / voids;
 * - capturable: what an authorisation still allows to capture (amount − captured − voided − captures queued);
 * - refundable: captured − refunded − refunds queued;
 * - remaining: capturable + refundable, what the merchant can still act on.
 * Reservations (`<operation>_pending`: the gateway is being asked right now) count like queued
 * operations, so concurrent requests can never promise the same money twice.
 */
import type { ChildRow } from "./payments.repo.js";

export interface Totals {
  captured: number;
  refunded: number;
  voided: number;
  capturable: number;
  refundable: number;
  remaining: number;
}

type Child = Pick<ChildRow, "operation" | "state" | "amount_minor">;

function sum(children: Child[], operation: Child["operation"], states: string[]): number {
  return children
    .filter((c) => c.operation === operation && states.includes(c.state))
    .reduce((a, c) => a + c.amount_minor, 0);
}

/** `children` may be rows or sums of rows by operation and state: only amounts are added up. */
export function deriveTotals(parent: { state: string; amount_minor: number }, children: Child[]): Totals {
  const captured =
    parent.state === "paid"
      ? parent.amount_minor
      : parent.state === "authorized"
        ? sum(children, "capture", ["paid"])
        : 0;
  const refunded = sum(children, "refund", ["refunded"]);
  const voided = sum(children, "void", ["voided"]);
  const capturable =
    parent.state === "authorized"
      ? Math.max(
          0,
          parent.amount_minor -
            captured -
            voided -
            sum(children, "capture", ["capture_queued", "capture_pending"]) -
            sum(children, "void", ["void_queued", "void_pending"]),
        )
      : 0;
  const refundable = Math.max(
    0,
    captured - refunded - sum(children, "refund", ["refund_queued", "refund_pending"]),
  );
  return { captured, refunded, voided, capturable, refundable, remaining: capturable + refundable };
}
