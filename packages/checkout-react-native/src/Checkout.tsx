/**
 * The seed's interface: `new Checkout({…})` initialised once, `paymentView()` the view to place
 * anywhere in a screen, the delegate's three callbacks.
 */
import { validateOptions } from "@svc/checkout-core";
import { createElement, type ReactElement } from "react";
import { type CheckoutViewOptions, SvcCheckoutView } from "./SvcCheckoutView.js";

/**
 * @example
 * const checkout = new Checkout({ merchantId: "shop.example.com", apiKey: "pk_…", sessionId, delegate });
 * return <View style={{ flex: 1 }}>{checkout.paymentView()}</View>;
 */
export class Checkout {
  private readonly options: CheckoutViewOptions;

  /** Throws a CheckoutError naming the first wrong option (a programming error, not a callback). */
  constructor(options: CheckoutViewOptions) {
    validateOptions(options);
    this.options = options;
  }

  /** The checkout view, as an element to place anywhere. */
  paymentView(): ReactElement {
    return createElement(SvcCheckoutView, this.options);
  }
}
