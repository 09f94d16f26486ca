/**
 * The national-debit popup rule and the popup's entry points. The dialog itself is its own chunk
 * (`src/popup/popup-view.ts`), loaded the first time a popup is shown.
 */
import {
  browserLanguage,
  type CallbackData,
  popupContent,
  type PopupOptions,
  type PopupRow,
  textsFor,
} from "@svc/checkout-core";
import { importPopup } from "../../popup/load.js";

export { NATIONAL_DEBIT_PG_NAME, type PopupOptions, type PopupRow } from "@svc/checkout-core";

/**
 * The popup text of the seed's rule as JSON, for logs and custom popups: for a national debit
 * gateway (`ndebit`, `knet`) its `pg_response`, otherwise the whole data; "Payment was cancelled." without a gateway
 * response. `showResultPopup` shows the same content as translated rows.
 * @example
 * popupText({ status: "canceled", message: "…", form_of_payment: "svc_pg" }) // "Payment was cancelled."
 */
export function popupText(
  data: CallbackData | undefined,
  fallback = textsFor(browserLanguage()).popupDefault,
): string {
  const content = popupContent(data);
  return content === undefined ? fallback : JSON.stringify(content, null, 2);
}

/**
 * Shows `message` (a text, or receipt rows) in a modal dialog; resolves when the customer closes it.
 * @example
 * await showPopup("Payment was cancelled.");
 */
export async function showPopup(message: string | PopupRow[], options?: PopupOptions): Promise<void> {
  return (await importPopup()).showPopup(message, options);
}

/**
 * The seed's rule as a receipt popup: the gateway's answer (ndebit, knet) or the whole data as
 * translated label/value rows, or the default text without a gateway response.
 * @example
 * await showResultPopup(data);
 */
export async function showResultPopup(data: CallbackData | undefined, options?: PopupOptions): Promise<void> {
  const popup = await importPopup();
  const rows = popup.popupRows(data);
  return popup.showPopup(rows.length ? rows : textsFor(browserLanguage()).popupDefault, options);
}
