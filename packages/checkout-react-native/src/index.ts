/**
 * @svc/checkout-react-native — the source document's in-app checkout for React Native apps:
 * `new Checkout({…}).paymentView()` (or `<SvcCheckoutView …/>`), one view, three callbacks,
 * English and Arabic, light and dark, on @svc/checkout-core.
 * @packageDocumentation
 */
export {
  ApiProblem,
  NATIONAL_DEBIT_PG_NAME,
  ButtonComponent,
  type CallbackData,
  type CancelCallbackData,
  CheckoutError,
  CheckoutTheme,
  type ErrorCallbackData,
  type FormOfPayment,
  type FormOfPaymentOption,
  LabelComponent,
  type PaymentGatewayInfo,
  type SuccessCallbackData,
  type SvcDelegate,
  TextFieldComponent,
  type ThemeColor,
  type ThemeMargins,
  type TransactionDetails,
} from "@svc/checkout-core";
export { Checkout } from "./Checkout.js";
export { type CheckoutViewOptions, SvcCheckoutView } from "./SvcCheckoutView.js";
export type { Appearance } from "./theme.js";
export type { WalletBridge, WalletPaymentRequest } from "./wallet-bridge.js";
export { type ResultPopupProps, SvcResultPopup } from "./ResultPopup.js";
