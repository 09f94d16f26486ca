/**
 * The rules of refund, capture and void on a parent, checked against totals derived from its
 * children (reservations included). Returns the amount to operate on, in minor units, or throws
 * the AppError the API answers with. Pure: no I/O, so every rule is tested directly.
 */
import { formatAmount, type Operation, parseAmount } from "@svc/protocol";
import { AppError, validationError } from "../http/problem.js";
import type { Totals } from "../payments/totals.js";
import type { ChildSum } from "./operations.repo.js";

export interface RuleInput {
  operation: Operation;
  /** Wire amount as sent; undefined = all that remains. */
  amount?: string | undefined;
  currencyCode?: string | undefined;
}

export interface ParentFacts {
  state: string;
  currency_code: string;
  /** Captures queued at the gateway or being asked for right now (they forbid a void). */
  captures_in_flight: number;
  /** Its gateway captures an authorization once (a capture of part of it releases the rest). */
  captures_once?: boolean | undefined;
}

export function operationAmount(parent: ParentFacts, totals: Totals, input: RuleInput): number {
  const currency = parent.currency_code;
  const money = (minor: number) => `${formatAmount(minor, currency)} ${currency}`;
  if (input.currencyCode !== undefined && input.currencyCode !== currency) {
    throw new AppError(
      "currency_mismatch",
      `Operations work only in the parent's currency: send ${currency} (or omit currency_code), not ${input.currencyCode}.`,
    );
  }
  let requested: number | undefined;
  if (input.amount !== undefined) {
    const parsed = parseAmount(input.amount, currency);
    if (!parsed.ok) throw validationError({ amount: [parsed.message] });
    requested = parsed.minor;
  }
  switch (input.operation) {
    case "capture": {
      if (parent.state !== "authorized")
        throw new AppError(
          "invalid_state_for_operation",
          `Capture works only on an authorized payment; this one is ${parent.state}.`,
        );
      if (totals.capturable === 0)
        throw new AppError(
          "amount_exceeds_capturable",
          parent.captures_once && (totals.captured > 0 || parent.captures_in_flight > 0)
            ? "This gateway captures an authorization once, and this one has a capture done or in progress: the rest is released with it, so nothing more can be captured."
            : "Nothing is left to capture on this authorization (captured, voided or queued already).",
        );
      if (requested !== undefined && requested > totals.capturable)
        throw new AppError(
          "amount_exceeds_capturable",
          `At most ${money(totals.capturable)} can still be captured; lower the amount.`,
        );
      return requested ?? totals.capturable;
    }
    case "void": {
      if (parent.state !== "authorized")
        throw new AppError(
          "invalid_state_for_operation",
          `Void works only on an authorized payment; this one is ${parent.state}. Refund a paid payment instead.`,
        );
      if (totals.captured > 0 || parent.captures_in_flight > 0)
        throw new AppError(
          "invalid_state_for_operation",
          "Void works only while nothing is captured (or being captured); refund the captured money instead.",
        );
      if (totals.capturable === 0)
        throw new AppError(
          "invalid_state_for_operation",
          "This authorization is already voided (or a void is in progress).",
        );
      if (requested !== undefined && requested !== totals.capturable)
        throw validationError({
          amount: [
            `a void always releases the whole remaining authorization (${money(totals.capturable)}); omit amount`,
          ],
        });
      return totals.capturable;
    }
    case "refund": {
      const paid = parent.state === "paid" || (parent.state === "authorized" && totals.captured > 0);
      if (!paid)
        throw new AppError(
          "invalid_state_for_operation",
          `Refund works only on a paid payment or captured money; this one is ${parent.state}${parent.state === "authorized" ? " with nothing captured (void it instead)" : ""}.`,
        );
      if (totals.refundable === 0)
        throw new AppError(
          "amount_exceeds_refundable",
          "Nothing is left to refund: everything paid is refunded or queued for refund.",
        );
      if (requested !== undefined && requested > totals.refundable)
        throw new AppError(
          "amount_exceeds_refundable",
          `At most ${money(totals.refundable)} can still be refunded; lower the amount.`,
        );
      return requested ?? totals.refundable;
    }
  }
}

/** Captures queued at the gateway or being asked for now, from the children's sums (they forbid a void). */
export function capturesInFlight(sums: readonly ChildSum[]): number {
  return sums
    .filter(
      (c) => c.operation === "capture" && (c.state === "capture_queued" || c.state === "capture_pending"),
    )
    .reduce((n, c) => n + c.count, 0);
}

/** The child's state after the gateway's answer. */
export function finalState(operation: Operation): "paid" | "refunded" | "voided" {
  return operation === "capture" ? "paid" : operation === "refund" ? "refunded" : "voided";
}
