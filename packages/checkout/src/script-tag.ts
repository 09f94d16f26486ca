/**
 * The single-file build (`/sdk/svc-checkout.js`): defines `window.SvcCheckout` with everything
 * the package exports plus `init({selector, …})`, which binds the callbacks named by the script
 * tag's `data-success`, `data-cancel` and `data-error` attributes.
 */
import { Checkout } from "./checkout.js";
import { type CallbackData, CheckoutError, type SvcDelegate } from "@svc/checkout-core";
import * as sdk from "./index.js";
import type { CheckoutOptions } from "./options.js";
import { setPopupUrl } from "./popup/load.js";
import { setReporterUrl } from "./reporter/load.js";

/** Options of `SvcCheckout.init`: those of `new Checkout` with a CSS selector; the delegate may come from the tag. */
export type InitOptions = Omit<CheckoutOptions, "delegate"> & { selector: string; delegate?: SvcDelegate };

const script = document.currentScript as HTMLScriptElement | null;
if (script?.src) {
  setReporterUrl(new URL("svc-checkout-reporter.js", script.src).href);
  setPopupUrl(new URL("svc-checkout-popup.js", script.src).href);
}

function tagCallback(attribute: "success" | "cancel" | "error") {
  return (data: CallbackData) => {
    const name = script?.dataset[attribute];
    const fn = name ? (window as unknown as Record<string, unknown>)[name] : undefined;
    if (typeof fn === "function") fn(data);
    else if (name) console.error(`svc-checkout: data-${attribute}="${name}" names no global function.`);
  };
}

/**
 * Mounts a checkout into the element `selector` names.
 * @example
 * SvcCheckout.init({ selector: "#pay", merchantId: "shop.example.com", apiKey: "pk_…", sessionId });
 */
function init(options: InitOptions): Checkout {
  const target = document.querySelector(options.selector);
  if (!target)
    throw new CheckoutError("element_not_found", `No element matches selector "${options.selector}".`);
  const delegate = options.delegate ?? {
    successCallback: tagCallback("success"),
    cancelCallback: tagCallback("cancel"),
    errorCallback: tagCallback("error"),
  };
  const checkout = new Checkout({ ...options, delegate });
  target.append(checkout.paymentView());
  return checkout;
}

(window as unknown as { SvcCheckout: unknown }).SvcCheckout = { ...sdk, init };
