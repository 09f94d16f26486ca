/** Parent transaction states (a payment's life before any operation). */
export const PARENT_STATES = [
  "created",
  "pending",
  "attempted",
  "authorized",
  "paid",
  "failed",
  "canceled",
  "expired",
] as const;
export type ParentState = (typeof PARENT_STATES)[number];

/** States a parent never leaves. */
export const FINAL_PARENT_STATES: readonly ParentState[] = [
  "authorized",
  "paid",
  "failed",
  "canceled",
  "expired",
];

/** Child (operation) states, spelled as on the wire. */
export const CHILD_STATES = [
  "paid",
  "refunded",
  "voided",
  "refund_queued",
  "capture_queued",
  "void_queued",
  "refund_rejected",
  "capture_rejected",
  "void_rejected",
] as const;
export type ChildState = (typeof CHILD_STATES)[number];

export const OPERATIONS = ["refund", "capture", "void"] as const;
export type Operation = (typeof OPERATIONS)[number];

export const TRANSACTION_TYPES = ["e_commerce", "payment_request"] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

export const PAYMENT_OPERATIONS = ["purchase", "authorize"] as const;
export type PaymentOperation = (typeof PAYMENT_OPERATIONS)[number];

/** Forms of payment as they appear on the wire and in SDK callback data. */
export const FORMS_OF_PAYMENT = ["wallet_a_pay", "wallet_b_pay", "svc_pg", "token_pay", "redirect"] as const;
export type FormOfPayment = (typeof FORMS_OF_PAYMENT)[number];

export const LANGUAGES = ["en", "ar"] as const;
export type Language = (typeof LANGUAGES)[number];

export const PERMISSIONS = [
  "payment.create",
  "payment.refund",
  "payment.capture",
  "payment.void",
  "payment.view",
  "webhooks.manage",
  "gateways.manage",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** The sandbox gateway kinds: svc's own test gateways (real-time, queued, national debit card). */
export const SANDBOX_GATEWAY_KINDS = ["sandbox", "sandbox-queued", "ndebit"] as const;
export type SandboxGatewayKind = (typeof SANDBOX_GATEWAY_KINDS)[number];
/** The gateway kinds a gateway setting (`pg_code`) can point at: the sandboxes and the real connectors. */
export const GATEWAY_KINDS = [...SANDBOX_GATEWAY_KINDS, "knet", "stripe"] as const;
export type GatewayKind = (typeof GATEWAY_KINDS)[number];
