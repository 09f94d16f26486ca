/** POST /v1/refunds, GET /v1/refunds/:id, GET /v1/refunds (docs.stripe.com/api/refunds). */
import type Stripe from "stripe";
import type { ApiRequest } from "./context.js";
import { invalidRequest, resourceMissing } from "./errors.js";
import { checkExpand, checkListExpand, expandRefund, REFUND_EXPANDABLE } from "./expand.js";
import { matchesCreated, page, PAGINATION_FIELDS } from "./list.js";
import { read, readObject, type Spec } from "./params.js";
import { createRefund, refundableCharge } from "./refunds.js";

const UNMODELLED: Spec = { t: "unmodelled" };
const EXPAND: Spec = { t: "array", of: { t: "string" } };

const CREATE_FIELDS: Record<keyof Stripe.RefundCreateParams, Spec> = {
  amount: { t: "integer" },
  charge: { t: "string" },
  // currency, customer and origin are for refunds to a customer's balance; Connect's two flags too.
  currency: UNMODELLED,
  customer: UNMODELLED,
  expand: EXPAND,
  instructions_email: { t: "string" },
  metadata: { t: "metadata" },
  origin: UNMODELLED,
  payment_intent: { t: "string" },
  reason: { t: "string", enum: ["duplicate", "fraudulent", "requested_by_customer"] },
  refund_application_fee: UNMODELLED,
  reverse_transfer: UNMODELLED,
};

const RETRIEVE_FIELDS: Record<keyof Stripe.RefundRetrieveParams, Spec> = { expand: EXPAND };

const LIST_FIELDS: Record<keyof Stripe.RefundListParams, Spec> = {
  ...PAGINATION_FIELDS,
  charge: { t: "string" },
  created: { t: "range" },
  expand: EXPAND,
  payment_intent: { t: "string" },
};

export function postRefund(req: ApiRequest): object {
  const params = readObject(req.form, CREATE_FIELDS, []);
  const expand = read.strings(params, "expand") ?? [];
  checkExpand(expand, REFUND_EXPANDABLE);
  const paymentIntent = read.string(params, "payment_intent");
  const charge = read.string(params, "charge");
  if (paymentIntent && charge)
    throw invalidRequest("You may only specify one of these parameters: charge, payment_intent.", {
      code: "parameters_exclusive",
      phase: "validation",
    });
  if (!paymentIntent && !charge)
    throw invalidRequest(
      "One of the following params should be provided for this request: payment_intent or charge.",
      {
        code: "parameter_missing",
        phase: "validation",
      },
    );
  const chargeRecord = refundableCharge(req.account, { paymentIntent, charge });
  const refund = createRefund(
    req.ctx,
    req.account,
    chargeRecord,
    {
      amount: read.integer(params, "amount"),
      reason: read.string(params, "reason"),
      metadata: read.metadata(params, "metadata"),
      instructionsEmail: read.string(params, "instructions_email"),
    },
    req.cause,
  );
  return expandRefund(req.account, refund, expand);
}

export function getRefund(req: ApiRequest): object {
  const params = readObject(req.form, RETRIEVE_FIELDS, []);
  const expand = read.strings(params, "expand") ?? [];
  checkExpand(expand, REFUND_EXPANDABLE);
  const id = req.pathParams[0] ?? "";
  const record = req.account.refunds.get(id);
  if (!record) throw resourceMissing("refund", id, "id");
  return expandRefund(req.account, record.refund, expand);
}

export function listRefunds(req: ApiRequest): object {
  const params = readObject(req.form, LIST_FIELDS, []);
  const expand = checkListExpand(read.strings(params, "expand") ?? [], REFUND_EXPANDABLE);
  const paymentIntent = read.string(params, "payment_intent");
  const charge = read.string(params, "charge");
  const items = [...req.account.refunds.values()]
    .filter((r) => matchesCreated(r.refund.created, params))
    .filter((r) => paymentIntent === undefined || r.refund.payment_intent === paymentIntent)
    .filter((r) => charge === undefined || r.refund.charge === charge)
    .map((r) => ({
      id: r.refund.id,
      created: r.refund.created,
      seq: r.seq,
      object: expandRefund(req.account, r.refund, expand),
    }));
  return page(items, params, "/v1/refunds", "refund");
}
