// The public payload types as they were written by hand before they were inferred from
// payloads.ts (0.1.0, plus the operation webhook's optional metadata), kept here so that `tsc`
// fails if the inferred types ever differ from them without anyone meaning it. Changing a payload
// on purpose means changing this file too.
import { describe, expectTypeOf, it } from "vitest";
import type * as Now from "./index.js";

type OperationKind = "capture" | "refund" | "void";
type OperationResult = "success" | "queued" | "rejected";
type FinalTxnState = "paid" | "refunded" | "voided";
type QueuedTxnState = "capture_queued" | "refund_queued" | "void_queued";
type RejectedTxnState = "capture_rejected" | "refund_rejected" | "void_rejected";
type TxnState = FinalTxnState | QueuedTxnState | RejectedTxnState;

interface Initiator {
  id: number;
  first_name?: string;
  last_name?: string;
  username: string;
  email: string;
  phone?: string;
}

interface OperationTxn<S extends TxnState = TxnState> {
  amount: string;

  currency_code: string;

  order_no: string;

  session_id: string;
  state: S;
}

interface OperationWebhookBase {
  amount: string;
  initiator?: Initiator;
  is_sandbox: boolean;
  // Added since 0.1.0: the operation webhook to endpoints with include_metadata carries it.
  metadata?: Record<string, string>;
  operation: OperationKind;

  order_no?: string;
  pg_code: string;

  pg_response: Record<string, unknown>;

  reference_number: string;

  session_id: string;

  signature: string;

  source: "input" | "pg";

  timestamp_utc: string;
}

interface OperationSucceeded extends OperationWebhookBase {
  result: "success";
  success: true;
  txn: OperationTxn<FinalTxnState>;
}
interface OperationQueued extends OperationWebhookBase {
  result: "queued";
  success: false;
  txn: OperationTxn<QueuedTxnState>;
}
interface OperationRejected extends OperationWebhookBase {
  result: "rejected";
  success: false;
  txn: OperationTxn<RejectedTxnState>;
}

type OperationWebhook = OperationSucceeded | OperationQueued | OperationRejected;

// `attempted`: the payment.pending event (the customer is on a gateway page); added after 0.1.0.
type PaymentState = "paid" | "authorized" | "failed" | "canceled" | "expired" | "attempted";

interface PaymentTransaction {
  session_id: string;
  order_no: string;
  amount: string;
  currency_code: string;
  state: TxnState;
  operation: OperationKind;
  reference_number: string;
  source: "input" | "pg";

  created_at: string;
}

interface PaymentWebhook {
  event: "payment";
  session_id: string;
  order_no?: string;
  state: PaymentState;
  amount: string;
  currency_code: string;
  operation: "purchase" | "authorize";
  created_via: "api" | "dashboard";
  type: "e_commerce" | "payment_request";
  pg_code: string | null;
  form_of_payment: string | null;
  captured_amount: string;
  refunded_amount: string;
  voided_amount: string;
  remaining_amount: string;
  transactions: PaymentTransaction[];
  is_sandbox: boolean;
  pg_response: Record<string, unknown>;

  metadata?: Record<string, string>;
  timestamp_utc: string;
  signature: string;
}

type WebhookPayload = OperationWebhook | PaymentWebhook;

// Added after 0.1.0: any other authentic event (svc's notices, a newer service's events) is
// returned as "other" rather than refused.
type WebhookEvent =
  | { type: "operation"; id: string; timestamp: number; payload: OperationWebhook }
  | { type: "payment"; id: string; timestamp: number; payload: PaymentWebhook }
  | { type: "other"; event: string; id: string; timestamp: number; payload: Record<string, unknown> };

describe("public payload types inferred from payloads.ts", () => {
  // Checked by tsc (npx tsc -p packages/webhooks/tsconfig.json), not at run time.
  it('are exactly the 0.1.0 types (WebhookEvent with its later "other")', () => {
    expectTypeOf<Now.OperationKind>().toEqualTypeOf<OperationKind>();
    expectTypeOf<Now.OperationResult>().toEqualTypeOf<OperationResult>();
    expectTypeOf<Now.TxnState>().toEqualTypeOf<TxnState>();
    expectTypeOf<Now.Initiator>().toEqualTypeOf<Initiator>();
    expectTypeOf<Now.OperationTxn>().toEqualTypeOf<OperationTxn>();
    expectTypeOf<Now.OperationTxn<"paid">>().toEqualTypeOf<OperationTxn<"paid">>();
    expectTypeOf<Now.OperationSucceeded>().toEqualTypeOf<OperationSucceeded>();
    expectTypeOf<Now.OperationQueued>().toEqualTypeOf<OperationQueued>();
    expectTypeOf<Now.OperationRejected>().toEqualTypeOf<OperationRejected>();
    expectTypeOf<Now.OperationWebhook>().toEqualTypeOf<OperationWebhook>();
    expectTypeOf<Now.PaymentState>().toEqualTypeOf<PaymentState>();
    expectTypeOf<Now.PaymentTransaction>().toEqualTypeOf<PaymentTransaction>();
    expectTypeOf<Now.PaymentWebhook>().toEqualTypeOf<PaymentWebhook>();
    expectTypeOf<Now.WebhookPayload>().toEqualTypeOf<WebhookPayload>();
    expectTypeOf<Now.WebhookEvent>().toEqualTypeOf<WebhookEvent>();
  });
});
