/**
 * What Stripe accepts on the PaymentIntent endpoints (docs.stripe.com/api/payment_intents), one
 * table per endpoint. Each table's keys are exactly the package's parameter type's keys (tsc
 * checks it); the stand-in models some and refuses the rest as `unmodelled`.
 */
import type Stripe from "stripe";
import { PAGINATION_FIELDS } from "./list.js";
import type { Spec } from "./params.js";

const UNMODELLED: Spec = { t: "unmodelled" };
const EXPAND: Spec = { t: "array", of: { t: "string" } };
const METADATA: Spec = { t: "metadata" };

type PaymentMethodDataKeys = keyof Stripe.PaymentIntentCreateParams.PaymentMethodData;

const ADDRESS: Record<keyof Stripe.AddressParam, Spec> = {
  city: { t: "string" },
  country: { t: "string" },
  line1: { t: "string" },
  line2: { t: "string" },
  postal_code: { t: "string" },
  state: { t: "string" },
};

const BILLING_DETAILS: Record<keyof Stripe.PaymentIntentCreateParams.PaymentMethodData.BillingDetails, Spec> =
  {
    address: { t: "object", fields: ADDRESS },
    email: { t: "string" },
    name: { t: "string" },
    phone: { t: "string" },
    tax_id: { t: "string" },
  };

/**
 * Raw card data. The package's types leave `payment_method_data[card]` out (it is for accounts
 * with raw card data access), but Stripe's API takes it; the keys are those of Stripe's card hash.
 */
const CARD: Readonly<Record<string, Spec>> = {
  number: { t: "string" },
  exp_month: { t: "integer" },
  exp_year: { t: "integer" },
  cvc: { t: "string" },
};

const OTHER_PAYMENT_METHOD_TYPES = [
  "acss_debit",
  "affirm",
  "afterpay_clearpay",
  "alipay",
  "alma",
  "amazon_pay",
  "au_becs_debit",
  "bacs_debit",
  "bancontact",
  "billie",
  "bizum",
  "blik",
  "boleto",
  "cashapp",
  "crypto",
  "customer_balance",
  "eps",
  "fpx",
  "giropay",
  "grabpay",
  "ideal",
  "interac_present",
  "kakao_pay",
  "klarna",
  "konbini",
  "kr_card",
  "link",
  "mb_way",
  "mobilepay",
  "multibanco",
  "naver_pay",
  "nz_bank_account",
  "oxxo",
  "p24",
  "pay_by_bank",
  "payco",
  "paynow",
  "paypal",
  "paypay",
  "payto",
  "pix",
  "promptpay",
  "revolut_pay",
  "samsung_pay",
  "satispay",
  "scalapay",
  "sepa_debit",
  "sequra",
  "sofort",
  "sunbit",
  "swish",
  "twint",
  "upi",
  "us_bank_account",
  "wechat_pay",
  "zip",
] as const satisfies readonly PaymentMethodDataKeys[];

export const PAYMENT_METHOD_DATA: Record<PaymentMethodDataKeys | "card", Spec> = {
  ...(Object.fromEntries(OTHER_PAYMENT_METHOD_TYPES.map((k) => [k, UNMODELLED])) as Record<
    (typeof OTHER_PAYMENT_METHOD_TYPES)[number],
    Spec
  >),
  allow_redisplay: { t: "string", enum: ["always", "limited", "unspecified"] },
  billing_details: { t: "object", fields: BILLING_DETAILS },
  card: { t: "object", fields: CARD, required: ["number", "exp_month", "exp_year"] },
  metadata: METADATA,
  radar_options: UNMODELLED,
  type: { t: "string" },
};

export const CAPTURE_METHODS = ["automatic", "automatic_async", "manual"] as const;

