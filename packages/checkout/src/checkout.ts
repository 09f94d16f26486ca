/**
 * `new Checkout(options)` validates at once and builds nothing; `paymentView()` builds the view
 * on first call. Nothing here touches `window` before that, so importing is safe on a server.
 */
import type { ApiContext, CallbackData, CancelCallbackData } from "@svc/checkout-core";
import { PaymentView } from "./components/PaymentView/index.js";
import {
  type PopupOptions,
  type PopupRow,
  popupText,
  showPopup,
  showResultPopup,
} from "./components/Popup/index.js";
import { baseUrlOf, type CheckoutOptions, FORM_OF, validateOptions } from "./options.js";
import { createReporter } from "./reporter/load.js";
import { pageWalletA } from "./wallet-a.js";

/**
 * The checkout: one view, three callbacks.
 * @example
 * const checkout = new Checkout({
 *   merchantId: "shop.example.com",
 *   apiKey: "pk_live_…",
 *   sessionId,
 *   delegate: { successCallback: onPaid, cancelCallback: Checkout.cancelPopupHandler(), errorCallback: onError },
 * });
 * document.querySelector("#pay")!.append(checkout.paymentView());
 */
export class Checkout {
  readonly options: Readonly<CheckoutOptions>;
  readonly baseUrl: string;
  #view: HTMLElement | undefined;

  constructor(options: CheckoutOptions) {
    validateOptions(options);
    this.options = { ...options };
    this.baseUrl = baseUrlOf(options.merchantId);
  }

  /** The view (an HTMLElement), built once; place it anywhere in the page. */
  paymentView(): HTMLElement {
    if (this.#view) return this.#view;
    const o = this.options;
    const api: ApiContext = { baseUrl: this.baseUrl, apiKey: o.apiKey };
    this.#view = PaymentView({
      api,
      sessionId: o.sessionId,
      forms: o.formsOfPayment?.map((f) => FORM_OF[f]),
      preload: o.setupPreload,
      theme: o.theme,
      delegate: o.delegate,
      nonce: o.nonce,
      walletA: o.walletA ?? pageWalletA(),
      report: createReporter(api),
    });
    return this.#view;
  }

  /**
   * Shows a message in an accessible modal dialog; resolves when it is closed.
   * @example
   * await Checkout.showPopup("Payment was cancelled.");
   */
  static showPopup(message: string | PopupRow[], options?: PopupOptions): Promise<void> {
    return showPopup(message, options);
  }

  /**
   * The popup text for cancel data under the national-debit rule: `pg_response` when
   * `payment_gateway_info.pg_name` is `ndebit` or `knet`, else the whole data; a default without
   * response.
   * @example
   * Checkout.popupText(data) // '{ "result": "NOT CAPTURED", … }'
   */
  static popupText(data: CallbackData | undefined): string {
    return popupText(data);
  }

  /**
   * Shows callback data under the national-debit rule as a receipt; resolves when it is closed.
   * @example
   * await Checkout.showResultPopup(data);
   */
  static showResultPopup(data: CallbackData | undefined, options?: PopupOptions): Promise<void> {
    return showResultPopup(data, options);
  }

  /**
   * A ready `cancelCallback` that applies the national-debit popup rule, then calls `then`.
   * @example
   * delegate.cancelCallback = Checkout.cancelPopupHandler((data) => console.log("cancelled", data));
   */
  static cancelPopupHandler(
    then?: (data: CancelCallbackData) => void,
    options?: PopupOptions,
  ): (data: CancelCallbackData) => void {
    return (data) => {
      void showResultPopup(data, options).then(() => then?.(data));
    };
  }
}
