/**
 * The SDK's public data types. They re-declare the service's `@svc/protocol` shapes so the
 * published package stands alone; `types.test.ts` checks at compile time that both agree.
 */

/** A form of payment as the service names it on the wire. */
export type FormOfPayment = "wallet_a_pay" | "wallet_b_pay" | "svc_pg" | "token_pay" | "redirect";

/** A form of payment as the SDK's `formsOfPayment` option names it. */
export type FormOfPaymentOption = "walletAPay" | "walletBPay" | "svcPG" | "tokenPay" | "redirect";

/** `payment_gateway_info` of cancel and success callback data. */
export interface PaymentGatewayInfo {
  pg_code: string;
  pg_name: string;
  pg_response: Record<string, unknown>;
}

interface CallbackBase {
  message: string;
  form_of_payment: FormOfPayment;
  challenge_occurred?: boolean;
  session_id?: string;
  order_no?: string;
  reference_number?: string;
}

/** Data of `errorCallback`. */
export interface ErrorCallbackData extends CallbackBase {
  status: "error";
}
/** Data of `cancelCallback`. */
export interface CancelCallbackData extends CallbackBase {
  status: "canceled";
  payment_gateway_info?: PaymentGatewayInfo;
}
/** Data of `successCallback`. */
export interface SuccessCallbackData extends CallbackBase {
  status: "success";
  payment_gateway_info?: PaymentGatewayInfo;
  redirect_url?: string;
}

/**
 * What the three callbacks receive, discriminated by `status`.
 * @example
 * function onDone(data: CallbackData) {
 *   if (data.status === "success") console.log(data.payment_gateway_info?.pg_name);
 * }
 */
export type CallbackData = ErrorCallbackData | CancelCallbackData | SuccessCallbackData;

/**
 * The merchant's delegate: the three outcomes of a checkout.
 * @example
 * const delegate: SvcDelegate = {
 *   successCallback: (data) => location.assign(`/thanks?session=${data.session_id}`),
 *   cancelCallback: Checkout.cancelPopupHandler(),
 *   errorCallback: (data) => console.error(data.message),
 * };
 */
export interface SvcDelegate {
  errorCallback(data: ErrorCallbackData): void;
  cancelCallback(data: CancelCallbackData): void;
  successCallback(data: SuccessCallbackData): void;
}

/** One entry of the transaction's `payment_methods`. */
export interface PaymentMethod {
  pg_code: string;
  name: string;
  form_of_payment: FormOfPayment;
  amount: string;
  currency_code: string;
  fee: string;
  fee_description: string;
  icon: string;
  flow: "wallet" | "otp" | "hosted_page" | "token" | "redirect";
}

/** A saved card of the transaction's customer (`tokenPay`). */
export interface SavedCard {
  token: string;
  brand: string;
  last4: string;
  expiry: string;
  pg_code: string;
}

/**
 * The transaction details (`GET /v1/checkout/{session_id}`, and the Checkout API's
 * `sdk_setup_preload_payload`): pass it as `setupPreload` and the SDK fetches nothing to render.
 */
export interface TransactionDetails {
  session_id: string;
  order_no: string | null;
  amount: string;
  currency_code: string;
  state: string;
  operation: string;
  type: string;
  language: "en" | "ar";
  customer_id: string | null;
  customer_phone: string | null;
  expires_at: string;
  payment_methods: PaymentMethod[];
  cards: SavedCard[];
  wallet_a: { merchant_identifier: string; pg_code: string } | null;
}