export const CREATE_FIELDS: Record<keyof Stripe.PaymentIntentCreateParams, Spec> = {
  amount: { t: "integer" },
  currency: { t: "string" },
  // API version 2026-10-28.endive takes allowed_payment_method_types; payment_method_types is
  // not a create parameter of this version (the package's types have no such key).
  allowed_payment_method_types: { t: "array", of: { t: "string" } },
  amount_details: UNMODELLED,
  application_fee_amount: UNMODELLED,
  automatic_payment_methods: {
    t: "object",
    fields: { enabled: { t: "boolean" }, allow_redirects: { t: "string", enum: ["always", "never"] } },
    required: ["enabled"],
  },
  capture_method: { t: "string", enum: CAPTURE_METHODS },
  confirm: { t: "boolean" },
  confirmation_method: { t: "string", enum: ["automatic", "manual"] },
  confirmation_token: UNMODELLED,
  customer: { t: "string" },
  customer_account: UNMODELLED,
  description: { t: "string", max: 1000 },
  error_on_requires_action: UNMODELLED,
  excluded_payment_method_types: UNMODELLED,
  expand: EXPAND,
  hooks: UNMODELLED,
  mandate: UNMODELLED,
  mandate_data: UNMODELLED,
  metadata: METADATA,
  off_session: UNMODELLED,
  on_behalf_of: UNMODELLED,
  payment_details: UNMODELLED,
  payment_method: { t: "string" },
  payment_method_configuration: UNMODELLED,
  payment_method_data: { t: "object", fields: PAYMENT_METHOD_DATA, required: ["type"] },
  payment_method_options: UNMODELLED,
  radar_options: UNMODELLED,
  receipt_email: { t: "string" },
  return_url: { t: "string" },
  setup_future_usage: { t: "string", enum: ["off_session", "on_session"] },
  shipping: UNMODELLED,
  statement_descriptor: { t: "string", max: 22 },
  statement_descriptor_suffix: { t: "string", max: 22 },
  transfer_data: UNMODELLED,
  transfer_group: UNMODELLED,
  use_stripe_sdk: UNMODELLED,
};

export const CONFIRM_FIELDS: Record<keyof Stripe.PaymentIntentConfirmParams, Spec> = {
  allowed_payment_method_types: UNMODELLED,
  amount_details: UNMODELLED,
  amount_to_confirm: UNMODELLED,
  capture_method: { t: "string", enum: CAPTURE_METHODS },
  confirmation_token: UNMODELLED,
  error_on_requires_action: UNMODELLED,
  excluded_payment_method_types: UNMODELLED,
  expand: EXPAND,
  hooks: UNMODELLED,
  mandate: UNMODELLED,
  mandate_data: UNMODELLED,
  off_session: UNMODELLED,
  payment_details: UNMODELLED,
  payment_method: { t: "string" },
  payment_method_data: { t: "object", fields: PAYMENT_METHOD_DATA, required: ["type"] },
  payment_method_options: UNMODELLED,
  radar_options: UNMODELLED,
  receipt_email: { t: "string" },
  return_url: { t: "string" },
  setup_future_usage: { t: "string", enum: ["off_session", "on_session"] },
  shipping: UNMODELLED,
  use_stripe_sdk: UNMODELLED,
};

export const CAPTURE_FIELDS: Record<keyof Stripe.PaymentIntentCaptureParams, Spec> = {
  amount_details: UNMODELLED,
  amount_to_capture: { t: "integer", min: 1 },
  application_fee_amount: UNMODELLED,
  expand: EXPAND,
  // Multicapture (several captures of one authorisation) is not modelled.
  final_capture: UNMODELLED,
  hooks: UNMODELLED,
  metadata: METADATA,
  payment_details: UNMODELLED,
  statement_descriptor: { t: "string", max: 22 },
  statement_descriptor_suffix: { t: "string", max: 22 },
  transfer_data: UNMODELLED,
};

export const CANCEL_FIELDS: Record<keyof Stripe.PaymentIntentCancelParams, Spec> = {
  cancellation_reason: {
    t: "string",
    enum: ["abandoned", "duplicate", "fraudulent", "requested_by_customer"],
  },
  expand: EXPAND,
};

export const RETRIEVE_FIELDS: Record<keyof Stripe.PaymentIntentRetrieveParams, Spec> = {
  // Only a publishable key may use client_secret; the stand-in's callers hold secret keys.
  client_secret: { t: "string" },
  expand: EXPAND,
};

export const LIST_FIELDS: Record<keyof Stripe.PaymentIntentListParams, Spec> = {
  ...PAGINATION_FIELDS,
  created: { t: "range" },
  customer: { t: "string" },
  customer_account: UNMODELLED,
  expand: EXPAND,
};
