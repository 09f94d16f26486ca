/** The seed's national-debit popup rule: what a cancel popup shows. Shared by the view and the popup chunk. */
import type { CheckoutTheme } from "./theme.js";
import type { CallbackData } from "./types.js";

/**
 * The pg_name of the national debit gateway whose failed payments must show the gateway's result.
 * @example
 * if (data.payment_gateway_info?.pg_name === NATIONAL_DEBIT_PG_NAME) showResultPopup(data);
 */
export const NATIONAL_DEBIT_PG_NAME = "ndebit";

/**
 * Every pg_name whose failed payments show the gateway's result: the sandbox's national debit
 * gateway and KNET, Kuwait's national debit network.
 */
export const NATIONAL_DEBIT_PG_NAMES: readonly string[] = [NATIONAL_DEBIT_PG_NAME, "knet"];

export interface PopupOptions {
  title?: string;
  theme?: CheckoutTheme;
  nonce?: string;
}

/** One row of the receipt. */
export interface PopupRow {
  label: string;
  value: string;
}

/** What the seed's rule shows: `pg_response` for a national debit gateway, else the whole data; nothing without a response. */
export function popupContent(data: CallbackData | undefined): Record<string, unknown> | undefined {
  const info = data && "payment_gateway_info" in data ? data.payment_gateway_info : undefined;
  if (!info?.pg_response || Object.keys(info.pg_response).length === 0) return undefined;
  return NATIONAL_DEBIT_PG_NAMES.includes(info.pg_name)
    ? info.pg_response
    : (data as unknown as Record<string, unknown>);
}
