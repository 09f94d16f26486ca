/**
 * @svc/checkout-core — what the browser SDK (@svc/checkout) and the React Native SDK
 * (@svc/checkout-react-native) share, none of it touching a screen: the API client, the options
 * and their validation, which forms of payment to show and the minified single-wallet decision,
 * the callback data, the national-debit popup rule, the error-reporting switch, the device
 * wallet's checks, the English and Arabic texts and the theme model.
 * @packageDocumentation
 */
export { confirmOtp } from "./api/confirm-otp.js";
export { getConfig, type SdkConfig } from "./api/get-config.js";
export { getDetails } from "./api/get-details.js";
export { getResult } from "./api/get-result.js";
export {
  type ApiContext,
  ApiProblem,
  isTransient,
  newIdempotencyKey,
  request,
  type RequestOptions,
  sessionPath,
} from "./api/http.js";
export { type ErrorReport, postError } from "./api/post-error.js";
export { type PaymentAnswer, startPayment, type StartPaymentBody } from "./api/start-payment.js";
export { customerMessage, errorData } from "./callbacks.js";
export { CheckoutError } from "./errors.js";
export {
  ar,
  browserLanguage,
  en,
  fill,
  type Language,
  languageOf,
  type Texts,
  textsFor,
} from "./i18n/index.js";
export { baseUrlOf, type CheckoutOptionsBase, FORM_OF, validateOptions } from "./options.js";
export {
  NATIONAL_DEBIT_PG_NAME,
  NATIONAL_DEBIT_PG_NAMES,
  popupContent,
  type PopupOptions,
  type PopupRow,
} from "./popup-rule.js";
export { POPUP_TEXTS, popupRows } from "./popup-rows.js";
export { createReporter, type ReporterModule, sendLimitedReport } from "./reporting.js";
export { availableOptions, isMinified, type OptionEntry, savedCardsFirst, sessionEnd } from "./selection.js";
export {
  type Appearance,
  ButtonComponent,
  CheckoutTheme,
  colorFor,
  LabelComponent,
  TextFieldComponent,
  type ThemeColor,
  type ThemeMargins,
} from "./theme.js";
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
} from "./types.js";
export {
  type SessionWallet,
  walletStatus,
  type WalletChecks,
  type WalletStatus,
  walletUnsupported,
} from "./wallet.js";
