// Sample payloads as the service sends them, shared by the tests.
import type { OperationWebhook, PaymentWebhook } from "../src/index.js";

export const SECRET = "whsec_ke0xMAz3XAWG7scITE7TXQoNxydpdT/+5XU7C3u+SvU=";
export const OTHER_SECRET = "whsec_C9oBlr8clEYfAhAhUM8l3o75m8uj7r1rNFrvPI+JhLs=";

/** A successful refund made by a dashboard user, unsigned. */
export function operationPayload(): Omit<OperationWebhook, "signature"> & { signature?: string } {
  return {
    amount: "10.500",
    initiator: { id: 7, first_name: "Sara", username: "sara.k+ops@shop", email: "sara@shop.example" },
    is_sandbox: true,
    operation: "refund",
    order_no: "ORD-1001",
    pg_code: "sandbox_card",
    pg_response: { code: "00", message: "Approved", nested: { list: [1, 2.5, "x", null, true] } },
    reference_number: "REF-7Q2K9",
    result: "success",
    session_id: "sess_parent_01",
    source: "input",
    success: true,
    timestamp_utc: "2026-11-21 10:00:00",
    txn: {
      amount: "10.500",
      currency_code: "KWD",
      order_no: "ORD-1001",
      session_id: "sess_child_02",
      state: "refunded",
    },
  };
}

/** A paid purchase with one refund child, unsigned. */
export function paymentPayload(): Omit<PaymentWebhook, "signature"> & { signature?: string } {
  return {
    event: "payment",
    session_id: "sess_parent_01",
    order_no: "ORD-1001",
    state: "paid",
    amount: "86.000",
    currency_code: "KWD",
    operation: "purchase",
    created_via: "api",
    type: "e_commerce",
    pg_code: "sandbox_card",
    form_of_payment: "svcPG",
    captured_amount: "86.000",
    refunded_amount: "10.500",
    voided_amount: "0.000",
    remaining_amount: "75.500",
    transactions: [
      {
        session_id: "sess_child_02",
        order_no: "ORD-1001",
        amount: "10.500",
        currency_code: "KWD",
        state: "refunded",
        operation: "refund",
        reference_number: "REF-7Q2K9",
        source: "input",
        created_at: "2026-11-21T10:00:00Z",
      },
    ],
    is_sandbox: true,
    pg_response: { code: "00" },
    timestamp_utc: "2026-11-21 09:58:12",
  };
}

/** A body of about `bytes` bytes: the operation payload with a padded gateway response. */
export function payloadOfSize(bytes: number): Record<string, unknown> {
  const base = operationPayload();
  const filler = "x".repeat(Math.max(0, bytes - JSON.stringify(base).length - 100));
  return { ...base, pg_response: { ...base.pg_response, detail: filler } };
}
