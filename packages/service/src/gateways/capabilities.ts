/**
 * What each gateway kind can do. The service builds a transaction's `payment_methods` from these
 * tables, and the sandbox server enforces the same tables, so the two cannot disagree.
 */
import type { FormOfPayment, GatewayKind, Operation } from "@svc/protocol";
import { KNET_MAX_FILS, knetAmount } from "./knet/fields.js";
import { stripeAmountProblem } from "./stripe/currency.js";

export interface GatewayCapabilities {
  readonly formsOfPayment: readonly FormOfPayment[];
  readonly operations: readonly Operation[];
  /** True when operations answer `queued` and the final result arrives as a notification. */
  readonly queued: boolean;
  /**
   * True when svc can ask the gateway what became of an operation whose answer was lost, and
   * send it again under the same reference (the gateway's idempotency key) if it never arrived.
   * False (KNET: no idempotency, no status query): such an operation is never sent again; it
   * waits, unknown, for an operator to settle it by hand (docs/operations.md, "Discrepancies").
   */
  readonly recoversOperations: boolean;
  /**
   * True when an authorization is captured once: a capture of part of it releases the rest
   * (Stripe's PaymentIntents). svc then shows nothing more as capturable once a capture is done
   * or in flight, and refuses a second capture itself instead of sending it to be declined.
   */
  readonly capturesOnce: boolean;
}

export const GATEWAY_CAPABILITIES: Readonly<Record<GatewayKind, GatewayCapabilities>> = {
  sandbox: {
    formsOfPayment: ["svc_pg", "token_pay", "wallet_a_pay", "wallet_b_pay"],
    operations: ["refund", "capture", "void"],
    queued: false,
    recoversOperations: true,
    capturesOnce: false,
  },
  "sandbox-queued": {
    formsOfPayment: ["svc_pg", "redirect"],
    operations: ["refund", "capture", "void"],
    queued: true,
    recoversOperations: true,
    capturesOnce: false,
  },
  ndebit: {
    formsOfPayment: ["redirect"],
    operations: ["refund"],
    queued: false,
    recoversOperations: true,
    capturesOnce: false,
  },
  // KNET (raw integration): the customer pays on KNET's page; refunds only (KNET's purchase
  // captures at once; its authorisation action is not generally enabled).
  knet: {
    formsOfPayment: ["redirect"],
    operations: ["refund"],
    queued: false,
    recoversOperations: false,
    capturesOnce: false,
  },
  // Stripe: the card from svc's hosted card page goes to a PaymentIntent. Refunds may answer
  // `pending` (then they are queued and Stripe's events finish them); captures and voids are real-time.
  stripe: {
    formsOfPayment: ["svc_pg"],
    operations: ["refund", "capture", "void"],
    queued: false,
    recoversOperations: true,
    capturesOnce: true,
  },
};

/** Forms of payment of `kind`, in the order the checkout shows them. */
export function formsOfPaymentFor(kind: GatewayKind): readonly FormOfPayment[] {
  return GATEWAY_CAPABILITIES[kind].formsOfPayment;
}

/** Operations `kind` supports. */
export function operationsFor(kind: GatewayKind): readonly Operation[] {
  return GATEWAY_CAPABILITIES[kind].operations;
}

/** Whether an authorization at a gateway of `kind` is captured once (see GatewayCapabilities). */
export function capturesOnce(kind: GatewayKind): boolean {
  return GATEWAY_CAPABILITIES[kind].capturesOnce;
}

/** Whether `kind` answers operations `queued`. */
export function isQueued(kind: GatewayKind): boolean {
  return GATEWAY_CAPABILITIES[kind].queued;
}

/**
 * What a gateway of `kind` cannot charge (or, `operation`, refund or capture) of `minor` units
 * of `currency`, or undefined: Stripe takes three-decimal currencies in steps of 10 and ISK in
 * whole units, within its minimum charge and eight-digit maximum; KNET's amount has at most 10
 * characters.
 */
export function amountProblemFor(
  kind: GatewayKind,
  minor: number,
  currency: string,
  what: "charge" | "operation" = "charge",
): string | undefined {
  if (kind === "stripe") return stripeAmountProblem(minor, currency, what);
  if (kind === "knet" && minor > KNET_MAX_FILS) return `KNET takes at most ${knetAmount(KNET_MAX_FILS)} KWD`;
  return undefined;
}
