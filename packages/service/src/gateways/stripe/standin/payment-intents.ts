/**
 * POST /v1/payment_intents and POST /v1/payment_intents/:id/confirm
 * (docs.stripe.com/api/payment_intents/create, /confirm), for card payments.
 */
import type Stripe from "stripe";
import type { ApiRequest } from "./context.js";
import { checkAmount, checkCurrency } from "./currencies.js";
import { invalidRequest, resourceMissing, StripeApiError } from "./errors.js";
import { checkExpand, expandPaymentIntent, PAYMENT_INTENT_EXPANDABLE } from "./expand.js";
import {
  paymentMethodFromData,
  paymentMethodFromTestId,
  type PaymentMethodRecord,
} from "./payment-method.js";
import { CONFIRM_FIELDS, CREATE_FIELDS } from "./payment-intent-params.js";
import { newPaymentIntent } from "./payment-intent-object.js";
import { confirmWith } from "./payment-flow.js";
import { read, readObject, type ParamObject } from "./params.js";
import { snapshot, type AccountState, type PaymentIntentRecord } from "./store.js";

/** The stand-in account has cards activated and nothing else. */
const ACTIVATED_PAYMENT_METHOD_TYPES = ["card"];

const RETURN_URL_REQUIRED =
  "A `return_url` must be specified because this Payment Intent is configured to automatically accept the payment methods enabled in the Dashboard, some of which may require a full page redirect to succeed. If you do not want to accept redirect-based payment methods, set `automatic_payment_methods[enabled]` to `true` and `automatic_payment_methods[allow_redirects]` to `never` when creating Setup Intents and Payment Intents.";

const validation = { phase: "validation" } as const;

function exclusive(a: string, b: string): StripeApiError {
  return invalidRequest(`You may only specify one of these parameters: ${a}, ${b}.`, {
    code: "parameters_exclusive",
    ...validation,
  });
}

/** The PaymentMethod a request names, made from data, a test id, or found on the account. */
function resolvePaymentMethod(account: AccountState, params: ParamObject): PaymentMethodRecord | undefined {
  const id = read.string(params, "payment_method");
  const data = read.object(params, "payment_method_data");
  if (id && data) throw exclusive("payment_method", "payment_method_data");
  if (data) {
    const type = read.string(data, "type");
    if (type !== "card")
      throw invalidRequest(
        `The Stripe stand-in models card payments only; payment_method_data[type]=${type} is not modelled.`,
        { param: "payment_method_data[type]", ...validation },
      );
    return paymentMethodFromData(data, account.rawCardData);
  }
  if (!id) return undefined;
  const known = paymentMethodFromTestId(id) ?? account.paymentMethods.get(id);
  if (!known) throw resourceMissing("PaymentMethod", id, "payment_method");
  const usedBefore = [...account.charges.values()].some(
    (c) => c.charge.payment_method === id && c.charge.status === "succeeded",
  );
  if (usedBefore)
    throw invalidRequest(
      "This PaymentMethod was previously used without being attached to a Customer or was detached from a Customer, and may not be used again.",
      { param: "payment_method" },
    );
  return known;
}

function needsReturnUrl(pi: Stripe.PaymentIntent): boolean {
  const apm = pi.automatic_payment_methods;
  const onlyCards = pi.allowed_payment_method_types?.every((t) => t === "card") ?? false;
  return Boolean(apm?.enabled) && apm?.allow_redirects !== "never" && !onlyCards;
}

function checkReturnUrl(url: string | undefined): void {
  if (url === undefined) return;
  try {
    new URL(url);
  } catch {
    throw invalidRequest("Not a valid URL", { code: "url_invalid", param: "return_url", ...validation });
  }
}

function missingPaymentMethod(): StripeApiError {
  return invalidRequest(
    "You cannot confirm this PaymentIntent because it's missing a payment method. You can either update the PaymentIntent with a payment method and then confirm it again, or confirm it again directly with a payment method or ConfirmationToken.",
    { code: "payment_intent_unexpected_state", ...validation },
  );
}

/** Confirms with the request's (or the PaymentIntent's pending) PaymentMethod. */
function confirm(
  req: ApiRequest,
  record: PaymentIntentRecord,
  params: ParamObject,
  method: PaymentMethodRecord | undefined,
) {
  const returnUrl = read.string(params, "return_url");
  const chosen = method ?? record.pendingPaymentMethod;
  if (!chosen) throw missingPaymentMethod();
  if (!returnUrl && needsReturnUrl(record.paymentIntent))
    throw invalidRequest(RETURN_URL_REQUIRED, validation);
  confirmWith(req.ctx, req.account, record, chosen, returnUrl, req.cause);
}

