import type { FormOfPayment } from "./states.js";

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

export interface ErrorCallbackData extends CallbackBase {
  status: "error";
}
export interface CancelCallbackData extends CallbackBase {
  status: "canceled";
  payment_gateway_info?: PaymentGatewayInfo;
}
export interface SuccessCallbackData extends CallbackBase {
  status: "success";
  payment_gateway_info?: PaymentGatewayInfo;
  redirect_url?: string;
}

/** What the SDK hands to errorCallback / cancelCallback / successCallback, discriminated by status. */
export type CallbackData = ErrorCallbackData | CancelCallbackData | SuccessCallbackData;
