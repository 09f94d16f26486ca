/**
 * The stand-in's 3-D Secure page, where `next_action.redirect_to_url.url` sends the customer:
 * plain HTML (no script) with "Complete authentication" and "Fail authentication" buttons, like
 * Stripe's test-mode authentication page. Posting it moves the PaymentIntent on and sends the
 * browser (303) to the `return_url` with `payment_intent`, `payment_intent_client_secret` and
 * `redirect_status`, as Stripe's redirect does (docs.stripe.com/payments/3d-secure).
 */
import type { ServerResponse } from "node:http";
import type { StandInContext } from "./context.js";
import { DASHBOARD_CAUSE } from "./events.js";
import { redirect, sendHtml } from "./http.js";
import { confirmWith, failAuthentication } from "./payment-flow.js";
import { formatMinor } from "./currencies.js";
import { StripeApiError } from "./errors.js";
import type { AccountState, PaymentIntentRecord } from "./store.js";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function find(
  ctx: StandInContext,
  id: string,
): { account: AccountState; record: PaymentIntentRecord } | undefined {
  for (const account of ctx.accounts) {
    const record = account.paymentIntents.get(id);
    if (record) return { account, record };
  }
  return undefined;
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}button{font:inherit;padding:.6rem 1rem;margin:.25rem .5rem .25rem 0}</style></head><body>${body}</body></html>`;
}

export function showThreeDSecurePage(ctx: StandInContext, res: ServerResponse, id: string): void {
  const found = find(ctx, id);
  if (!found || found.record.paymentIntent.status !== "requires_action") {
    sendHtml(
      res,
      404,
      page(
        "Nothing to authenticate",
        "<h1>Nothing to authenticate</h1><p>This payment does not await 3D Secure authentication.</p>",
      ),
    );
    return;
  }
  const pi = found.record.paymentIntent;
  const action = `/standin/3ds/${encodeURIComponent(id)}`;
  sendHtml(
    res,
    200,
    page(
      "3D Secure test payment page",
      `<h1>3D Secure 2 test page</h1><p>Stripe stand-in: authenticate the payment of ${escapeHtml(formatMinor(pi.amount, pi.currency))}.</p>` +
        `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="outcome" value="complete"><button type="submit">Complete authentication</button></form>` +
        `<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="outcome" value="fail"><button type="submit">Fail authentication</button></form>`,
    ),
  );
}

/** Handles the page's form: completes or fails authentication and redirects to the return_url. */
export function submitThreeDSecure(
  ctx: StandInContext,
  res: ServerResponse,
  id: string,
  outcome: string,
): void {
  const found = find(ctx, id);
  if (
    !found ||
    found.record.paymentIntent.status !== "requires_action" ||
    !found.record.pendingPaymentMethod
  ) {
    sendHtml(
      res,
      409,
      page(
        "Nothing to authenticate",
        "<h1>Nothing to authenticate</h1><p>This payment does not await 3D Secure authentication.</p>",
      ),
    );
    return;
  }
  const { account, record } = found;
  const method = found.record.pendingPaymentMethod;
  // The customer acts in the browser: no API request causes these events.
  const cause = DASHBOARD_CAUSE;
  if (outcome !== "complete") failAuthentication(ctx, account, record, cause);
  else if (record.paymentIntent.confirmation_method === "manual") {
    // Manual confirmation: the server confirms again after authentication (no event for this step).
    record.authenticated = true;
    record.paymentIntent.status = "requires_confirmation";
    record.paymentIntent.next_action = null;
  } else {
    record.authenticated = true;
    try {
      confirmWith(ctx, account, record, method, record.returnUrl, cause);
    } catch (error) {
      if (!(error instanceof StripeApiError)) throw error; // a decline: the PaymentIntent already says so
    }
  }
  const pi = record.paymentIntent;
  const target = new URL(record.returnUrl ?? ctx.publicUrl());
  target.searchParams.set("payment_intent", pi.id);
  target.searchParams.set("payment_intent_client_secret", pi.client_secret ?? "");
  target.searchParams.set(
    "redirect_status",
    pi.status === "requires_payment_method" ? "failed" : "succeeded",
  );
  redirect(res, target.toString());
}
