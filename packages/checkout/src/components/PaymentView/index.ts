export { availableOptions, isMinified } from "@svc/checkout-core";
export { PaymentView, type PaymentViewInput } from "./PaymentView.js";
