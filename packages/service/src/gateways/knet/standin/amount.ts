/**
 * Amounts as the stand-in reads them, in fils (KWD has three decimals). Written from the manual
 * (3.5.4: "should include the decimal point (always 3 for Kuwaiti Dinars)", 10 characters), not
 * from svc's `knetAmount`, so that the two can disagree when one of them is wrong.
 */
import { fail } from "./knet-errors.js";

/** KNET's amount field, in characters. */
const AMOUNT_MAX_CHARS = 10;

/** The initialisation's `amt`: exactly three decimals, at most 10 characters, more than zero. */
export function initAmountFils(amt: string | undefined): number {
  if (amt === undefined || amt === "") fail("IPAY0100023");
  // Numeric, but not KWD's three decimals: the amount does not fit the currency.
  if (/^\d+(\.\d{0,2}|\.\d{4,})?$/.test(amt)) fail("IPAY0100025");
  if (!/^\d+\.\d{3}$/.test(amt) || amt.length > AMOUNT_MAX_CHARS) fail("IPAY0100024");
  const fils = Number(amt.replace(".", ""));
  if (fils <= 0) fail("IPAY0100024");
  return fils;
}

/** A server-API `amt`: up to three decimals; missing → IPAY0100060, otherwise invalid → IPAY0100061. */
export function apiAmountFils(amt: string | undefined): number {
  if (amt === undefined || amt === "") fail("IPAY0100060");
  const match = /^(\d{1,9})(?:\.(\d{1,3}))?$/.exec(amt);
  if (!match) fail("IPAY0100061");
  const fils = Number(match[1]) * 1000 + Number((match[2] ?? "").padEnd(3, "0"));
  if (fils <= 0) fail("IPAY0100061");
  return fils;
}

/** Fils as KNET writes them: `20.550`. */
export function formatFils(fils: number): string {
  return `${Math.floor(fils / 1000)}.${String(fils % 1000).padStart(3, "0")}`;
}
