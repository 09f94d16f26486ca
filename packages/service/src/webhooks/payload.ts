/**
 * The operation and payment webhook payloads, built from stored rows at commit time. The
 * `signature` field is computed here, once, with @svc/webhooks (so signing and verifying cannot
 * drift apart); the Standard Webhooks headers are computed per attempt by the worker.
 */
import { formatAmount } from "@svc/protocol";
import type { OperationWebhook, PaymentWebhook } from "@svc/webhooks";
import { signPayload } from "@svc/webhooks/sign";
import type { TransactionRow } from "../payments/transactions.repo.js";
import type { InitiatorRecord, OperationRow } from "../operations/operations.repo.js";
import type { ChildRow } from "../payments/payments.repo.js";
import { deriveTotals } from "../payments/totals.js";
import { transactionsOf } from "../payments/transactions.js";

/** `YYYY-MM-DD HH:MM:SS` in UTC, the seed's `timestamp_utc` format. */
export function timestampUtc(date: Date): string {
  return date.toISOString().slice(0, 19).replace("T", " ");
}

/** Every gateway kind svc ships today is a sandbox; a real adapter will say false here. */
export function isSandboxGateway(_pgCode: string | null): boolean {
  return true;
}

/** The initiator within the seed's limits; optional fields are omitted when empty. */
export function initiatorOf(record: InitiatorRecord): NonNullable<OperationWebhook["initiator"]> {
  const optional = (value: string | null | undefined, max: number) =>
    value ? value.slice(0, max) : undefined;
  const first = optional(record.first_name, 32);
  const last = optional(record.last_name, 32);
  const phone = optional(record.phone, 128);
  return {
    id: Number(record.id),
    ...(first ? { first_name: first } : {}),
    ...(last ? { last_name: last } : {}),
    username: record.username.slice(0, 150),
    email: record.email.slice(0, 254),
    ...(phone ? { phone } : {}),
  };
}

/** `result` from a child's state: final states are success, `_queued` queued, `_rejected` rejected. */
export function resultOf(state: string): "success" | "queued" | "rejected" {
  if (state.endsWith("_queued")) return "queued";
  if (state.endsWith("_rejected")) return "rejected";
  return "success";
}

/** The operation webhook payload for `child` of `parent`, signed with the merchant's newest secret. */
export async function operationPayload(
  parent: Pick<TransactionRow, "session_id" | "order_no">,
  child: OperationRow,
  secret: string,
): Promise<OperationWebhook> {
  const amount = formatAmount(child.amount_minor, child.currency_code);
  const result = resultOf(child.state);
  const payload = {
    amount,
    ...(child.initiator ? { initiator: initiatorOf(child.initiator) } : {}),
    is_sandbox: isSandboxGateway(child.pg_code),
    operation: child.operation,
    ...(parent.order_no ? { order_no: parent.order_no } : {}),
    pg_code: child.pg_code,
    pg_response: child.pg_response ?? {},
    reference_number: child.reference_number,
    result,
    session_id: parent.session_id,
    signature: "",
    source: child.source,
    success: result === "success",
    timestamp_utc: timestampUtc(child.operated_at ?? child.created_at),
    txn: {
      amount,
      currency_code: child.currency_code,
      order_no: parent.order_no ?? child.reference_number,
      session_id: child.session_id,
      state: child.state,
    },
  } as OperationWebhook;
  payload.signature = secret ? await signPayload(payload, secret) : "";
  return payload;
}

/** The payment webhook payload: the parent's outcome with its totals and `transactions`. */
export async function paymentPayload(
  parent: TransactionRow,
  children: ChildRow[],
  at: Date,
  secret: string,
): Promise<PaymentWebhook> {
  const totals = deriveTotals(parent, children);
  const money = (minor: number) => formatAmount(minor, parent.currency_code);
  const payload = {
    event: "payment",
    session_id: parent.session_id,
    ...(parent.order_no ? { order_no: parent.order_no } : {}),
    state: parent.state,
    amount: money(parent.amount_minor),
    currency_code: parent.currency_code,
    operation: parent.operation,
    created_via: parent.created_via,
    type: parent.type,
    pg_code: parent.pg_code,
    form_of_payment: parent.form_of_payment,
    captured_amount: money(totals.captured),
    refunded_amount: money(totals.refunded),
    voided_amount: money(totals.voided),
    remaining_amount: money(totals.remaining),
    transactions: transactionsOf(parent, children),
    is_sandbox: isSandboxGateway(parent.pg_code),
    pg_response: parent.pg_response ?? {},
    timestamp_utc: timestampUtc(at),
    signature: "",
  } as PaymentWebhook;
  payload.signature = await signPayload(payload, secret);
  return payload;
}
