/** Checks the hosted page's card fields before anything reaches a gateway. */
import type { TextKey } from "./i18n.js";

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export interface ParsedCard {
  number: string;
  expiryMonth: number;
  expiryYear: number;
  cvc: string;
  holder?: string;
}

export function parseCardForm(
  form: Record<string, string>,
  now: Date,
):
  | { ok: true; card: ParsedCard }
  | { ok: false; errors: Partial<Record<"number" | "expiry" | "cvc" | "holder", TextKey>> } {
  const errors: Partial<Record<"number" | "expiry" | "cvc" | "holder", TextKey>> = {};
  const number = (form.number ?? "").replace(/[\s-]/g, "");
  if (!/^[0-9]{12,19}$/.test(number) || !luhnValid(number)) errors.number = "err_card_number";
  const expiry = /^\s*(0[1-9]|1[0-2])\s*\/\s*([0-9]{2})\s*$/.exec(form.expiry ?? "");
  let expiryMonth = 0;
  let expiryYear = 0;
  if (!expiry) errors.expiry = "err_expiry";
  else {
    expiryMonth = Number(expiry[1]);
    expiryYear = 2000 + Number(expiry[2]);
    const endOfMonth = new Date(Date.UTC(expiryYear, expiryMonth, 1));
    if (endOfMonth <= now) errors.expiry = "err_expiry";
  }
  const cvc = (form.cvc ?? "").trim();
  if (!/^[0-9]{3,4}$/.test(cvc)) errors.cvc = "err_cvc";
  const holder = (form.holder ?? "").trim();
  if (holder.length > 100) errors.holder = "err_holder";
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, card: { number, expiryMonth, expiryYear, cvc, ...(holder ? { holder } : {}) } };
}
