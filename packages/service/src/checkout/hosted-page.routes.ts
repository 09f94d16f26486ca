/**
 * The hosted card page (`svc_pg`) at /pay/{session_id}, its cancel action, and the return point
 * of gateway pages at /pay/{session_id}/return. The unguessable session id is the capability: no
 * key is needed, as with any hosted payment page. Post/redirect/get: a submitted form redirects
 * to a page that shows the stored state, so reloading never pays twice.
 */
import { randomBytes } from "node:crypto";
import { FINAL_PARENT_STATES, type Language, LANGUAGES, formatAmount } from "@svc/protocol";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply } from "fastify";
import { AppError } from "../http/problem.js";
import { parseCardForm } from "./card-input.js";
import type { TransactionRow } from "./checkout.repo.js";
import type { CheckoutService } from "./checkout.service.js";
import { type CardFormView, cardFormPage, messagePage, type PaymentSummary } from "./hosted-page.js";
import type { TextKey } from "./i18n.js";
import { typed } from "../http/schema.js";

const SESSION_ID = /^sess_[a-z2-7]{1,40}$/;
const FINAL = new Set<string>(FINAL_PARENT_STATES);

/** The page's one script and one stylesheet run under this response's nonce; nothing else runs. */
function csp(nonce: string): string {
  return `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; form-action 'self' http: https:; frame-ancestors 'none'; base-uri 'none'`;
}

