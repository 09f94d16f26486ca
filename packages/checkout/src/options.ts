/** The browser SDK's options: the shared ones of @svc/checkout-core and the page's own. */
import type { CheckoutOptionsBase } from "@svc/checkout-core";
import type { WalletAApi } from "./wallet-a.js";

export { baseUrlOf, FORM_OF, validateOptions } from "@svc/checkout-core";

/**
 * Options of `new Checkout(…)`.
 * @example
 * const options: CheckoutOptions = { merchantId: "shop.example.com", apiKey: "pk_…", sessionId, delegate };
 */
export interface CheckoutOptions extends CheckoutOptionsBase {
  /** The page's CSP nonce, used only where constructable stylesheets are unavailable. */
  nonce?: string;
  /** The device wallet API; defaults to `window.WalletASession` (see docs/checkout-sdk.md). */
  walletA?: WalletAApi;
}
