/**
 * The "payment request" form: creates a parent transaction (`type: payment_request`,
 * `created_via: dashboard`) through the same checkout service as the API, then shows the
 * payment with its checkout link to send to the customer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { CreateCheckoutInput } from "../../checkout/checkout.service.js";
import { AppError } from "../../http/problem.js";
import { type GatewaySettingRow, merchantsRepo } from "../../merchants/merchants.repo.js";
import { type DashboardContext, formOf, redirectWithFlash, render, sessionOf } from "../context.js";
import { errorSummary, esc, field, PAGE_PERMISSIONS, postForm, selectField } from "../html.js";

const FIELDS: {
  name: keyof CreateCheckoutInput;
  label: string;
  input?: Record<string, string | boolean>;
  type?: string;
}[] = [
  { name: "order_no", label: "Order number (optional)", input: { maxlength: "128" } },
  {
    name: "customer_first_name",
    label: "Customer first name (optional)",
    input: { maxlength: "100", autocomplete: "off" },
  },
  {
    name: "customer_last_name",
    label: "Customer last name (optional)",
    input: { maxlength: "100", autocomplete: "off" },
  },
  {
    name: "customer_email",
    label: "Customer email (optional)",
    type: "email",
    input: { maxlength: "254", autocomplete: "off" },
  },
  {
    name: "customer_phone",
    label: "Customer mobile number (optional)",
    type: "tel",
    input: { maxlength: "32", autocomplete: "off" },
  },
];

function formPage(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  gateways: GatewaySettingRow[],
  values: Record<string, string>,
  errors: Record<string, string[]>,
  summary: string[],
  status = 200,
) {
  const session = sessionOf(request);
  const err = (name: string) => errors[name]?.[0];
  const currencies = [...new Set(gateways.flatMap((g) => g.currencies))].sort();
  const gatewayChoice = `<fieldset class="field"${err("pg_codes") ? ' aria-describedby="pg-error"' : ""}><legend>Gateways offered to the customer</legend>${gateways
    .map(
      (g, i) =>
        `<div class="check"><input type="checkbox" id="pg-${i}" name="pg_codes" value="${esc(g.pg_code)}"${(values.pg_codes ?? "").split(",").includes(g.pg_code) ? " checked" : ""}><label for="pg-${i}">${esc(g.name)} <span class="muted">(${esc(g.pg_code)}, ${esc(g.operation)})</span></label></div>`,
    )
    .join(
      "",
    )}${err("pg_codes") ? `<p class="field-error" id="pg-error">${esc(err("pg_codes"))}</p>` : ""}</fieldset>`;
  const body = `${errorSummary(summary)}<section>${postForm(
    "/dashboard/payments/new",
    session.csrfToken,
    `<div class="grid"><div>${field({ name: "amount", label: "Amount", value: values.amount, hint: 'With the currency\'s decimals, e.g. "10.500" KWD or "10.50" USD', error: err("amount"), input: { inputmode: "decimal", required: true } })}
${selectField({ name: "currency_code", label: "Currency", value: values.currency_code ?? "KWD", options: currencies.map((c) => ({ value: c, text: c })), error: err("currency_code") })}
${selectField({
  name: "language",
  label: "Language of the checkout page",
  value: values.language ?? "en",
  options: [
    { value: "en", text: "English" },
    { value: "ar", text: "Arabic" },
  ],
})}
${gatewayChoice}</div><div>${FIELDS.map((f) => field({ name: f.name, label: f.label, value: values[f.name], error: err(f.name), ...(f.type ? { type: f.type } : {}), ...(f.input ? { input: f.input } : {}) })).join("")}</div></div>
<button type="submit">Create payment request</button>`,
  )}</section>`;
  return render(
    ctx,
    request,
    reply,
    { title: "New payment request", current: "paymentRequest" },
    body,
    status,
  );
}

export function paymentRequestPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.paymentRequest } };

  scope.get("/payments/new", { config }, async (request, reply) => {
    const gateways = await merchantsRepo.listGateways(ctx.services().db, sessionOf(request).merchantId);
    return formPage(ctx, request, reply, gateways, { pg_codes: gateways[0]?.pg_code ?? "" }, {}, []);
  });

  scope.post("/payments/new", { config }, async (request, reply) => {
    const session = sessionOf(request);
    const gateways = await merchantsRepo.listGateways(ctx.services().db, session.merchantId);
    const raw = (request.body ?? {}) as Record<string, unknown>;
    const form = formOf(request);
    const pgCodes = (Array.isArray(raw.pg_codes) ? raw.pg_codes : [raw.pg_codes]).filter(
      (c): c is string => typeof c === "string" && c.length > 0,
    );
    const values = { ...form, pg_codes: pgCodes.join(",") };
    const errors: Record<string, string[]> = {};
    if (pgCodes.length === 0) errors.pg_codes = ["Choose at least one gateway."];
    if (!form.amount) errors.amount = ["Enter the amount."];
    if (Object.keys(errors).length)
      return formPage(ctx, request, reply, gateways, values, errors, Object.values(errors).flat(), 422);
    const input: CreateCheckoutInput = {
      type: "payment_request",
      pg_codes: pgCodes,
      amount: form.amount!.trim(),
      currency_code: form.currency_code ?? "",
      language: form.language === "ar" ? "ar" : "en",
    };
    for (const f of FIELDS) {
      const value = form[f.name]?.trim();
      if (value) (input as unknown as Record<string, string>)[f.name] = value;
    }
    try {
      const created = await ctx.services().checkout.create(session.merchantId, input, "dashboard");
      return redirectWithFlash(ctx, request, reply, `/dashboard/payments/${created.session_id}`, {
        kind: "success",
        text: "Payment request created. Send the customer the checkout link below.",
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const fieldErrors = error.errors ?? {};
      const messages = Object.keys(fieldErrors).length
        ? Object.entries(fieldErrors).map(([k, v]) => `${k.replace(/_/g, " ")}: ${v[0]}`)
        : [error.message];
      return formPage(ctx, request, reply, gateways, values, fieldErrors, messages, error.status);
    }
  });
}
