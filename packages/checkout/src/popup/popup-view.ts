/**
 * The national-debit compliance popup: an accessible modal `<dialog>` (focus moves in, Escape
 * and the Close button close it, focus returns to where it was), styled without `style` attributes.
 */
import { browserLanguage, textsFor } from "../../i18n/index.js";
import { adoptStyles } from "../../theme/adopt.js";
import type { CheckoutTheme } from "../../theme/checkout-theme.js";
import { themeRule } from "../../theme/variables.js";
import type { CallbackData } from "../../types.js";
import { h, uid } from "../dom.js";

/**
 * The pg_name of the national debit gateway whose failed payments must show the gateway's result.
 * @example
 * if (data.payment_gateway_info?.pg_name === NATIONAL_DEBIT_PG_NAME) showReceipt(data);
 */
export const NATIONAL_DEBIT_PG_NAME = "ndebit";

const POPUP_CSS = `
dialog{max-width:min(92vw,480px);border:1px solid #8a8a96;border-radius:12px;padding:20px;background:var(--svc-modal-bg,#fff);color:#1b1b1f;font:16px/1.45 system-ui,sans-serif}
:host([data-theme=dark]) dialog{background:var(--svc-modal-bg,#16161a);color:#ececf1}
dialog::backdrop{background:rgb(0 0 0/.5)}
h2{margin:0 0 8px;font-size:1.125rem}
pre{white-space:pre-wrap;word-break:break-word;font:inherit;margin:0 0 16px}
button{font:inherit;min-height:44px;padding:8px 16px;border-radius:8px;border:0;background:#0b57d0;color:#fff;cursor:pointer}
:host([data-theme=dark]) button{background:#a8c7fa;color:#062e6f}
button:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
`;

export interface PopupOptions {
  title?: string;
  theme?: CheckoutTheme;
  nonce?: string;
}

/**
 * The popup text of the seed's rule: for an `ndebit` gateway its `pg_response`, otherwise the
 * whole data; "Payment was cancelled." when there is no gateway response.
 * @example
 * popupText({ status: "canceled", message: "…", form_of_payment: "svc_pg" }) // "Payment was cancelled."
 */
export function popupText(
  data: CallbackData | undefined,
  fallback = textsFor(browserLanguage()).popupDefault,
): string {
  const info = data && "payment_gateway_info" in data ? data.payment_gateway_info : undefined;
  if (!info?.pg_response || Object.keys(info.pg_response).length === 0) return fallback;
  return JSON.stringify(info.pg_name === NATIONAL_DEBIT_PG_NAME ? info.pg_response : data, null, 2);
}

/**
 * Shows `message` in a modal dialog; resolves when the customer closes it.
 * @example
 * await showPopup(popupText(data), { title: "Payment result" });
 */
export function showPopup(message: string, options: PopupOptions = {}): Promise<void> {
  const language = browserLanguage();
  const t = textsFor(language);
  const dark = typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
  const mode = dark ? "dark" : "light";
  const host = h("div", {
    class: "svc-checkout-popup",
    "data-theme": mode,
    dir: language === "ar" ? "rtl" : "ltr",
  });
  const shadow = host.attachShadow({ mode: "open" });
  adoptStyles(shadow, [POPUP_CSS, themeRule(options.theme, mode)], options.nonce);
  const titleId = uid("popup");
  const dialog = h(
    "dialog",
    { "aria-labelledby": titleId },
    h("h2", { id: titleId }, options.title ?? t.popupTitle),
    h("pre", {}, message),
    h("form", { method: "dialog" }, h("button", { type: "submit", autofocus: true }, t.close)),
  );
  shadow.append(dialog);
  const previous = document.activeElement as HTMLElement | null;
  document.body.append(host);
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      host.remove();
      previous?.focus?.();
      resolve();
    });
  });
}
