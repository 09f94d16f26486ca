/** Which handler answers which method and path (docs.stripe.com/api). */
import type { ApiRequest } from "./context.js";
import { invalidRequest } from "./errors.js";
import {
  cancelPaymentIntent,
  capturePaymentIntent,
  listPaymentIntents,
  retrievePaymentIntent,
} from "./payment-intent-actions.js";
import { confirmPaymentIntent, createPaymentIntent } from "./payment-intents.js";
import { getCharge, getEvent, listEvents } from "./read-routes.js";
import { getRefund, listRefunds, postRefund } from "./refund-routes.js";

export type Handler = (req: ApiRequest) => object;

interface Route {
  method: "GET" | "POST";
  pattern: RegExp;
  handler: Handler;
}

const ID = "([A-Za-z0-9_]+)";

function searchNotModelled(): object {
  throw invalidRequest(
    "The Stripe stand-in does not implement /v1/payment_intents/search (Stripe documents search as eventually consistent; list with created filters instead).",
    { status: 404, phase: "validation" },
  );
}

const ROUTES: Route[] = [
  { method: "POST", pattern: /^\/v1\/payment_intents$/, handler: createPaymentIntent },
  { method: "GET", pattern: /^\/v1\/payment_intents$/, handler: listPaymentIntents },
  { method: "GET", pattern: /^\/v1\/payment_intents\/search$/, handler: searchNotModelled },
  { method: "GET", pattern: new RegExp(`^/v1/payment_intents/${ID}$`), handler: retrievePaymentIntent },
  {
    method: "POST",
    pattern: new RegExp(`^/v1/payment_intents/${ID}/confirm$`),
    handler: confirmPaymentIntent,
  },
  {
    method: "POST",
    pattern: new RegExp(`^/v1/payment_intents/${ID}/capture$`),
    handler: capturePaymentIntent,
  },
  { method: "POST", pattern: new RegExp(`^/v1/payment_intents/${ID}/cancel$`), handler: cancelPaymentIntent },
  { method: "POST", pattern: /^\/v1\/refunds$/, handler: postRefund },
  { method: "GET", pattern: /^\/v1\/refunds$/, handler: listRefunds },
  { method: "GET", pattern: new RegExp(`^/v1/refunds/${ID}$`), handler: getRefund },
  { method: "GET", pattern: new RegExp(`^/v1/charges/${ID}$`), handler: getCharge },
  { method: "GET", pattern: /^\/v1\/events$/, handler: listEvents },
  { method: "GET", pattern: new RegExp(`^/v1/events/${ID}$`), handler: getEvent },
];

/** The handler and path ids for a request, or Stripe's 404 for an unrecognised URL. */
export function findRoute(method: string, path: string): { handler: Handler; pathParams: string[] } {
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(path);
    if (match) return { handler: route.handler, pathParams: match.slice(1).map((p) => p ?? "") };
  }
  throw invalidRequest(
    `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    { status: 404, phase: "validation" },
  );
}
