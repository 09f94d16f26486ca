/**
 * Webhook delivery as docs.stripe.com/webhooks describes it: each event POSTed as JSON to the
 * account's endpoint with a `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<payload>" keyed with the endpoint secret>` header (what the package's
 * `stripe.webhooks.constructEvent` verifies); a non-2xx answer or a failed connection is tried
 * again later, signed afresh with the same event. Stripe retries for days; the stand-in after
 * `retryDelaysMs`, then gives up. Events are delivered independently, so, as on Stripe, they
 * may arrive out of order.
 */
import { createHmac } from "node:crypto";
import type Stripe from "stripe";
import type { AccountState } from "./store.js";

/** Stand-in default waits between tries (Stripe's real schedule spans three days). */
export const WEBHOOK_RETRY_DELAYS_MS = [50, 200, 1000];
/** How long one delivery attempt may take before it counts as failed. */
export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 10_000;

/** One delivery attempt and what the receiver answered. */
export interface WebhookDelivery {
  eventId: string;
  eventType: string;
  /** The account, as its key id (never the key). */
  account: string;
  url: string;
  /** 1 for the first try. */
  attempt: number;
  signature: string;
  startedAt: number;
  /** The receiver's HTTP status, or null when no answer came (connection failed, timed out). */
  status: number | null;
  error?: string;
}

/**
 * The header value Stripe sends; `secret` is the whole `whsec_…` string, as Stripe keys it.
 *
 * @example
 * signPayload('{"id":"evt_1"}', "whsec_test", 1_700_000_000);
 * // "t=1700000000,v1=5f0c…"
 */
export function signPayload(payload: string, secret: string, timestampSeconds: number): string {
  const v1 = createHmac("sha256", secret).update(`${timestampSeconds}.${payload}`).digest("hex");
  return `t=${timestampSeconds},v1=${v1}`;
}

export class WebhookSender {
  readonly deliveries: WebhookDelivery[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<AbortController>();
  private closed = false;

  constructor(private readonly retryDelaysMs: readonly number[]) {}

  /** Starts delivering `event` to the account's endpoint, if it has one. */
  send(account: AccountState, event: Stripe.Event): void {
    const url = account.webhookUrl;
    if (!url || this.closed) return;
    void this.attempt(account, event, url, 1);
  }

  private async attempt(
    account: AccountState,
    event: Stripe.Event,
    url: string,
    attempt: number,
  ): Promise<void> {
    const payload = JSON.stringify(event, null, 2);
    const signature = signPayload(payload, account.config.webhookSecret, Math.floor(Date.now() / 1000));
    const delivery: WebhookDelivery = {
      eventId: event.id,
      eventType: event.type,
      account: account.keyId,
      url,
      attempt,
      signature,
      startedAt: Date.now(),
      status: null,
    };
    this.deliveries.push(delivery);
    const abort = new AbortController();
    this.inFlight.add(abort);
    const timeout = setTimeout(() => abort.abort(), WEBHOOK_ATTEMPT_TIMEOUT_MS);
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json; charset=utf-8",
          "stripe-signature": signature,
          "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
        },
        body: payload,
        signal: abort.signal,
      });
      delivery.status = response.status;
      await response.body?.cancel();
    } catch (error) {
      delivery.error = error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timeout);
      this.inFlight.delete(abort);
    }
    const delivered = delivery.status !== null && delivery.status >= 200 && delivery.status < 300;
    if (delivered) {
      const logged = account.events.find((e) => e.id === event.id);
      if (logged) logged.pending_webhooks = 0;
      return;
    }
    const delay = this.retryDelaysMs[attempt - 1];
    if (delay === undefined || this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(account, event, account.webhookUrl ?? url, attempt + 1);
    }, delay);
    this.timers.add(timer);
  }

  /** Stops retries and aborts attempts under way. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const abort of this.inFlight) abort.abort();
  }
}