export function createPaymentIntent(req: ApiRequest): object {
  const params = readObject(req.form, CREATE_FIELDS, ["amount", "currency"]);
  const currency = read.string(params, "currency") ?? "";
  const amount = read.integer(params, "amount") ?? 0;
  checkCurrency(currency);
  checkAmount(amount, currency, "amount");
  const expand = read.strings(params, "expand") ?? [];
  checkExpand(expand, PAYMENT_INTENT_EXPANDABLE);
  const allowed = read.strings(params, "allowed_payment_method_types");
  for (const type of allowed ?? [])
    if (!ACTIVATED_PAYMENT_METHOD_TYPES.includes(type))
      throw invalidRequest(
        `The payment method type provided: ${type} is invalid. Please ensure the provided type is activated in your dashboard (https://dashboard.stripe.com/account/payments/settings) and your account is enabled for any preview features that you are trying to use.`,
        { param: "allowed_payment_method_types", ...validation },
      );
  const confirmNow = read.boolean(params, "confirm") ?? false;
  const returnUrl = read.string(params, "return_url");
  if (returnUrl !== undefined && !confirmNow)
    throw invalidRequest("You can only provide a return_url when confirm=true.", {
      param: "return_url",
      ...validation,
    });
  checkReturnUrl(returnUrl);
  if (read.string(params, "statement_descriptor") !== undefined)
    throw invalidRequest(
      "The `statement_descriptor` parameter is not supported for the `card` payment method type. Please use `statement_descriptor_suffix` instead.",
      { param: "statement_descriptor", ...validation },
    );
  const customer = read.string(params, "customer");
  // The stand-in has no Customers, so every customer id is unknown to the account.
  if (customer) throw resourceMissing("customer", customer, "customer");
  const apmParams = read.object(params, "automatic_payment_methods");
  const automaticPaymentMethods: Stripe.PaymentIntent.AutomaticPaymentMethods | null = apmParams
    ? {
        enabled: read.boolean(apmParams, "enabled") ?? false,
        ...(read.boolean(apmParams, "enabled")
          ? { allow_redirects: read.string(apmParams, "allow_redirects") === "never" ? "never" : "always" }
          : {}),
      }
    : allowed
      ? null
      : { enabled: true, allow_redirects: "always" }; // the default since API version 2023-08-16
  const method = resolvePaymentMethod(req.account, params);
  const pi = newPaymentIntent({
    amount,
    currency,
    captureMethod: read.string(params, "capture_method") ?? "automatic_async",
    confirmationMethod: read.string(params, "confirmation_method") ?? "automatic",
    automaticPaymentMethods,
    allowedPaymentMethodTypes: allowed ?? null,
    paymentMethodTypes: ACTIVATED_PAYMENT_METHOD_TYPES,
    description: read.string(params, "description") ?? null,
    metadata: read.metadata(params, "metadata"),
    receiptEmail: read.string(params, "receipt_email") ?? null,
    setupFutureUsage: read.string(params, "setup_future_usage") ?? null,
    statementDescriptor: null,
    statementDescriptorSuffix: read.string(params, "statement_descriptor_suffix") ?? null,
    customer: null,
  });
  const record: PaymentIntentRecord = { paymentIntent: pi, seq: req.account.nextSeq() };
  // A create-and-confirm that cannot be confirmed creates nothing.
  if (confirmNow && !method) throw missingPaymentMethod();
  if (confirmNow && !returnUrl && needsReturnUrl(pi)) throw invalidRequest(RETURN_URL_REQUIRED, validation);
  if (method) {
    pi.payment_method = method.paymentMethod.id;
    pi.status = "requires_confirmation";
    record.pendingPaymentMethod = method;
    req.account.paymentMethods.set(method.paymentMethod.id, method);
  }
  req.account.paymentIntents.set(pi.id, record);
  req.ctx.events.record(req.account, req.cause, "payment_intent.created", pi);
  if (confirmNow) confirm(req, record, params, method);
  return expandPaymentIntent(req.account, pi, expand);
}

export function findPaymentIntent(account: AccountState, id: string): PaymentIntentRecord {
  const record = account.paymentIntents.get(id);
  if (!record) throw resourceMissing("payment_intent", id, "intent");
  return record;
}

const CONFIRMABLE = ["requires_payment_method", "requires_confirmation", "requires_action"];

export function confirmPaymentIntent(req: ApiRequest): object {
  const params = readObject(req.form, CONFIRM_FIELDS, []);
  const expand = read.strings(params, "expand") ?? [];
  checkExpand(expand, PAYMENT_INTENT_EXPANDABLE);
  checkReturnUrl(read.string(params, "return_url"));
  const record = findPaymentIntent(req.account, req.pathParams[0] ?? "");
  const pi = record.paymentIntent;
  if (!CONFIRMABLE.includes(pi.status))
    throw new StripeApiError(400, {
      type: "invalid_request_error",
      code: "payment_intent_unexpected_state",
      message: `You cannot confirm this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be confirmed: ${CONFIRMABLE.join(", ")}.`,
      payment_intent: snapshot(pi),
    });
  const method = resolvePaymentMethod(req.account, params);
  if (method) record.authenticated = false;
  const captureMethod = read.string(params, "capture_method");
  if (captureMethod) pi.capture_method = captureMethod;
  const receiptEmail = read.string(params, "receipt_email");
  if (receiptEmail) pi.receipt_email = receiptEmail;
  const setupFutureUsage = read.string(params, "setup_future_usage");
  if (setupFutureUsage) pi.setup_future_usage = setupFutureUsage;
  confirm(req, record, params, method);
  return expandPaymentIntent(req.account, pi, expand);
}
