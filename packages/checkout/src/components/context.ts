/** What every option component gets from the view: texts, API access and the ways to end. */
import type {
  ApiContext,
  CallbackData,
  FormOfPayment,
  Language,
  PaymentAnswer,
  PaymentMethod,
  SavedCard,
  Texts,
  TransactionDetails,
} from "@svc/checkout-core";
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

/** A final answer goes to `finish`; returns the non-final one (OTP or redirect) to the caller. */
export function settle(
  ctx: ViewContext,
  answer: PaymentAnswer,
): Exclude<PaymentAnswer, CallbackData> | undefined {
  if (answer.status === "otp_required" || answer.status === "redirect") return answer;
  ctx.finish(answer);
  return undefined;
}
