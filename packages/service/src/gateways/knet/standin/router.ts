/**
 * The stand-in's routes under `/kpg/`: the payment initialisation, the payment page, and the
 * server API. Every request is recorded first (secrets redacted), so a test can count what KNET
 * received even when the answer is lost.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { type CheckoutContext, type PageAnswer, showPaymentPage, submitPaymentPage } from "./checkout.js";
import { BodyTooLarge, readBody, redirect, send, sendHtml } from "./http.js";
import { paymentInit, REDACTED } from "./init.js";
import { KnetStandInError } from "./knet-errors.js";
import { errorPage, PAYMENT_PAGE_PATH } from "./page.js";
import { pageLanguage } from "./page-text.js";
import { tranPipe } from "./tran-pipe.js";
import type { KnetRequestRecord } from "./types.js";

export interface RouterState extends CheckoutContext {
  requests: KnetRequestRecord[];
  pageLifetimeMs: number;
  /** The stand-in's URL as browsers reach it. */
  publicUrl(): string;
}

const INIT_PATH = "/kpg/PaymentHTTP.htm";
const TRAN_PIPE_PATH = "/kpg/tranPipe.htm";
/** Form fields no log should hold. */
const SECRET_FORM_FIELDS = ["pin", "cardNumber"];

const redacted = (fields: Record<string, string>, names: string[]) =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, names.includes(k) ? REDACTED : v]));

function methodNotAllowed(res: ServerResponse, allow: string): void {
  res.setHeader("allow", allow);
  send(res, 405, "text/plain; charset=utf-8", `Use ${allow}.`);
}

function answerPage(res: ServerResponse, answer: PageAnswer): void {
  if (answer.location) redirect(res, answer.location);
  else sendHtml(res, answer.status, answer.html ?? "");
}

export async function route(state: RouterState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://stand-in.invalid");
  const record: KnetRequestRecord = {
    at: new Date(),
    method: req.method ?? "",
    path: url.pathname,
    fields: {},
  };
  state.requests.push(record);
  try {
    if (url.pathname === INIT_PATH) {
      record.fields = redacted(Object.fromEntries(url.searchParams), ["trandata"]);
      if (req.method !== "GET") return methodNotAllowed(res, "GET");
      if (url.searchParams.get("param") !== "paymentInit")
        return send(res, 404, "text/plain; charset=utf-8", `KNET serves ${INIT_PATH}?param=paymentInit.`);
      try {
        const payment = paymentInit(state.ledger, url.searchParams, record, state.pageLifetimeMs);
        return redirect(res, `${state.publicUrl()}${PAYMENT_PAGE_PATH}?PaymentID=${payment.paymentId}`);
      } catch (error) {
        if (!(error instanceof KnetStandInError)) throw error;
        return sendHtml(res, 400, errorPage(error, pageLanguage(record.trandata?.langid ?? "")));
      }
    }
    if (url.pathname === PAYMENT_PAGE_PATH) {
      if (req.method === "GET") {
        record.fields = Object.fromEntries(url.searchParams);
        return answerPage(res, await showPaymentPage(state, url.searchParams));
      }
      if (req.method !== "POST") return methodNotAllowed(res, "GET, POST");
      const form = new URLSearchParams(await readBody(req));
      record.fields = redacted(Object.fromEntries(form), SECRET_FORM_FIELDS);
      return answerPage(res, await submitPaymentPage(state, form));
    }
    if (url.pathname === TRAN_PIPE_PATH) {
      if (req.method !== "POST") return methodNotAllowed(res, "POST");
      return await serverApi(state, url, req, res, record);
    }
    send(res, 404, "text/plain; charset=utf-8", "Not found: the KNET stand-in serves /kpg/.");
  } catch (error) {
    if (error instanceof BodyTooLarge) return send(res, 413, "text/plain; charset=utf-8", "Body too large.");
    throw error;
  }
}

async function serverApi(
  state: RouterState,
  url: URL,
  req: IncomingMessage,
  res: ServerResponse,
  record: KnetRequestRecord,
): Promise<void> {
  if (url.searchParams.get("param") !== "tranInit")
    return send(res, 404, "text/plain; charset=utf-8", `KNET serves ${TRAN_PIPE_PATH}?param=tranInit.`);
  const body = await readBody(req);
  const { faults } = state;
  if (faults.tranPipeStatus !== undefined) {
    // A proxy in front of KNET answered: KNET never saw the call, so no action is recorded.
    record.fields = { body: "(not read: faults.tranPipeStatus)" };
    const status = faults.tranPipeStatus;
    return sendHtml(res, status, `<html><body><h1>${status}</h1><p>Stand-in proxy error</p></body></html>`);
  }
  const outcome = tranPipe(state.ledger, req.headers["content-type"] ?? "", body, record);
  if (faults.tranPipeDelayMs > 0) await sleep(faults.tranPipeDelayMs, undefined, { signal: state.stop });
  if (outcome.refund && faults.loseRefundAnswers > 0) {
    faults.loseRefundAnswers -= 1;
    // Performed and recorded, never answered: the client sees its connection reset.
    req.socket.resetAndDestroy();
    return;
  }
  send(res, 200, "application/xml; charset=utf-8", outcome.xml);
}
