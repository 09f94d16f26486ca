/**
 * Maps requests to handlers. Every handler error becomes a JSON answer; nothing a client sends
 * can crash the sandbox.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { SandboxContext } from "./context.js";
import { dashboardOperate, listPayments } from "./dashboard.js";
import { HttpError, readJsonObject, sendError, sendJson } from "./http.js";
import { operate, operationByReference } from "./operations.js";
import { showPage, submitPage } from "./pages.js";
import { confirmOtp, createPayment, findPayment, paymentByAttempt } from "./payments.js";
import { parseOperationRequest, parsePaymentRequest, str } from "./validate.js";

type Handler = (
  ctx: SandboxContext,
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
) => Promise<void> | void;

interface Route {
  method: "GET" | "POST";
  pattern: RegExp;
  handler: Handler;
}

const ID = "([A-Za-z0-9_-]{1,128})";

/** Waits `ms` on a timer the sandbox clears when it closes (closing cuts the connection anyway). */
function sleep(ctx: SandboxContext, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      ctx.timers.delete(timer);
      resolve();
    }, ms);
    ctx.timers.add(timer);
  });
}

const ROUTES: Route[] = [
  {
    method: "GET",
    pattern: /^\/health$/,
    handler: (_ctx, _req, res) => sendJson(res, 200, { ok: true, is_sandbox: true }),
  },
  {
    method: "POST",
    pattern: /^\/payments$/,
    handler: async (ctx, req, res) => {
      const result = createPayment(ctx, parsePaymentRequest(await readJsonObject(req)));
      if (ctx.paymentAnswerDelayMs > 0) await sleep(ctx, ctx.paymentAnswerDelayMs);
      sendJson(res, 200, result);
    },
  },
  {
    method: "GET",
    pattern: new RegExp(`^/payments/${ID}$`),
    handler: (ctx, _req, res, id) => sendJson(res, 200, findPayment(ctx, id).result),
  },
  {
    method: "POST",
    pattern: new RegExp(`^/payments/${ID}/otp$`),
    handler: async (ctx, req, res, id) =>
      sendJson(res, 200, confirmOtp(ctx, id, str(await readJsonObject(req), "otp", 32))),
  },
  {
    method: "POST",
    pattern: /^\/operations$/,
    handler: async (ctx, req, res) => {
      const { statusCode, body } = operate(ctx, parseOperationRequest(await readJsonObject(req)));
      if (ctx.operationAnswerDelayMs > 0) await sleep(ctx, ctx.operationAnswerDelayMs);
      sendJson(res, statusCode, body);
    },
  },
  {
    method: "GET",
    pattern: new RegExp(`^/operations/${ID}$`),
    handler: (ctx, _req, res, id) => {
      const { statusCode, body } = operationByReference(ctx, id);
      sendJson(res, statusCode, body);
    },
  },
  {
    method: "GET",
    pattern: new RegExp(`^/attempts/${ID}$`),
    handler: (ctx, _req, res, id) => sendJson(res, 200, paymentByAttempt(ctx, id).result),
  },
  {
    method: "GET",
    pattern: new RegExp(`^/pages/${ID}$`),
    handler: (ctx, _req, res, id) => showPage(ctx, res, id),
  },
  {
    method: "POST",
    pattern: new RegExp(`^/pages/${ID}$`),
    handler: (ctx, req, res, id) => submitPage(ctx, req, res, id),
  },
  {
    method: "GET",
    pattern: /^\/dashboard\/payments$/,
    handler: (ctx, _req, res) => sendJson(res, 200, listPayments(ctx)),
  },
  {
    method: "POST",
    pattern: /^\/dashboard\/operations$/,
    handler: async (ctx, req, res) => sendJson(res, 200, dashboardOperate(ctx, await readJsonObject(req))),
  },
];

export async function route(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const path = new URL(req.url ?? "/", "http://sandbox").pathname;
    const matches = ROUTES.filter((candidate) => candidate.pattern.test(path));
    if (matches.length === 0) throw new HttpError(404, "not_found", `no sandbox endpoint ${path}`);
    const match = matches.find((candidate) => candidate.method === req.method);
    if (!match) throw new HttpError(405, "method_not_allowed", `${req.method} is not allowed on ${path}`);
    await match.handler(ctx, req, res, match.pattern.exec(path)?.[1] ?? "");
  } catch (error) {
    if (res.headersSent) return void res.destroy();
    if (error instanceof HttpError) return sendError(res, error.statusCode, error.code, error.message);
    // A bug in the sandbox: answer 500 and keep serving other requests.
    console.error("sandbox gateway: unexpected error", error);
    sendError(res, 500, "internal_error", "the sandbox gateway failed on this request; see its log");
  }
}
