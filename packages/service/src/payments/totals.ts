/**
 * A parent's totals, derived from its state and its children (never stored, so they cannot drift).
 * - captured: money taken — the whole amount of a paid purchase, or the successful captures of an authorisation;
 * - refunded / voided: successful refunds / voids;
 * - capturable: what an authorisation still allows to capture (amount − captured − voided − captures queued),
 *   and nothing once a capture is done or in flight where the gateway captures once (Stripe: a
 *   capture of part of it releases the rest);
 * - refundable: captured − refunded − refunds queued;
 * - remaining: capturable + refundable, what the merchant can still act on.
 * Reservations (`<operation>_pending`: the gateway is being asked right now) count like queued
 * operations, so concurrent requests can never promise the same money twice.
 * Every derived amount is clamped at 0: a gateway's own operation is judged against settled
 * money only ({@link deriveSettledTotals}), so for a moment the gateway's facts plus svc's
 * requests still in flight can exceed what was captured, until the gateway declines the latter.
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
export function deriveTotals(
  parent: { state: string; amount_minor: number; captures_once?: boolean },
  children: Child[],
): Totals {
  const captured =
    parent.state === "paid"
      ? parent.amount_minor
      : parent.state === "authorized"
        ? sum(children, "capture", ["paid"])
        : 0;
  const refunded = sum(children, "refund", ["refunded"]);
  const voided = sum(children, "void", ["voided"]);
  const captureTaken =
    parent.captures_once === true &&
    sum(children, "capture", ["paid", "capture_queued", "capture_pending"]) > 0;
  const capturable =
    parent.state === "authorized" && !captureTaken
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

/**
 * What a gateway that captures an authorization once (Stripe) released when part of it was
 * captured: the amount less what was captured, once a capture succeeded. 0 elsewhere: any other
 * gateway keeps the rest capturable, and before a capture nothing is released.
 */
export function releasedByCapture(
  parent: { state: string; amount_minor: number; captures_once?: boolean },
  children: Child[],
): number {
  if (parent.captures_once !== true || parent.state !== "authorized") return 0;
  const captured = sum(children, "capture", ["paid"]);
  return captured > 0 ? Math.max(0, parent.amount_minor - captured) : 0;
}

/** The state an operation ends in when the gateway did it. */
const SETTLED_STATE: Record<Child["operation"], string> = {
  capture: "paid",
  refund: "refunded",
  void: "voided",
};

/**
 * The totals of what is done: captured money and successful children only, without operations
 * queued at the gateway or in flight to it. A gateway's report of an operation it already did is
 * judged against these (operations/gateway-notifications.ts): svc's requests still on their way
 * may yet be declined by the gateway, and queued ones may yet be rejected, so neither is money
 * the gateway's fact can be said to collide with.
 */
export function deriveSettledTotals(
  parent: { state: string; amount_minor: number; captures_once?: boolean },
  children: Child[],
): Totals {
  return deriveTotals(
    parent,
    children.filter((c) => c.state === SETTLED_STATE[c.operation]),
  );
}
