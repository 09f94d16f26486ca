/**
 * @svc/checkout — the browser checkout SDK: `new Checkout({…}).paymentView()` gives one element
 * to place anywhere; the delegate gets `successCallback`, `cancelCallback` or `errorCallback`.
 * @example
 * import { Checkout } from "@svc/checkout";
 * const checkout = new Checkout({ merchantId: "shop.example.com", apiKey: "pk_…", sessionId, delegate });
 * document.querySelector("#pay")!.append(checkout.paymentView());
 */
export { ApiProblem } from "@svc/checkout-core";
export { Checkout } from "./checkout.js";
export {
  NATIONAL_DEBIT_PG_NAME,
  type PopupOptions,
  type PopupRow,
  popupText,
  showPopup,
  showResultPopup,
} from "./components/Popup/index.js";
export { CheckoutError } from "@svc/checkout-core";
export { baseUrlOf, type CheckoutOptions } from "./options.js";
export {
  ButtonComponent,
  CheckoutTheme,
  LabelComponent,
  TextFieldComponent,
  type ThemeColor,
  type ThemeMargins,
} from "@svc/checkout-core";
export type {
  CallbackData,
  CancelCallbackData,
  ErrorCallbackData,
  FormOfPayment,
  FormOfPaymentOption,
  PaymentGatewayInfo,
  PaymentMethod,
  SavedCard,
  SuccessCallbackData,
  SvcDelegate,
  TransactionDetails,
} from "@svc/checkout-core";
export type {
  WalletAApi,
  WalletAAuthorizedEvent,
  WalletAPaymentRequest,
  WalletASessionLike,
} from "./wallet-a.js";
