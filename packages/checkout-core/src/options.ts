/**
 * The options of `new Checkout(…)` both SDKs share (the seed's initialisation: merchant domain,
 * public key, session id, forms of payment, preload, theme, delegate) and their validation, with
 * messages that say what to do. Each SDK adds its own platform's options.
 */
import { CheckoutError } from "./errors.js";
import type { CheckoutTheme } from "./theme.js";
import type { FormOfPayment, FormOfPaymentOption, SvcDelegate, TransactionDetails } from "./types.js";

/**
 * Options of `new Checkout(…)`, in both SDKs.
 * @example
 * const options: CheckoutOptionsBase = { merchantId: "shop.example.com", apiKey: "pk_…", sessionId, delegate };
 */
export interface CheckoutOptionsBase {
  /** The merchant's root domain, without scheme: `shop.example.com` (`localhost:3000` in development). */
  merchantId: string;
  /** The public key (`pk_…`). A private key is refused: it must never reach a browser or an app. */
  apiKey: string;
  /** The `session_id` the Checkout API returned. */
  sessionId: string;
  /** Forms to show; default all the transaction offers. */
  formsOfPayment?: FormOfPaymentOption[];
  /** The Checkout API's `sdk_setup_preload_payload`: with it the SDK makes no details request. */
  setupPreload?: TransactionDetails;
  /** Colours, fonts and margins; unset properties keep the default design. */
  theme?: CheckoutTheme;
  /** The three callbacks. */
  delegate: SvcDelegate;
}

export const FORM_OF: Record<FormOfPaymentOption, FormOfPayment> = {
  walletAPay: "wallet_a_pay",
  walletBPay: "wallet_b_pay",
  svcPG: "svc_pg",
  tokenPay: "token_pay",
  redirect: "redirect",
};

const DELEGATE_METHODS = ["errorCallback", "cancelCallback", "successCallback"] as const;
const LOCAL_HOSTS = ["localhost", "127.0.0.1"];

/**
 * `https://{merchantId}`; plain `http://` only for localhost and 127.0.0.1.
 * @example
 * baseUrlOf("localhost:8080") // "http://localhost:8080"
 */
export function baseUrlOf(merchantId: string): string {
  const host = merchantId.split(":")[0]!.toLowerCase();
  return `${LOCAL_HOSTS.includes(host) ? "http" : "https"}://${merchantId}`;
}

/** Throws a CheckoutError naming the first wrong option. */
export function validateOptions(options: CheckoutOptionsBase): void {
  if (!options || typeof options !== "object")
    throw new CheckoutError("invalid_options", "new Checkout(options) needs an options object.");
  const { merchantId, apiKey, sessionId, delegate, formsOfPayment } = options;
  if (typeof merchantId !== "string" || merchantId.length === 0)
    throw new CheckoutError(
      "invalid_merchant_id",
      "merchantId is required: your root domain, e.g. shop.example.com.",
    );
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(merchantId))
    throw new CheckoutError(
      "invalid_merchant_id",
      `merchantId is the root domain without a scheme: give "${merchantId.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "")}", not "${merchantId}".`,
    );
  if (!/^[a-z0-9.-]+(:\d{1,5})?$/i.test(merchantId))
    throw new CheckoutError(
      "invalid_merchant_id",
      `merchantId "${merchantId}" is not a domain such as shop.example.com.`,
    );
  if (typeof apiKey !== "string" || apiKey.startsWith("sk_"))
    throw new CheckoutError(
      "private_key",
      "apiKey must be your public key (pk_…). A private key (sk_…) must never be used in a browser or an app: revoke it if it was published.",
    );
  if (!apiKey.startsWith("pk_"))
    throw new CheckoutError("invalid_api_key", "apiKey must be your public key, which starts with pk_.");
  if (typeof sessionId !== "string" || sessionId.length === 0)
    throw new CheckoutError(
      "missing_session_id",
      "sessionId is required: the session_id the Checkout API returned.",
    );
  const missing = DELEGATE_METHODS.filter(
    (m) => typeof (delegate as unknown as Record<string, unknown>)?.[m] !== "function",
  );
  if (missing.length > 0)
    throw new CheckoutError("invalid_delegate", `delegate must implement ${missing.join(", ")}.`);
  if (formsOfPayment !== undefined) {
    const unknown = Array.isArray(formsOfPayment)
      ? formsOfPayment.filter((f) => !(f in FORM_OF))
      : ["(not an array)"];
    if (unknown.length > 0)
      throw new CheckoutError(
        "invalid_forms_of_payment",
        `formsOfPayment has unknown values ${unknown.join(", ")}; use ${Object.keys(FORM_OF).join(", ")}.`,
      );
  }
}