function html(reply: FastifyReply, status: number, render: (nonce: string) => string): FastifyReply {
  const nonce = randomBytes(16).toString("base64");
  return reply
    .status(status)
    .type("text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("content-security-policy", csp(nonce))
    .header("referrer-policy", "no-referrer")
    .send(render(nonce));
}

function merchantReturn(tx: TransactionRow): string | undefined {
  if (!tx.redirect_url) return undefined;
  const url = new URL(tx.redirect_url);
  url.searchParams.set("session_id", tx.session_id);
  url.searchParams.set("state", tx.state);
  return url.toString();
}

/** `?lang=` (or the form's `lang` field) overrides the transaction's language; other values are ignored. */
function langOf(source: unknown): Language | undefined {
  const lang =
    typeof source === "object" && source !== null ? (source as { lang?: unknown }).lang : undefined;
  return LANGUAGES.includes(lang as Language) ? (lang as Language) : undefined;
}

function pagePath(sessionId: string, lang: Language | undefined): string {
  return `/pay/${sessionId}${lang ? `?lang=${lang}` : ""}`;
}

function formOf(body: unknown): Record<string, string> {
  const raw = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const form: Record<string, string> = {};
  for (const key of ["number", "expiry", "cvc", "holder", "pg_code", "save_card", "lang"]) {
    const value = raw[key];
    if (typeof value === "string") form[key] = value.slice(0, 200);
  }
  return form;
}

export function hostedPageRoutes(fastify: FastifyInstance, checkout: CheckoutService): void {
  const app = typed(fastify);
  const schema = {
    hide: true,
    params: Type.Object({ session_id: Type.String() }),
    // Any query is accepted (a page never answers 400 for a stray parameter); each is checked.
    querystring: Type.Object({ lang: Type.Optional(Type.Unknown()), pg_code: Type.Optional(Type.Unknown()) }),
  };

  async function formView(
    tx: TransactionRow,
    lang: Language | undefined,
    selected: string | undefined,
    values: Record<string, string>,
    errors: CardFormView["errors"],
  ): Promise<Omit<CardFormView, "nonce">> {
    const [settings, merchantName] = await Promise.all([
      checkout.gatewaySettingsFor(tx),
      checkout.merchantName(tx.merchant_id),
    ]);
    const gateways = settings.filter(
      (s) => s.currencies.includes(tx.currency_code) && checkout.supportsCard(s.kind),
    );
    return {
      language: lang ?? tx.language,
      langOverride: lang,
      sessionId: tx.session_id,
      merchantName: merchantName ?? "",
      amount: formatAmount(tx.amount_minor, tx.currency_code),
      currency: tx.currency_code,
      orderNo: tx.order_no,
      gateways: gateways.map((g) => ({ pg_code: g.pg_code, name: g.name })),
      selectedPgCode: selected,
      canSaveCard: tx.customer_id !== null,
      returnsToShop: tx.redirect_url !== null,
      values,
      errors,
    };
  }

  function message(
    reply: FastifyReply,
    status: number,
    language: Language,
    title: TextKey,
    body: TextKey,
    link?: { href: string; text: TextKey },
    summary?: PaymentSummary,
  ): FastifyReply {
    return html(reply, status, (nonce) => messagePage(language, nonce, title, body, link, summary));
  }

  function notFound(reply: FastifyReply, lang: Language | undefined): FastifyReply {
    return message(reply, 404, lang ?? "en", "not_found_title", "not_found_body");
  }

  /**
   * A transaction's page once it is no longer open: what happened, and what it was (the shop,
   * the amount, the order), as the form showed it, so a customer can tell which payment it is.
   */
  async function statePage(
    reply: FastifyReply,
    tx: TransactionRow,
    lang: Language | undefined,
  ): Promise<FastifyReply> {
    const back = merchantReturn(tx);
    const link = back ? { href: back, text: "back_to_shop" as const } : undefined;
    const L = lang ?? tx.language;
    const summary: PaymentSummary = {
      merchantName: (await checkout.merchantName(tx.merchant_id)) ?? "",
      amount: formatAmount(tx.amount_minor, tx.currency_code),
      currency: tx.currency_code,
      orderNo: tx.order_no,
    };
    const say = (status: number, title: TextKey, body: TextKey) =>
      message(reply, status, L, title, body, link, summary);
    switch (tx.state) {
      case "paid":
        return say(200, "paid_title", "paid_body");
      case "authorized":
        return say(200, "paid_title", "authorized_body");
      case "failed":
        return say(200, "failed_title", "failed_body");
      case "canceled":
        return say(200, "canceled_title", "canceled_body");
      case "expired":
        return say(410, "expired_title", "expired_body");
      default:
        return say(409, "in_progress_title", "in_progress_body");
    }
  }

  async function loadPage(sessionId: string): Promise<TransactionRow | undefined> {
    return SESSION_ID.test(sessionId) ? checkout.loadForPage(sessionId) : undefined;
  }

  app.get("/pay/:session_id", { schema }, async (request, reply) => {
    const { session_id } = request.params;
    const lang = langOf(request.query);
    const tx = await loadPage(session_id);
    if (!tx) return notFound(reply, lang);
    if (tx.state === "attempted") {
      // Back after closing the window on a challenge or gateway page: that page, not a dead end.
      const next = await checkout.continueUrl(session_id);
      if (next) return reply.header("cache-control", "no-store").redirect(next, 303);
    }
    if (tx.state !== "created" && tx.state !== "pending") return statePage(reply, tx, lang);
    const pgCode = typeof request.query.pg_code === "string" ? request.query.pg_code : undefined;
    const view = await formView(tx, lang, pgCode, {}, {});
    if (view.gateways.length === 0) return notFound(reply, view.language);
    return html(reply, 200, (nonce) => cardFormPage({ ...view, nonce }));
  });

  app.post("/pay/:session_id", { schema }, async (request, reply) => {
    const { session_id } = request.params;
    const form = formOf(request.body);
    const lang = langOf(form);
    const tx = await loadPage(session_id);
    if (!tx) return notFound(reply, lang);
    if (tx.state !== "created" && tx.state !== "pending")
      return reply.redirect(pagePath(session_id, lang), 303);
    const parsed = parseCardForm(form, new Date());
    const view = await formView(tx, lang, form.pg_code, { ...form, cvc: "" }, parsed.ok ? {} : parsed.errors);
    const pgCode = view.gateways.find((g) => g.pg_code === form.pg_code)?.pg_code;
    if (!pgCode) view.errors.pg_code = "err_gateway";
    if (!parsed.ok || !pgCode) return html(reply, 422, (nonce) => cardFormPage({ ...view, nonce }));
    try {
      const outcome = await checkout.payByCard(
        session_id,
        pgCode,
        { ...parsed.card, save: form.save_card === "1" && tx.customer_id !== null },
        lang,
      );
      if (outcome.kind === "redirect") return reply.redirect(outcome.redirectUrl, 303);
      const back = outcome.kind === "final" ? merchantReturn(outcome.tx) : undefined;
      return reply.redirect(back ?? pagePath(session_id, lang), 303);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // A payment that ended (declined, its outcome being found out) shows its state; one still
      // open was not made (the gateway setting cannot be used, the database is away…): the form
      // again, saying so, instead of a blank form that looks as if nothing happened.
      const now = await loadPage(session_id);
      if (now?.state !== "created" && now?.state !== "pending")
        return reply.redirect(pagePath(session_id, lang), 303);
      view.errors.pg_code = "err_payment_failed";
      return html(reply, error.status >= 500 ? 503 : 422, (nonce) => cardFormPage({ ...view, nonce }));
    }
  });

  /**
   * "Cancel and return to the shop": a POST, so a link prefetcher cannot cancel. Cancels only an
   * open transaction with no payment attempt (decided in one conditional statement). A final
   * transaction returns to the shop with its state; without a redirect_url, or while a payment
   * is in flight, the page shows the stored state (303 to the GET: reloading posts nothing).
   */
  app.post("/pay/:session_id/cancel", { schema }, async (request, reply) => {
    const { session_id } = request.params;
    const lang = langOf(formOf(request.body));
    const tx = SESSION_ID.test(session_id) ? await checkout.cancelOnPage(session_id) : undefined;
    if (!tx) return notFound(reply, lang);
    const back = FINAL.has(tx.state) ? merchantReturn(tx) : undefined;
    return reply.redirect(back ?? pagePath(session_id, lang), 303);
  });

  // A GET of the cancel URL (a prefetcher, a crawler, the address copied from the bar) cancels
  // nothing: it is sent to the payment page, which shows the transaction as it is.
  app.get("/pay/:session_id/cancel", { schema }, async (request, reply) => {
    const { session_id } = request.params;
    const lang = langOf(request.query);
    if (!SESSION_ID.test(session_id)) return notFound(reply, lang);
    return reply.header("cache-control", "no-store").redirect(pagePath(session_id, lang), 303);
  });

  app.get("/pay/:session_id/return", { schema }, async (request, reply) => {
    const { session_id } = request.params;
    const lang = langOf(request.query);
    const tx = SESSION_ID.test(session_id)
      ? await checkout.handleReturn(session_id).catch(() => checkout.loadForPage(session_id))
      : undefined;
    if (!tx) return notFound(reply, lang);
    const back = tx.state !== "attempted" ? merchantReturn(tx) : undefined;
    return back ? reply.redirect(back, 303) : statePage(reply, tx, lang);
  });
}
