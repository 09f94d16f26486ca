export { availableOptions, isMinified } from "./options.js";
export { PaymentView, type PaymentViewInput } from "./PaymentView.js";
