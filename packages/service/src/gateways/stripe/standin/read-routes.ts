/**
 * GET /v1/charges/:id (docs.stripe.com/api/charges/retrieve; `refunds` only when expanded, as
 * since API version 2022-11-15), GET /v1/events/:id and GET /v1/events
 * (docs.stripe.com/api/events: `type` with `*` wildcards, `types[]`, `created`, pagination), so
 * a webhook receiver can fetch an event again rather than trust a payload.
 */
import type Stripe from "stripe";
import type { ApiRequest } from "./context.js";
import { invalidRequest, resourceMissing } from "./errors.js";
import { CHARGE_EXPANDABLE, checkExpand, expandCharge } from "./expand.js";
import { matchesCreated, page, PAGINATION_FIELDS } from "./list.js";
import { read, readObject, type Spec } from "./params.js";
import { snapshot } from "./store.js";

const EXPAND: Spec = { t: "array", of: { t: "string" } };
/** Stripe takes up to 20 event types in `types[]`. */
const EVENT_TYPES_MAX = 20;

const CHARGE_RETRIEVE_FIELDS: Record<keyof Stripe.ChargeRetrieveParams, Spec> = { expand: EXPAND };
const EVENT_RETRIEVE_FIELDS: Record<keyof Stripe.EventRetrieveParams, Spec> = { expand: EXPAND };
const EVENT_LIST_FIELDS: Record<keyof Stripe.EventListParams, Spec> = {
  ...PAGINATION_FIELDS,
  created: { t: "range" },
  delivery_success: { t: "boolean" },
  expand: EXPAND,
  type: { t: "string" },
  types: { t: "array", of: { t: "string" }, max: EVENT_TYPES_MAX },
};

export function getCharge(req: ApiRequest): object {
  const params = readObject(req.form, CHARGE_RETRIEVE_FIELDS, []);
  const expand = read.strings(params, "expand") ?? [];
  checkExpand(expand, CHARGE_EXPANDABLE);
  const id = req.pathParams[0] ?? "";
  const record = req.account.charges.get(id);
  if (!record) throw resourceMissing("charge", id, "id");
  return expandCharge(req.account, record.charge, expand);
}

export function getEvent(req: ApiRequest): object {
  const params = readObject(req.form, EVENT_RETRIEVE_FIELDS, []);
  checkExpand(read.strings(params, "expand") ?? [], []);
  const id = req.pathParams[0] ?? "";
  const event = req.account.events.find((e) => e.id === id);
  if (!event) throw resourceMissing("event", id, "id");
  return snapshot(event);
}

/** `charge.*` matches every charge event, as Stripe's wildcard does. */
function typeMatches(pattern: string, type: string): boolean {
  if (!pattern.includes("*")) return pattern === type;
  const regex = new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return regex.test(type);
}

export function listEvents(req: ApiRequest): object {
  const params = readObject(req.form, EVENT_LIST_FIELDS, []);
  checkExpand(read.strings(params, "expand") ?? [], []);
  const type = read.string(params, "type");
  const types = read.strings(params, "types");
  if (type && types)
    throw invalidRequest("You may only specify one of these parameters: type, types.", {
      code: "parameters_exclusive",
      phase: "validation",
    });
  const deliverySuccess = read.boolean(params, "delivery_success");
  const items = req.account.events
    .map((event, seq) => ({ event, seq }))
    .filter(({ event }) => matchesCreated(event.created, params))
    .filter(({ event }) => !type || typeMatches(type, event.type))
    .filter(({ event }) => !types || types.includes(event.type))
    .filter(
      ({ event }) => deliverySuccess === undefined || (event.pending_webhooks === 0) === deliverySuccess,
    )
    .map(({ event, seq }) => ({ id: event.id, created: event.created, seq, object: snapshot(event) }));
  return page(items, params, "/v1/events", "event");
}
