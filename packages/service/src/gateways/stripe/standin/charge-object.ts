/** Charges as Stripe reports a card payment attempt: succeeded (authorised) or failed (declined). */
import type Stripe from "stripe";
import type { Decline } from "./cards.js";
import { newId } from "./ids.js";

/** Stripe's seller messages (Charge.outcome) for an approval and for an issuer's decline. */
const APPROVED_SELLER_MESSAGE = "Payment complete.";
const GENERIC_DECLINE_SELLER_MESSAGE = "The bank did not return any further details with this decline.";

function outcomeFor(decline: Decline | undefined): Stripe.Charge.Outcome {
  if (!decline)
    return {
      advice_code: null,
      network_advice_code: null,
      network_decline_code: null,
      network_status: "approved_by_network",
      reason: null,
      risk_level: "normal",
      risk_score: 32,
      seller_message: APPROVED_SELLER_MESSAGE,
      type: "authorized",
    };
  return {
    advice_code: null,
    network_advice_code: null,
    network_decline_code: null,
    network_status: "declined_by_network",
    reason: decline.declineCode,
    risk_level: "normal",
    risk_score: 42,
    seller_message:
      decline.declineCode === "generic_decline"
        ? GENERIC_DECLINE_SELLER_MESSAGE
        : `The bank returned the decline code \`${decline.declineCode}\`.`,
    type: "issuer_declined",
  };
}

/**
 * The Charge of one attempt on `paymentIntent` with `paymentMethod`; `decline` makes it failed.
 * An approved manual-capture charge is `captured: false` until the PaymentIntent is captured.
 */
export function newCharge(
  paymentIntent: Stripe.PaymentIntent,
  paymentMethod: Stripe.PaymentMethod,
  decline: Decline | undefined,
): Stripe.Charge {
  const card = paymentMethod.card;
  const captured = !decline && paymentIntent.capture_method !== "manual";
  return {
    id: newId("ch"),
    object: "charge",
    amount: paymentIntent.amount,
    amount_captured: captured ? paymentIntent.amount : 0,
    amount_refunded: 0,
    application: null,
    application_fee: null,
    application_fee_amount: null,
    balance_transaction: captured ? newId("txn") : null,
    billing_details: paymentMethod.billing_details,
    calculated_statement_descriptor: "SVC STAND-IN",
    captured,
    created: Math.floor(Date.now() / 1000),
    currency: paymentIntent.currency,
    customer: null,
    description: paymentIntent.description,
    disputed: false,
    failure_balance_transaction: null,
    failure_code: decline?.code ?? null,
    failure_message: decline?.message ?? null,
    fraud_details: {},
    livemode: false,
    metadata: { ...paymentIntent.metadata },
    on_behalf_of: null,
    outcome: outcomeFor(decline),
    paid: !decline,
    payment_intent: paymentIntent.id,
    payment_method: paymentMethod.id,
    payment_method_details: {
      card: {
        amount_authorized: decline ? null : paymentIntent.amount,
        authorization_code: decline ? null : "123456",
        brand: card?.brand ?? null,
        checks: card?.checks ?? null,
        country: card?.country ?? null,
        electronic_commerce_indicator: null,
        exp_month: card?.exp_month ?? 0,
        exp_year: card?.exp_year ?? 0,
        fingerprint: card?.fingerprint ?? null,
        funding: card?.funding ?? null,
        installments: null,
        last4: card?.last4 ?? null,
        mandate: null,
        network: card?.brand ?? null,
        network_transaction_id: decline ? null : newId("ntid"),
        regulated_status: "unregulated",
        three_d_secure: null,
        transaction_link_id: null,
        wallet: null,
      },
      type: "card",
    },
    receipt_email: paymentIntent.receipt_email,
    receipt_number: null,
    receipt_url: null,
    refunded: false,
    review: null,
    shipping: null,
    source: null,
    source_transfer: null,
    statement_descriptor: paymentIntent.statement_descriptor,
    statement_descriptor_suffix: paymentIntent.statement_descriptor_suffix,
    status: decline ? "failed" : "succeeded",
    transfer_data: null,
    transfer_group: null,
  };
}
