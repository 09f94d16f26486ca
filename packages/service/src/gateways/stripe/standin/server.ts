/**
 * Starts the stand-in: a node:http listener speaking Stripe's REST API for the accounts given.
 *
 * @example
 * const standIn = await startStripeStandIn({ accounts: [{ secretKey: "sk_test_a", webhookSecret: "whsec_a" }] });
 * const stripe = new Stripe("sk_test_a", { host: "127.0.0.1", port: standIn.port, protocol: "http" });
 * await stripe.paymentIntents.create({ amount: 500, currency: "eur" });
 * await standIn.close();
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type Stripe from "stripe";
import type { ApiRequest, StandInContext } from "./context.js";
import { DASHBOARD_CAUSE, EventRecorder } from "./events.js";
import type { FormObject } from "./form.js";
import { cancelPaymentIntent, capturePaymentIntent } from "./payment-intent-actions.js";
import { createRefund, refundableCharge } from "./refunds.js";
import { route, type RouterState } from "./router.js";
import { AccountState, snapshot } from "./store.js";
import type { StripeStandIn, StripeStandInOptions } from "./types.js";
import { WEBHOOK_RETRY_DELAYS_MS, WebhookSender } from "./webhooks.js";

/** Default time a pending refund stays pending (and a failing one stays succeeded). */
export const ASYNC_REFUND_DELAY_MS = 200;

export async function startStripeStandIn(options: StripeStandInOptions): Promise<StripeStandIn> {
  const keys = new Set(options.accounts.map((a) => a.secretKey));
  if (keys.size !== options.accounts.length)
    throw new Error("startStripeStandIn: two accounts share a secret key");
  const host = options.host ?? "127.0.0.1";
  const accounts = options.accounts.map((a) => new AccountState(a));
  const webhooks = new WebhookSender(options.webhookRetryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS);
  let url = "";
  const ctx: StandInContext = {
    accounts,
    events: new EventRecorder((account, event) => {
      account.events.push(event);
      webhooks.send(account, event);
    }),
    publicUrl: () => (options.publicUrl ?? url).replace(/\/+$/, ""),
    asyncRefundDelayMs: options.asyncRefundDelayMs ?? ASYNC_REFUND_DELAY_MS,
    timers: new Set(),
  };
  const state: RouterState = { ctx, requests: [], faults: [] };
  const server = createServer((req, res) => {
    route(state, req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const accountOf = (secretKey: string) => {
    const account = accounts.find((a) => a.config.secretKey === secretKey);
    if (!account) throw new Error("stripe stand-in: no account has that secret key");
    return account;
  };
  const accountHaving = (paymentIntentId: string) => {
    const account = accounts.find((a) => a.paymentIntents.has(paymentIntentId));
    if (!account) throw new Error(`stripe stand-in: no account has PaymentIntent ${paymentIntentId}`);
    return account;
  };
  // What an operator does on the dashboard goes through the API's own action, with no request.
  const dashboardRequest = (paymentIntentId: string, form: FormObject): ApiRequest => ({
    ctx,
    account: accountHaving(paymentIntentId),
    form,
    pathParams: [paymentIntentId],
    cause: DASHBOARD_CAUSE,
  });
  const chosen = (secretKey?: string) => (secretKey === undefined ? accounts : [accountOf(secretKey)]);
  return {
    url,
    port,
    requests: state.requests,
    faults: state.faults,
    deliveries: webhooks.deliveries,
    events: (secretKey) => snapshot(accountOf(secretKey).events),
    setWebhookUrl(secretKey, webhookUrl) {
      accountOf(secretKey).webhookUrl = webhookUrl;
    },
    dashboardRefund(paymentIntentId, amount, { settleAfterMs } = {}): Stripe.Refund {
      const account = accountHaving(paymentIntentId);
      const charge = refundableCharge(account, { paymentIntent: paymentIntentId });
      // Its own wait before a test card's later change of status, the timers still the stand-in's.
      const settling = settleAfterMs === undefined ? ctx : { ...ctx, asyncRefundDelayMs: settleAfterMs };
      return createRefund(settling, account, charge, { amount, metadata: {} }, DASHBOARD_CAUSE);
    },
    dashboardCapture(paymentIntentId, amount) {
      return capturePaymentIntent(
        dashboardRequest(paymentIntentId, amount === undefined ? {} : { amount_to_capture: String(amount) }),
      ) as Stripe.PaymentIntent;
    },
    dashboardCancel(paymentIntentId) {
      return cancelPaymentIntent(dashboardRequest(paymentIntentId, {})) as Stripe.PaymentIntent;
    },
    paymentIntents: (secretKey) =>
      chosen(secretKey)
        .flatMap((a) => [...a.paymentIntents.values()])
        .sort((a, b) => b.paymentIntent.created - a.paymentIntent.created || b.seq - a.seq)
        .map((r) => snapshot(r.paymentIntent)),
    refunds: (secretKey) =>
      chosen(secretKey)
        .flatMap((a) => [...a.refunds.values()])
        .sort((a, b) => b.refund.created - a.refund.created || b.seq - a.seq)
        .map((r) => snapshot(r.refund)),
    async close() {
      for (const timer of ctx.timers) clearTimeout(timer);
      ctx.timers.clear();
      webhooks.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
