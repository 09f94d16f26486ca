export { cardsFor, TokenPay } from "./TokenPay.js";
