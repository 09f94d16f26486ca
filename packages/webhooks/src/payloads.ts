// The one description of each payload the svc service sends. Everything else is derived from
// these tables: the validator checks them (validate.ts), the public types are inferred from them
// (types.ts, `FieldsOf`), the service's OpenAPI webhook schemas are generated from them
// (`payloadJsonSchema` in schema.ts) and the tests' expected keys are read from them. Field names
// are the wire names. The notation of a rule is described at `Rule` in validate.ts; the JSDoc on
// a field is what editors show on the matching property of the public type.

import { OPTIONAL, type Table } from "./validate.js";

/** The operations on a payment: capture adds money, refund and void deduct it. */
export const OPERATIONS = ["capture", "refund", "void"] as const;
/** Outcomes of an operation: `rejected` always follows an earlier `queued`. */
export const RESULTS = ["success", "queued", "rejected"] as const;
/** `input`: dashboard or API; `pg`: done on the gateway's own dashboard. */
export const SOURCES = ["input", "pg"] as const;

/**
 * The child transaction's fields, in an operation's `txn` and a payment's `transactions`.
 *
 * @example
 * Object.keys(CHILD_FIELDS); // ["session_id", "order_no", "amount", "currency_code", "state"]
 */
export const CHILD_FIELDS = {
  /** The child's own session id. */
  session_id: "s",
  /** The parent's order_no, or the operation's reference_number when the parent has none. */
  order_no: "s128",
  /** Decimal string with the currency's exponent, e.g. "10.50". */
  amount: "d",
  /** ISO 4217 code, three uppercase letters. */
  currency_code: "c",
  state: "x",
} as const satisfies Table;

/**
 * The contract's operation payload, field by field.
 *
 * @example
 * OPERATION_FIELDS.order_no; // "s128?": an optional non-empty string of at most 128 characters
 */
export const OPERATION_FIELDS = {
  /** Never present: a payload with `event` is not an operation webhook. */
  event: "n?",
  /** Amount of the operation: decimal string in the parent's currency. */
  amount: "d",
  /** The dashboard user who made the operation; absent for private-key API calls and gateways. */
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
  /**
   * The payment's metadata (string values): only to endpoints that opted in (`include_metadata`)
   * and only when the payment has some; never to the general and plugin URLs.
   */
  metadata: "m?",
  operation: OPERATIONS,
  /** The parent's order_no; absent when the parent has none. */
  order_no: "s128?",
  pg_code: "s",
  /** The gateway's raw response; non-JSON replies arrive as `{ raw: "…" }`. */
  pg_response: "o",
  /** Unique per operation; the same on the queued notice and its final result. */
  reference_number: "s",
  result: RESULTS,
  /** The parent's session id. */
  session_id: "s",
  /** Hex HMAC-SHA256 of the canonical payload; checked by verifyWebhook. */
  signature: "s",
  /** `input`: dashboard or API; `pg`: done on the gateway's own dashboard. */
  source: SOURCES,
  success: "b",
  /** Time of the operation, UTC, `YYYY-MM-DD HH:MM:SS`. */
  timestamp_utc: "t",
  txn: CHILD_FIELDS,
} as const satisfies Table;

/**
 * One child of a payment, as in the Payment Status API.
 *
 * @example
 * PAYMENT_TRANSACTION_FIELDS.created_at; // "z": ISO 8601 UTC
 */
export const PAYMENT_TRANSACTION_FIELDS = {
  ...CHILD_FIELDS,
  operation: OPERATIONS,
  reference_number: "s",
  source: SOURCES,
  /** ISO 8601 UTC, e.g. "2026-11-21T10:00:00Z". */
  created_at: "z",
} as const satisfies Table;

/**
 * The contract's payment payload, field by field.
 *
 * @example
 * PAYMENT_FIELDS.pg_code; // "s~": a non-empty string, or null
 */
export const PAYMENT_FIELDS = {
  event: ["payment"],
  session_id: "s",
  order_no: "s128?",
  state: ["paid", "authorized", "failed", "canceled", "expired", "attempted"],
  amount: "d",
  currency_code: "c",
  operation: ["purchase", "authorize"],
  created_via: ["api", "dashboard"],
  type: ["e_commerce", "payment_request"],
  pg_code: "s~",
  form_of_payment: "s~",
  captured_amount: "d",
  refunded_amount: "d",
  voided_amount: "d",
  remaining_amount: "d",
  is_sandbox: "b",
  pg_response: "o",
  /** The merchant's own data given at checkout (string values); absent when none was given. */
  metadata: "m?",
  timestamp_utc: "t",
  signature: "s",
  transactions: [PAYMENT_TRANSACTION_FIELDS],
} as const satisfies Table;

/**
 * The `webhook.endpoint_disabled` payload: one of the merchant's endpoints was disabled because
 * every delivery to it failed for the configured period.
 *
 * @example
 * ENDPOINT_DISABLED_FIELDS.failing_since; // "z~": ISO 8601 UTC, or null
 */
export const ENDPOINT_DISABLED_FIELDS = {
  event: ["webhook.endpoint_disabled"],
  /** The endpoint that was disabled (its `description`, possibly empty, is checked by the parser). */
  endpoint: { id: "s", url: "s" },
  reason: ["failing"],
  /** When its deliveries began to fail, ISO 8601 UTC. */
  failing_since: "z~",
  /** The last error its deliveries met. */
  last_error: "s~",
  /** When it was disabled, ISO 8601 UTC. */
  disabled_at: "z",
  timestamp_utc: "t",
  signature: "s",
} as const satisfies Table;
