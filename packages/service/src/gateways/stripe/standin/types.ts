/** The stand-in's public options and handle. */
import type Stripe from "stripe";
import type { WebhookDelivery } from "./webhooks.js";

export interface StripeStandInAccount {
  /** The key the account's requests carry (`Authorization: Bearer sk_test_…`). */
  secretKey: string;
  /** The `whsec_…` secret webhook signatures are made with. */
  webhookSecret: string;
  /** Where events are POSTed; none means no deliveries (events are still recorded). */
  webhookUrl?: string;
  /** Whether the account may send raw card numbers (`payment_method_data[card][number]`); default true. */
  rawCardData?: boolean;
}

export interface StripeStandInOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  accounts: StripeStandInAccount[];
  /** Base URL browsers use for the stand-in's pages (the 3-D Secure page), when not the listener's. */
  publicUrl?: string;
  /** Waits between webhook tries; default [50, 200, 1000]. */
  webhookRetryDelaysMs?: number[];
  /** How long a pending refund stays pending (and a failing one succeeded); default 200. */
  asyncRefundDelayMs?: number;
}

/** One API request as received: what a test asserts on. Never holds a secret key. */
export interface StripeRequestRecord {
  method: string;
  path: string;
  /** `Stripe-Version` as sent (null when absent: the stand-in then answers in its one version). */
  stripeVersion: string | null;
  idempotencyKey: string | null;
  /** The key's prefix and last four characters (e.g. `sk_test_…1234`), or null without a key. */
  keyId: string | null;
  /** The form body (POST) or query (GET), parsed from Stripe's bracket notation. */
  params: object;
  requestId: string;
  /** The answer's HTTP status; null when the answer was lost on purpose (faults). */
  status: number | null;
  replayed: boolean;
  receivedAt: number;
}

/**
 * A fault the next matching API requests meet; `path` filters on the URL path (default all /v1),
 * `method` on the HTTP method (default any).
 */
export type StripeStandInFault = { path?: RegExp; method?: "GET" | "POST" } &
  /** The request is performed, then the connection is destroyed without an answer. */
  (
    | { loseAnswers: number }
    /** Answered with Stripe's `api_error` JSON without doing anything. */
    | { failNext: number; status: 500 | 502 | 503 }
    /** Each matching request waits this long first; `count` limits how many (default: all). */
    | { delayMs: number; count?: number }
  );

export interface StripeStandIn {
  /** e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  port: number;
  close(): Promise<void>;
  requests: StripeRequestRecord[];
  /** The account's events, oldest first (copies). */
  events(secretKey: string): Stripe.Event[];
  deliveries: WebhookDelivery[];
  setWebhookUrl(secretKey: string, url: string | undefined): void;
  /**
   * A refund made by an operator on Stripe's dashboard: same effects and events as an API
   * refund, but no metadata and events whose `request.id` is null. `settleAfterMs`: this
   * refund's wait before a test card's later status (default `asyncRefundDelayMs`).
   */
  dashboardRefund(
    paymentIntentId: string,
    amount?: number,
    options?: { settleAfterMs?: number },
  ): Stripe.Refund;
  /** A capture made on the dashboard (all that is capturable, or `amount`): the API's effects and events, no metadata, no request. */
  dashboardCapture(paymentIntentId: string, amount?: number): Stripe.PaymentIntent;
  /** A PaymentIntent canceled on the dashboard (its authorization released): the API's effects and events, no request. */
  dashboardCancel(paymentIntentId: string): Stripe.PaymentIntent;
  /** Every account's PaymentIntents, or one account's (copies, newest first). */
  paymentIntents(secretKey?: string): Stripe.PaymentIntent[];
  refunds(secretKey?: string): Stripe.Refund[];
  /** Push faults here; each is used up by matching requests, in order. */
  faults: StripeStandInFault[];
}
