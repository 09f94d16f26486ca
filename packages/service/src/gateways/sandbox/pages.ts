/**
 * The gateway pages a customer visits: the card challenge and the redirect (bank) page. Plain
 * HTML forms so they work without JavaScript; English or Arabic (right to left) per the payment;
 * the same look as svc's hosted card page, light and dark (pages/page-style.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { PAGE_CSS } from "../../pages/page-style.js";
import type { SandboxContext } from "./context.js";
import { HttpError, readBody, redirectTo, sendHtml } from "./http.js";
import { PAGE_TEXT } from "./page-text.js";
import { approveCard, decline, findPayment } from "./payments.js";
import type { SandboxPayment } from "./state.js";

const ACTIONS = ["approve", "decline", "cancel"] as const;
type PageAction = (typeof ACTIONS)[number];

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function renderPage(payment: SandboxPayment): string {
  const text = PAGE_TEXT[payment.language];
  const page = payment.page ?? "redirect";
  const pending = payment.result.status === "action_required";
  const dir = payment.language === "ar" ? "rtl" : "ltr";
  const buttons = ACTIONS.map(
    (action) =>
      `<button type="submit" name="action" value="${action}"${action === "approve" ? "" : ' class="secondary"'}>${escapeHtml(text[action])}</button>`,
  ).join("\n        ");
  const body = pending
    ? `<form method="post" class="actions" aria-labelledby="title">
        ${buttons}
      </form>`
    : `<p role="status">${escapeHtml(text.done)}</p>`;
  return `<!doctype html>
<html lang="${payment.language}" dir="${dir}">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(text.title[page])}</title>
    <style>${PAGE_CSS}</style>
  </head>
  <body>
    <main>
      <p class="overline">${escapeHtml(text.gateway)}</p>
      <h1 id="title">${escapeHtml(text.title[page])}</h1>
      <p>${escapeHtml(text.intro[page])}</p>
      <!-- The form has no action: it posts back to this page, wherever the sandbox is mounted. -->
      <dl>
        <dt>${escapeHtml(text.merchantReference)}</dt><dd><span dir="ltr">${escapeHtml(payment.sessionId)}</span></dd>
        <dt>${escapeHtml(text.amount)}</dt><dd class="total"><span dir="ltr">${escapeHtml(`${payment.amount} ${payment.currency}`)}</span></dd>
      </dl>
      ${body}
      <p class="notice">${escapeHtml(text.sandboxNotice)}</p>
    </main>
  </body>
</html>
`;
}

export function showPage(ctx: SandboxContext, res: ServerResponse, pgReference: string): void {
  sendHtml(res, 200, renderPage(findPayment(ctx, pgReference)));
}

/** The customer pressed a button: decide, notify svc, send the browser back to svc. */
export async function submitPage(
  ctx: SandboxContext,
  req: IncomingMessage,
  res: ServerResponse,
  pgReference: string,
): Promise<void> {
  const payment = findPayment(ctx, pgReference);
  const action = new URLSearchParams((await readBody(req)).toString("utf8")).get("action");
  if (!ACTIONS.includes(action as PageAction))
    throw new HttpError(400, "invalid_request", "action must be approve, decline or cancel");
  // A second press (back button, double submit) changes nothing and returns the same way.
  if (payment.result.status === "action_required") {
    finish(ctx, payment, action as PageAction);
  }
  const returnUrl = new URL(payment.returnUrl);
  returnUrl.searchParams.set("pg_reference", payment.pgReference);
  redirectTo(res, returnUrl.toString());
}

function finish(ctx: SandboxContext, payment: SandboxPayment, action: PageAction): void {
  const challenge = payment.page === "challenge";
  const challengeFlag = challenge ? { challenge_occurred: true } : {};
  if (action === "approve") {
    approveCard(ctx, payment, { result: "APPROVED" }, challenge);
  } else if (action === "decline") {
    decline(
      payment,
      { result: "DECLINED", reason: "the customer declined on the gateway page" },
      challengeFlag,
    );
  } else {
    payment.result = {
      status: "canceled",
      pg_reference: payment.pgReference,
      pg_response: {
        result: "CANCELED",
        reason: "the customer canceled on the gateway page",
        is_sandbox: true,
      },
    };
  }
  payment.pendingCard = undefined;
  ctx.notifier.send(payment.notificationUrl, payment.pgCode, {
    type: "payment_result",
    pg_reference: payment.pgReference,
    result: payment.result,
  });
}
