/** A new PaymentIntent as Stripe answers it for API version 2026-10-28.endive: every field present. */
import type Stripe from "stripe";
import { newClientSecret, newId } from "./ids.js";

export interface NewPaymentIntent {
  amount: number;
  currency: string;
  captureMethod: Stripe.PaymentIntent.CaptureMethod;
  confirmationMethod: Stripe.PaymentIntent.ConfirmationMethod;
  automaticPaymentMethods: Stripe.PaymentIntent.AutomaticPaymentMethods | null;
  allowedPaymentMethodTypes: string[] | null;
  paymentMethodTypes: string[];
  description: string | null;
  metadata: Record<string, string>;
  receiptEmail: string | null;
  setupFutureUsage: Stripe.PaymentIntent.SetupFutureUsage | null;
  statementDescriptor: string | null;
  statementDescriptorSuffix: string | null;
  customer: string | null;
}

/**
 * The PaymentIntent right after creation: `requires_payment_method`, nothing captured.
 *
 * @example
 * const pi = newPaymentIntent({ amount: 500, currency: "eur", captureMethod: "automatic", … });
 * pi.status; // "requires_payment_method"
 */
export function newPaymentIntent(input: NewPaymentIntent): Stripe.PaymentIntent {
  const id = newId("pi");
  return {
    id,
    object: "payment_intent",
    allowed_payment_method_types: input.allowedPaymentMethodTypes,
    amount: input.amount,
    amount_capturable: 0,
    amount_details: { tip: {} },
    amount_received: 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: input.automaticPaymentMethods,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: input.captureMethod,
    client_secret: newClientSecret(id),
    confirmation_method: input.confirmationMethod,
    created: Math.floor(Date.now() / 1000),
    currency: input.currency,
    customer: input.customer,
    customer_account: null,
    description: input.description,
    excluded_payment_method_types: null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    managed_payments: null,
    metadata: input.metadata,
    next_action: null,
    on_behalf_of: null,
    payment_method: null,
    payment_method_configuration_details: null,
    payment_method_options: {
      card: { installments: null, mandate_options: null, network: null, request_three_d_secure: "automatic" },
    },
    payment_method_types: input.paymentMethodTypes,
    payment_record: null,
    processing: null,
    receipt_email: input.receiptEmail,
    review: null,
    setup_future_usage: input.setupFutureUsage,
    shipping: null,
    source: null,
    statement_descriptor: input.statementDescriptor,
    statement_descriptor_suffix: input.statementDescriptorSuffix,
    status: "requires_payment_method",
    transfer_data: null,
    transfer_group: null,
  };
}
