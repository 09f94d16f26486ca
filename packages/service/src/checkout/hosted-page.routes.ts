/**
 * The hosted card page (`svc_pg`) at /pay/{session_id}, and the return point of gateway pages at
 * /pay/{session_id}/return. The unguessable session id is the capability: no key is needed, as
 * with any hosted payment page. Post/redirect/get: a submitted form redirects to a page that shows
 * the stored state, so reloading never pays twice.
 */
import { formatAmount } from "@svc/protocol";
import type { FastifyInstance, FastifyReply } from "fastify";
import { AppError } from "../http/problem.js";
import { parseCardForm } from "./card-input.js";
import type { TransactionRow } from "./checkout.repo.js";
import type { CheckoutService } from "./checkout.service.js";
import { type CardFormView, cardFormPage, messagePage } from "./hosted-page.html.js";

const SESSION_ID = /^sess_[a-z2-7]{1,40}$/;

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .status(status)
    .type("text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header(
      "content-security-policy",
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https:; frame-ancestors 'none'; base-uri 'none'",
    )
    .header("referrer-policy", "no-referrer")
    .send(body);
}

function merchantReturn(tx: TransactionRow): string | undefined {
  if (!tx.redirect_url) return undefined;
  const url = new URL(tx.redirect_url);
  url.searchParams.set("session_id", tx.session_id);
  url.searchParams.set("state", tx.state);
  return url.toString();
}

export function hostedPageRoutes(app: FastifyInstance, checkout: CheckoutService): void {
  const schema = { hide: true };

  async function formView(
    tx: TransactionRow,
    selected: string | undefined,
    values: Record<string, string>,
    errors: CardFormView["errors"],
  ): Promise<CardFormView> {
    const settings = await checkout.gatewaySettingsFor(tx);
    const gateways = settings.filter(
      (s) => s.currencies.includes(tx.currency_code) && checkout.supportsCard(s.kind),
    );
    return {
      language: tx.language,
      sessionId: tx.session_id,
      amount: formatAmount(tx.amount_minor, tx.currency_code),
      currency: tx.currency_code,
      orderNo: tx.order_no,
      gateways: gateways.map((g) => ({ pg_code: g.pg_code, name: g.name })),
      selectedPgCode: selected,
      canSaveCard: tx.customer_id !== null,
      values,
      errors,
    };
  }

  function statePage(reply: FastifyReply, tx: TransactionRow): FastifyReply {
    const back = merchantReturn(tx);
    const link = back ? { href: back, text: "back_to_shop" as const } : undefined;
    switch (tx.state) {
      case "paid":
        return html(reply, 200, messagePage(tx.language, "paid_title", "paid_body", link));
      case "authorized":
        return html(reply, 200, messagePage(tx.language, "paid_title", "authorized_body", link));
      case "failed":
        return html(reply, 200, messagePage(tx.language, "failed_title", "failed_body", link));
      case "canceled":
        return html(reply, 200, messagePage(tx.language, "canceled_title", "canceled_body", link));
      case "expired":
        return html(reply, 410, messagePage(tx.language, "expired_title", "expired_body", link));
      default:
        return html(reply, 409, messagePage(tx.language, "in_progress_title", "in_progress_body", link));
    }
  }

  app.get("/pay/:session_id", { schema }, async (request, reply) => {
    const { session_id } = request.params as { session_id: string };
    const tx = SESSION_ID.test(session_id) ? await checkout.loadForPage(session_id) : undefined;
    if (!tx) return html(reply, 404, messagePage("en", "not_found_title", "not_found_body"));
    if (tx.state !== "created" && tx.state !== "pending") return statePage(reply, tx);
    const pgCode = (request.query as { pg_code?: string }).pg_code;
    const view = await formView(tx, pgCode, {}, {});
    if (view.gateways.length === 0)
      return html(reply, 404, messagePage(tx.language, "not_found_title", "not_found_body"));
    return html(reply, 200, cardFormPage(view));
  });

  app.post("/pay/:session_id", { schema }, async (request, reply) => {
    const { session_id } = request.params as { session_id: string };
    const tx = SESSION_ID.test(session_id) ? await checkout.loadForPage(session_id) : undefined;
    if (!tx) return html(reply, 404, messagePage("en", "not_found_title", "not_found_body"));
    if (tx.state !== "created" && tx.state !== "pending") return reply.redirect(`/pay/${session_id}`, 303);
    const raw = (typeof request.body === "object" && request.body !== null ? request.body : {}) as Record<
      string,
      unknown
    >;
    const form: Record<string, string> = {};
    for (const key of ["number", "expiry", "cvc", "holder", "pg_code", "save_card"]) {
      const value = raw[key];
      if (typeof value === "string") form[key] = value.slice(0, 200);
    }
    const parsed = parseCardForm(form, new Date());
    const view = await formView(tx, form.pg_code, { ...form, cvc: "" }, parsed.ok ? {} : parsed.errors);
    const pgCode = view.gateways.find((g) => g.pg_code === form.pg_code)?.pg_code;
    if (!pgCode) view.errors.pg_code = "err_gateway";
    if (!parsed.ok || !pgCode) return html(reply, 422, cardFormPage(view));
    try {
      const outcome = await checkout.payByCard(session_id, pgCode, {
        ...parsed.card,
        save: form.save_card === "1" && tx.customer_id !== null,
      });
      if (outcome.kind === "redirect") return reply.redirect(outcome.redirectUrl, 303);
      const back = outcome.kind === "final" ? merchantReturn(outcome.tx) : undefined;
      return reply.redirect(back ?? `/pay/${session_id}`, 303);
    } catch (error) {
      if (error instanceof AppError) return reply.redirect(`/pay/${session_id}`, 303);
      throw error;
    }
  });

  app.get("/pay/:session_id/return", { schema }, async (request, reply) => {
    const { session_id } = request.params as { session_id: string };
    const tx = SESSION_ID.test(session_id)
      ? await checkout.handleReturn(session_id).catch(() => checkout.loadForPage(session_id))
      : undefined;
    if (!tx) return html(reply, 404, messagePage("en", "not_found_title", "not_found_body"));
    const back = tx.state !== "attempted" ? merchantReturn(tx) : undefined;
    return back ? reply.redirect(back, 303) : statePage(reply, tx);
  });
}
