/**
 * One API request from arrival to answer: faults, parsing, `Stripe-Version`, authentication,
 * idempotency, the handler, and the answer with `Request-Id` and `Stripe-Version` headers (and
 * `Idempotency-Key`, `Original-Request`, `Idempotent-Replayed` for keyed requests, as Stripe's).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { authenticate, keyOf } from "./auth.js";
import type { StandInContext } from "./context.js";
import { errorBody, invalidRequest, StripeApiError } from "./errors.js";
import { EVENT_API_VERSION } from "./events.js";
import { INJECTED_FAILURE_MESSAGE, takeFaults } from "./faults.js";
import { canonicalJson, parseForm, type FormObject } from "./form.js";
import { readBody, sendJsonText } from "./http.js";
import { newRequestId } from "./ids.js";
import { findRoute } from "./routes.js";
import { keyIdOf, type AccountState } from "./store.js";
import { showThreeDSecurePage, submitThreeDSecure } from "./three-d-secure.js";
import type { StripeRequestRecord, StripeStandInFault } from "./types.js";

export interface RouterState {
  ctx: StandInContext;
  requests: StripeRequestRecord[];
  faults: StripeStandInFault[];
}

interface Answer {
  status: number;
  text: string;
  headers: Record<string, string>;
}

const THREE_DS_PATH = /^\/standin\/3ds\/([A-Za-z0-9_]+)$/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function headerValue(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  return typeof value === "string" ? value : null;
}

export async function route(state: RouterState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://stand-in");
  const method = req.method ?? "GET";
  const threeDs = THREE_DS_PATH.exec(url.pathname);
  if (threeDs) {
    if (method === "GET") return showThreeDSecurePage(state.ctx, res, threeDs[1] ?? "");
    const form = parseForm(await readBody(req));
    return submitThreeDSecure(
      state.ctx,
      res,
      threeDs[1] ?? "",
      typeof form.outcome === "string" ? form.outcome : "",
    );
  }
  const requestId = newRequestId();
  const key = keyOf(req);
  const record: StripeRequestRecord = {
    method,
    path: url.pathname,
    stripeVersion: headerValue(req, "stripe-version"),
    idempotencyKey: method === "POST" ? headerValue(req, "idempotency-key") : null,
    keyId: key ? keyIdOf(key) : null,
    params: {},
    requestId,
    status: null,
    replayed: false,
    receivedAt: Date.now(),
  };
  state.requests.push(record);
  const plan = takeFaults(state.faults, url.pathname, req.method ?? "GET");
  const answer = await answerFor(state, req, url, record, plan.failStatus, plan.delayMs);
  if (plan.loseAnswer) {
    req.socket.destroy();
    return;
  }
  record.status = answer.status;
  sendJsonText(res, answer.status, answer.text, answer.headers);
}

async function answerFor(
  state: RouterState,
  req: IncomingMessage,
  url: URL,
  record: StripeRequestRecord,
  failStatus: number | undefined,
  delayMs: number,
): Promise<Answer> {
  const headers: Record<string, string> = {
    "request-id": record.requestId,
    "stripe-version": EVENT_API_VERSION,
  };
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const asError = (error: StripeApiError): Answer => ({
    status: error.status,
    text: JSON.stringify(errorBody(error.fields, record.requestId, nowSeconds()), null, 2),
    headers,
  });
  if (failStatus)
    return asError(
      new StripeApiError(failStatus, { type: "api_error", message: INJECTED_FAILURE_MESSAGE }, "validation"),
    );
  let account: AccountState | undefined;
  let held: string | undefined;
  try {
    const form: FormObject =
      record.method === "POST" ? parseForm(await readBody(req)) : parseForm(url.search.slice(1));
    record.params = form;
    if (record.stripeVersion !== null && record.stripeVersion !== EVENT_API_VERSION)
      throw invalidRequest(
        `The Stripe stand-in speaks only API version ${EVENT_API_VERSION} (the one stripe@23.1.0 pins); this request asked for ${record.stripeVersion}.`,
        { phase: "validation" },
      );
    account = authenticate(state.ctx.accounts, keyOf(req));
    const { handler, pathParams } = findRoute(record.method, url.pathname);
    const idempotencyKey = record.idempotencyKey;
    if (idempotencyKey !== null) {
      headers["idempotency-key"] = idempotencyKey;
      const decision = account.idempotency.begin(
        idempotencyKey,
        `${record.method} ${url.pathname}`,
        canonicalJson(form),
      );
      if (decision.kind === "replay") {
        record.replayed = true;
        return {
          status: decision.answer.status,
          text: decision.answer.body,
          headers: {
            ...headers,
            "idempotent-replayed": "true",
            "original-request": decision.answer.requestId,
          },
        };
      }
      held = idempotencyKey;
      headers["original-request"] = record.requestId;
    }
    // A slow Stripe: the request is under way (its key held) while it waits.
    if (delayMs) await sleep(delayMs);
    const body = handler({
      ctx: state.ctx,
      account,
      form,
      pathParams,
      cause: { requestId: record.requestId, idempotencyKey },
    });
    const answer: Answer = { status: 200, text: JSON.stringify(body, null, 2), headers };
    if (held) account.idempotency.save(held, { status: 200, body: answer.text, requestId: record.requestId });
    return answer;
  } catch (error) {
    const stripeError =
      error instanceof StripeApiError
        ? error
        : new StripeApiError(500, { type: "api_error", message: `Stand-in failure: ${String(error)}` });
    const answer = asError(stripeError);
    if (held && account) {
      if (stripeError.phase === "validation") account.idempotency.release(held);
      else
        account.idempotency.save(held, {
          status: answer.status,
          body: answer.text,
          requestId: record.requestId,
        });
    }
    return answer;
  }
}
