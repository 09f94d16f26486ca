/** What every option component gets from the view: texts, API access and the ways to end. */
import type { ApiContext } from "../api/http.js";
import { ApiProblem } from "../api/http.js";
import type { PaymentAnswer } from "../api/start-payment.js";
import type { Language, Texts } from "../i18n/index.js";
import type { CallbackData, FormOfPayment, PaymentMethod, SavedCard, TransactionDetails } from "../types.js";
import type { WalletAApi } from "../wallet-a.js";

/** The payment window's actions offered at the top of the view once the window closed. */
export interface ClosedActions {
  reopen(): void;
  /** Offered only while no payment started in the window (the checkout is bound to a started one). */
  chooseAnother?: () => void;
}

export interface ViewContext {
  t: Texts;
  language: Language;
  api: ApiContext;
  details: TransactionDetails;
  walletA: WalletAApi | undefined;
  minified: boolean;
  /** The amount as the customer reads it: `10.500 KWD`. */
  amountText: string;
  /** Delivers the final callback once, shows the outcome screen and locks the view. */
  finish(data: CallbackData): void;
  /** Ends with `errorCallback`: the developer's detail in the data and the console, the customer's words on screen. */
  fail(form: FormOfPayment, error: unknown): void;
  /** Marks the options busy (disabled) and announces a text. */
  busy(on: boolean, text?: string): void;
  finished(): boolean;
  /** The waiting banner at the top while a payment window is open. */
  waiting(win: { focus(): void } | null): void;
  /** The banner for a window closed without a result. */
  windowClosed(actions: ClosedActions): void;
  /** Back to choosing: no banner, options enabled. */
  idle(): void;
}

export type OptionComponent = (ctx: ViewContext, method: PaymentMethod, card?: SavedCard) => HTMLElement;

/** The error callback data of the contract for a problem met while paying with `form`. */
export function errorData(
  ctx: Pick<ViewContext, "details">,
  form: FormOfPayment,
  error: unknown,
): CallbackData {
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

/** What the customer reads for an error: never the developer's detail. */
export function customerMessage(t: Texts, error: unknown): string {
  if (!(error instanceof ApiProblem)) return t.err_generic;
  switch (error.code) {
    case "network_error":
      return t.err_network;
    case "session_expired":
      return t.err_expired;
    case "not_found":
    case "unauthorized":
    case "forbidden":
      return t.err_not_found;
    case "payment_in_progress":
      return t.err_in_progress;
    case "gateway_outcome_unknown":
      return t.err_unknown_outcome;
    case "invalid_state":
      return t.err_ended;
    default:
      return error.status === 401 || error.status === 404 ? t.err_not_found : t.err_generic;
  }
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
