/**
 * Test fixtures for the stand-in's own tests: a stand-in with two accounts and an official
 * `stripe` client per account, pointed at it over loopback.
 */
import Stripe from "stripe";
import { startStripeStandIn } from "./server.js";
import type { StripeStandIn, StripeStandInOptions } from "./types.js";

export const ACCOUNT_A = { secretKey: "sk_test_standInAccountA0001", webhookSecret: "whsec_standInA" };
export const ACCOUNT_B = { secretKey: "sk_test_standInAccountB0002", webhookSecret: "whsec_standInB" };
export const RETURN_URL = "https://shop.example/stripe/return";
export const API_VERSION = "2026-10-28.endive";

export interface Fixture {
  standIn: StripeStandIn;
  /** Account A's client; no automatic retries unless a test asks for them. */
  stripe: Stripe;
  /** Account B's client. */
  other: Stripe;
  client(secretKey: string, config?: Stripe.StripeConfig): Stripe;
}

export async function startFixture(options: Partial<StripeStandInOptions> = {}): Promise<Fixture> {
  const standIn = await startStripeStandIn({ accounts: [ACCOUNT_A, ACCOUNT_B], ...options });
  const client = (secretKey: string, config: Stripe.StripeConfig = {}) =>
    new Stripe(secretKey, {
      apiVersion: API_VERSION,
      host: "127.0.0.1",
      port: standIn.port,
      protocol: "http",
      maxNetworkRetries: 0,
      ...config,
    });
  return { standIn, stripe: client(ACCOUNT_A.secretKey), other: client(ACCOUNT_B.secretKey), client };
}

/** Raw card data, which the package's parameter types leave out but Stripe's API takes. */
export function rawCard(
  number: string,
  card: { exp_month?: number; exp_year?: number; cvc?: string } = {},
): Stripe.PaymentIntentCreateParams.PaymentMethodData {
  const data = {
    type: "card" as const,
    card: { number, exp_month: 12, exp_year: new Date().getUTCFullYear() + 2, cvc: "123", ...card },
  };
  return data;
}

/** Waits until `check` holds, polling; fails after `timeoutMs`. */
export async function eventually(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
