/** What every option component gets from the view: texts, API access and the ways to end. */
import type { ApiContext } from "../api/http.js";
import { ApiProblem } from "../api/http.js";
import type { PaymentAnswer } from "../api/start-payment.js";
import type { Texts } from "../i18n/index.js";
import type { CallbackData, FormOfPayment, PaymentMethod, TransactionDetails } from "../types.js";
import type { WalletAApi } from "../wallet-a.js";

export interface ViewContext {
  t: Texts;
  api: ApiContext;
  details: TransactionDetails;
  walletA: WalletAApi | undefined;
  minified: boolean;
  /** Delivers the final callback, shows the outcome and locks the view (no retry on its own). */
  finish(data: CallbackData): void;
  /** Marks the view busy (buttons disabled) and announces a text. */
  busy(on: boolean, text?: string): void;
}

export type OptionComponent = (ctx: ViewContext, method: PaymentMethod) => HTMLElement;

/** The error callback data of the contract for a problem met while paying with `form`. */
export function errorData(ctx: ViewContext, form: FormOfPayment, error: unknown): CallbackData {
  const message =
    error instanceof ApiProblem ? error.detail : error instanceof Error ? error.message : String(error);
  return {
    status: "error",
    message,
    form_of_payment: form,
    session_id: ctx.details.session_id,
    ...(ctx.details.order_no ? { order_no: ctx.details.order_no } : {}),
  };
}

/** A final answer goes to `finish`; returns the non-final one (OTP or redirect) to the caller. */
export function settle(
  ctx: ViewContext,
  answer: PaymentAnswer,
): Exclude<PaymentAnswer, CallbackData> | undefined {
  if (answer.status === "otp_required" || answer.status === "redirect") return answer;
  ctx.finish(answer);
  return undefined;
}
