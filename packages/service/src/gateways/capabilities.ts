/**
 * What each gateway kind can do. The service builds a transaction's `payment_methods` from these
 * tables, and the sandbox server enforces the same tables, so the two cannot disagree.
 */
import type { FormOfPayment, GatewayKind, Operation } from "@svc/protocol";

export interface GatewayCapabilities {
  readonly formsOfPayment: readonly FormOfPayment[];
  readonly operations: readonly Operation[];
  /** True when operations answer `queued` and the final result arrives as a notification. */
  readonly queued: boolean;
}

export const GATEWAY_CAPABILITIES: Readonly<Record<GatewayKind, GatewayCapabilities>> = {
  sandbox: {
    formsOfPayment: ["svc_pg", "token_pay", "wallet_a_pay", "wallet_b_pay"],
    operations: ["refund", "capture", "void"],
    queued: false,
  },
  "sandbox-queued": {
    formsOfPayment: ["svc_pg", "redirect"],
    operations: ["refund", "capture", "void"],
    queued: true,
  },
  ndebit: {
    formsOfPayment: ["redirect"],
    operations: ["refund"],
    queued: false,
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

/** Whether `kind` answers operations `queued`. */
export function isQueued(kind: GatewayKind): boolean {
  return GATEWAY_CAPABILITIES[kind].queued;
}
