import { type ApiContext, newIdempotencyKey, request, sessionPath } from "./http.js";
import type { PaymentAnswer } from "./start-payment.js";

/** `POST /v1/checkout/{session_id}/payments/otp`: wallet B's one-time code. */
export const confirmOtp = (ctx: ApiContext, sessionId: string, otpReference: string, otp: string) =>
  request<PaymentAnswer>(
    ctx,
    "POST",
    `${sessionPath(sessionId)}/payments/otp`,
    { otp_reference: otpReference, otp },
    { idempotencyKey: newIdempotencyKey() },
  );
