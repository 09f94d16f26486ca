import type { CallbackData, FormOfPayment } from "../types.js";
import { type ApiContext, newIdempotencyKey, request, sessionPath } from "./http.js";

/** What a payment call answers: the final callback data, a one-time code to ask, or a page to open. */
export type PaymentAnswer =
  | CallbackData
  | { status: "otp_required"; otp_reference: string }
  | { status: "redirect"; redirect_url: string };

export interface StartPaymentBody {
  form_of_payment: FormOfPayment;
  pg_code: string;
  mobile_number?: string;
  payment_token?: string;
  token?: string;
}

/**
 * `POST /v1/checkout/{session_id}/payments`, with a fresh Idempotency-Key so a lost answer can be
 * asked for again. Async, so a key that cannot be made (no `crypto`) is a rejection the caller's
 * error path handles, never a throw out of a press handler.
 */
export const startPayment = async (ctx: ApiContext, sessionId: string, body: StartPaymentBody) =>
  request<PaymentAnswer>(ctx, "POST", `${sessionPath(sessionId)}/payments`, body, {
    idempotencyKey: newIdempotencyKey(),
  });
