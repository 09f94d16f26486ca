/**
 * Refunds (docs.stripe.com/api/refunds, docs.stripe.com/refunds): only of a captured charge, for
 * at most what remains unrefunded (all of it by default). Events since API version
 * 2024-10-28.acacia: `refund.created` and `charge.refunded` when made; `refund.updated`
 * (+ `refund.failed`) and `charge.refund.updated` when the status changes later. The test cards
 * of docs.stripe.com/testing#refunds make a refund pending (then succeeded) or failed later.
 */
import type Stripe from "stripe";
import { later, type StandInContext } from "./context.js";
import { checkAmount, formatMinor } from "./currencies.js";
import { invalidRequest, resourceMissing } from "./errors.js";
import type { Cause } from "./events.js";
import { newId } from "./ids.js";
import { snapshot, type AccountState, type ChargeRecord, type RefundRecord } from "./store.js";

export interface RefundInput {
  amount?: number;
  reason?: Stripe.Refund.Reason;
  metadata: Record<string, string>;
  instructionsEmail?: string;
}

/** The captured charge a refund request names (by PaymentIntent or by Charge). */
export function refundableCharge(
  account: AccountState,
  by: { paymentIntent?: string; charge?: string },
): ChargeRecord {
  if (by.charge) {
    const record = account.charges.get(by.charge);
    if (!record) throw resourceMissing("charge", by.charge, "charge");
    if (!record.charge.captured || record.charge.status !== "succeeded")
      throw invalidRequest(`Charge ${by.charge} has not been captured and cannot be refunded.`, {
        code: "charge_not_refundable",
        param: "charge",
      });
    return record;
  }
  const id = by.paymentIntent ?? "";
  const pi = account.paymentIntents.get(id);
  if (!pi) throw resourceMissing("payment_intent", id, "payment_intent");
  const charge =
    typeof pi.paymentIntent.latest_charge === "string"
      ? account.charges.get(pi.paymentIntent.latest_charge)
      : undefined;
  if (pi.paymentIntent.status !== "succeeded" || !charge)
    throw invalidRequest(`This PaymentIntent (${id}) does not have a successful charge to refund.`, {
      code: "charge_not_refundable",
      param: "payment_intent",
    });
  return charge;
}

/** Makes a refund of `chargeRecord` as Stripe would, with its events and later status changes. */
export function createRefund(
  ctx: StandInContext,
  account: AccountState,
  chargeRecord: ChargeRecord,
  input: RefundInput,
  cause: Cause,
): Stripe.Refund {
  const charge = chargeRecord.charge;
  // What was captured (all of it, or a partial capture's amount) less what was refunded.
  const remaining = charge.amount_captured - charge.amount_refunded;
  if (remaining <= 0)
    throw invalidRequest(`Charge ${charge.id} has already been refunded.`, {
      code: "charge_already_refunded",
    });
  const amount = input.amount ?? remaining;
  checkAmount(amount, charge.currency, "amount", { minimum: false });
  if (amount > remaining)
    throw invalidRequest(
      `Refund amount (${formatMinor(amount, charge.currency)}) is greater than unrefunded amount on charge (${formatMinor(remaining, charge.currency)})`,
      { param: "amount" },
    );
  const behaviour = chargeRecord.card.refunds;
  const pending = behaviour === "pending_then_succeeded";
  const refund: Stripe.Refund = {
    id: newId("re"),
    object: "refund",
    amount,
    balance_transaction: newId("txn"),
    charge: charge.id,
    created: Math.floor(Date.now() / 1000),
    currency: charge.currency,
    customer: null,
    customer_account: null,
    destination_details: {
      card: { reference_status: "pending", reference_type: "acquirer_reference_number", type: "refund" },
      type: "card",
    },
    ...(input.instructionsEmail ? { instructions_email: input.instructionsEmail } : {}),
    metadata: input.metadata,
    payment_intent: typeof charge.payment_intent === "string" ? charge.payment_intent : null,
    payment_method: charge.payment_method,
    ...(pending ? { pending_reason: "processing" as const } : {}),
    reason: input.reason ?? null,
    receipt_number: null,
    source_transfer_reversal: null,
    status: pending ? "pending" : "succeeded",
    transfer_reversal: null,
  };
  const record: RefundRecord = { refund, seq: account.nextSeq() };
  account.refunds.set(refund.id, record);
  const chargeBefore = { amount_refunded: charge.amount_refunded, refunded: charge.refunded };
  charge.amount_refunded += amount;
  charge.refunded = charge.amount_refunded === charge.amount_captured;
  ctx.events.record(account, cause, "refund.created", refund);
  ctx.events.record(account, cause, "charge.refunded", charge, chargeBefore);
  if (behaviour === "pending_then_succeeded")
    later(ctx, ctx.asyncRefundDelayMs, () => settle(ctx, account, record, "succeeded"));
  if (behaviour === "succeeded_then_failed")
    later(ctx, ctx.asyncRefundDelayMs, () => settle(ctx, account, record, "failed"));
  return snapshot(refund);
}

/** A refund's later change of status; caused by Stripe, not by a request. */
function settle(
  ctx: StandInContext,
  account: AccountState,
  record: RefundRecord,
  status: "succeeded" | "failed",
): void {
  const refund = record.refund;
  const before: Partial<Stripe.Refund> = { status: refund.status };
  if (refund.pending_reason) before.pending_reason = refund.pending_reason;
  delete refund.pending_reason;
  refund.status = status;
  const cause: Cause = { requestId: null, idempotencyKey: null };
  if (status === "failed") {
    refund.failure_reason = "expired_or_canceled_card";
    refund.failure_balance_transaction = newId("txn");
    const charge = typeof refund.charge === "string" ? account.charges.get(refund.charge)?.charge : undefined;
    if (charge) {
      // The money comes back to the account: the charge counts it as unrefunded again.
      charge.amount_refunded -= refund.amount;
      charge.refunded = false;
    }
  }
  ctx.events.record(account, cause, "refund.updated", refund, before);
  if (status === "failed") ctx.events.record(account, cause, "refund.failed", refund, before);
  ctx.events.record(account, cause, "charge.refund.updated", refund, before);
}
