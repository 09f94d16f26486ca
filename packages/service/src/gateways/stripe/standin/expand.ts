/**
 * `expand[]` (docs.stripe.com/expand): ids replaced by the objects they name, for the paths the
 * stand-in's objects have. Since API version 2022-11-15 a Charge's `refunds` appear only when
 * expanded. Any other path is refused as Stripe refuses a path that cannot be expanded.
 */
import type Stripe from "stripe";
import { invalidRequest } from "./errors.js";
import { snapshot, type AccountState } from "./store.js";

function refuse(path: string): never {
  throw invalidRequest(`This property cannot be expanded (${path}).`, {
    param: "expand",
    phase: "validation",
  });
}

/** Checks every path before anything runs, so a bad path changes nothing. */
export function checkExpand(paths: readonly string[], allowed: readonly string[]): void {
  for (const path of paths) if (!allowed.includes(path)) refuse(path);
}

export const PAYMENT_INTENT_EXPANDABLE = ["latest_charge", "payment_method"] as const;
export const CHARGE_EXPANDABLE = ["refunds", "payment_intent"] as const;
export const REFUND_EXPANDABLE = ["charge", "payment_intent"] as const;

/** A list's paths name its items' fields as `data.<path>`: checks them and returns the item paths. */
export function checkListExpand(paths: readonly string[], allowed: readonly string[]): string[] {
  checkExpand(
    paths,
    allowed.map((p) => `data.${p}`),
  );
  return paths.map((p) => p.slice("data.".length));
}

export function expandPaymentIntent(
  account: AccountState,
  pi: Stripe.PaymentIntent,
  paths: readonly string[],
): Stripe.PaymentIntent {
  const out = snapshot(pi);
  if (paths.includes("latest_charge") && typeof pi.latest_charge === "string") {
    const charge = account.charges.get(pi.latest_charge);
    if (charge) out.latest_charge = snapshot(charge.charge);
  }
  if (paths.includes("payment_method") && typeof pi.payment_method === "string") {
    const method = account.paymentMethods.get(pi.payment_method);
    if (method) out.payment_method = snapshot(method.paymentMethod);
  }
  return out;
}

export function expandCharge(
  account: AccountState,
  charge: Stripe.Charge,
  paths: readonly string[],
): Stripe.Charge {
  const out = snapshot(charge);
  if (paths.includes("refunds")) {
    const data = [...account.refunds.values()]
      .filter((r) => r.refund.charge === charge.id)
      .sort((a, b) => b.seq - a.seq)
      .map((r) => snapshot(r.refund));
    out.refunds = { object: "list", data, has_more: false, url: `/v1/charges/${charge.id}/refunds` };
  }
  if (paths.includes("payment_intent") && typeof charge.payment_intent === "string") {
    const pi = account.paymentIntents.get(charge.payment_intent);
    if (pi) out.payment_intent = snapshot(pi.paymentIntent);
  }
  return out;
}

export function expandRefund(
  account: AccountState,
  refund: Stripe.Refund,
  paths: readonly string[],
): Stripe.Refund {
  const out = snapshot(refund);
  if (paths.includes("charge") && typeof refund.charge === "string") {
    const charge = account.charges.get(refund.charge);
    if (charge) out.charge = snapshot(charge.charge);
  }
  if (paths.includes("payment_intent") && typeof refund.payment_intent === "string") {
    const pi = account.paymentIntents.get(refund.payment_intent);
    if (pi) out.payment_intent = snapshot(pi.paymentIntent);
  }
  return out;
}
