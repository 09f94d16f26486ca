import { WebhookVerificationError } from "./errors.js";
import { expectedTxnState, normaliseTxnState } from "./states.js";
import type { Initiator, OperationWebhook } from "./types.js";
import {
  bool,
  currency,
  decimal,
  type Issues,
  integer,
  isRecord,
  object,
  oneOf,
  str,
  timestampUtc,
} from "./validate.js";

// Django's default username rule, which the seed's "letters, digits and @ . + - _" describes.
const USERNAME = /^[\p{L}\p{M}\p{N}@.+\-_]+$/u;

function checkInitiator(issues: Issues, value: unknown): Initiator | undefined {
  if (!isRecord(value)) {
    issues.push("initiator: expected an object");
    return undefined;
  }
  const p = "initiator";
  integer(issues, value, "id", p);
  str(issues, value, "first_name", p, { optional: true, max: 32 });
  str(issues, value, "last_name", p, { optional: true, max: 32 });
  str(issues, value, "username", p, {
    max: 150,
    pattern: USERNAME,
    expected: "only letters, digits and @ . + - _",
  });
  str(issues, value, "email", p, { max: 254 });
  str(issues, value, "phone", p, { optional: true, max: 128 });
  return value as unknown as Initiator;
}

/**
 * Validates an operation webhook payload against every rule of the contract and returns it
 * typed, discriminated by `result`, with `txn.state` normalised (`refund-queued` →
 * `refund_queued`, `captured` → `paid`). It does not check the signature: use
 * {@link verifyWebhook} on a request, this on a payload you already trust.
 *
 * @throws WebhookVerificationError `invalid_payload`, listing every broken rule in `issues`.
 * @example
 * const op = parseOperationWebhook(JSON.parse(archivedBody));
 * if (op.result === "success") console.log(op.txn.state); // "paid" | "refunded" | "voided"
 */
export function parseOperationWebhook(value: unknown): OperationWebhook {
  const issues: Issues = [];
  if (!isRecord(value)) throw invalid(["payload: expected a JSON object"]);
  if ("event" in value)
    issues.push(`event: an operation webhook has no event key, got ${String(value.event)}`);
  decimal(issues, value, "amount", "");
  if (value.initiator !== undefined) checkInitiator(issues, value.initiator);
  bool(issues, value, "is_sandbox", "");
  const operation = oneOf(issues, value, "operation", "", ["capture", "refund", "void"] as const);
  str(issues, value, "order_no", "", { optional: true });
  str(issues, value, "pg_code", "");
  object(issues, value, "pg_response", "");
  str(issues, value, "reference_number", "");
  const result = oneOf(issues, value, "result", "", ["success", "queued", "rejected"] as const);
  str(issues, value, "session_id", "");
  str(issues, value, "signature", "");
  oneOf(issues, value, "source", "", ["input", "pg"] as const);
  const success = bool(issues, value, "success", "");
  if (result !== undefined && success !== undefined && success !== (result === "success")) {
    issues.push(`success: must be ${result === "success"} when result is ${result}`);
  }
  timestampUtc(issues, value, "timestamp_utc", "");
  const txn = object(issues, value, "txn", "");
  let state: string | undefined;
  if (txn) {
    decimal(issues, txn, "amount", "txn");
    currency(issues, txn, "currency_code", "txn");
    str(issues, txn, "order_no", "txn", { max: 128 });
    str(issues, txn, "session_id", "txn");
    const raw = str(issues, txn, "state", "txn");
    if (raw !== undefined) {
      state = normaliseTxnState(raw);
      if (state === undefined) issues.push(`txn.state: unknown state ${JSON.stringify(raw)}`);
      else if (operation && result && state !== expectedTxnState(operation, result)) {
        issues.push(`txn.state: ${raw} does not match a ${operation} with result ${result}`);
      }
    }
  }
  if (issues.length > 0) throw invalid(issues);
  return { ...value, txn: { ...txn, state } } as unknown as OperationWebhook;
}

export function invalid(issues: string[]): WebhookVerificationError {
  return new WebhookVerificationError(
    "invalid_payload",
    `The webhook payload is authentic but does not follow the contract (${issues.join("; ")}). ` +
      "Answering 400 makes the sender record the failure; upgrade @svc/webhooks if the service is newer.",
    issues,
  );
}
