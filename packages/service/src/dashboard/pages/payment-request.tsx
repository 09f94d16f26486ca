/** @jsxImportSource preact */
/**
 * The "payment request" form: creates a parent transaction (`type: payment_request`,
 * `created_via: dashboard`) through the same checkout service as the API, then shows the
 * payment with its checkout link to send to the customer — on the payment's page for a user who
 * may view payments, else on this page above a new form (the link is what a user with only
 * `payment.create` needs; the payment's page would refuse them). English and Arabic; the amount is
 * normalised to the currency's decimals ("12.5" KWD is 12.500) and refused in the merchant's
 * words; a refusal of the checkout service (English) is marked as English on an Arabic page.
 */
import { CURRENCY_CODES, normaliseAmountInput } from "@svc/protocol";
import { auditDone } from "../../audit/audit.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { CreateCheckoutInput } from "../../checkout/checkout.service.js";
import { AppError } from "../../http/problem.js";
import { type GatewaySettingRow, merchantsRepo } from "../../merchants/merchants.repo.js";
import { type DashboardContext, formOf, queryOf, redirectWithFlash, render, sessionOf } from "../context.js";
import { type DashboardLanguage, dashboardLanguage, format, isolate, messages } from "../i18n.js";
import { label } from "../labels.js";
import { can, ErrorSummary, Field, PAGE_PERMISSIONS, PostForm, SelectField } from "../ui.js";
import { refusedAmount } from "./operations.js";

const WORDS = {
  en: {
    title: "New payment request",
    amount: "Amount",
    amount_hint: "With the currency's decimals, e.g. {kwd} or {usd}",
    currency: "Currency",
    language: "Language of the checkout page",
    english: "English",
    arabic: "Arabic",
    gateways: "Gateways offered to the customer",
    choose_gateway: "Choose at least one gateway.",
    choose_currency: "Choose the currency from the list.",
    order_no: "Order number (optional)",
    customer_first_name: "Customer first name (optional)",
    customer_last_name: "Customer last name (optional)",
    customer_email: "Customer email (optional)",
    customer_phone: "Customer mobile number (optional)",
    create: "Create payment request",
    created: "Payment request created. Send the customer the checkout link below.",
    created_title: "Checkout link",
    created_what: "The payment request of {amount}{order}.",
    created_order: ", order {order}",
    link_hint: "Send this link to the customer to pay:",
    link_copy: "checkout link",
    another: "Another payment request",
    no_gateways: "No gateway is set up for this merchant yet: ask the operator to add one.",
  },
  ar: {
    title: "طلب دفع جديد",
    amount: "المبلغ",
    amount_hint: "بخانات العملة العشرية، مثل {kwd} أو {usd}",
    currency: "العملة",
    language: "لغة صفحة الدفع",
    english: "الإنجليزية",
    arabic: "العربية",
    gateways: "بوابات الدفع المعروضة على العميل",
    choose_gateway: "اختر بوابة دفع واحدة على الأقل.",
    choose_currency: "اختر العملة من القائمة.",
    order_no: "رقم الطلب (اختياري)",
    customer_first_name: "الاسم الأول للعميل (اختياري)",
    customer_last_name: "اسم عائلة العميل (اختياري)",
    customer_email: "البريد الإلكتروني للعميل (اختياري)",
    customer_phone: "رقم جوال العميل (اختياري)",
    create: "إنشاء طلب الدفع",
    created: "أُنشئ طلب الدفع. أرسل إلى العميل رابط الدفع أدناه.",
    created_title: "رابط الدفع",
    created_what: "طلب الدفع بمبلغ {amount}{order}.",
    created_order: "، الطلب رقم {order}",
    link_hint: "أرسل هذا الرابط إلى العميل ليدفع:",
    link_copy: "رابط الدفع",
    another: "طلب دفع آخر",
    no_gateways: "لم تُعدّ أي بوابة دفع لهذا التاجر بعد: اطلب من المشغّل إضافة واحدة.",
  },
} satisfies Record<DashboardLanguage, Record<string, string>>;
type Words = (typeof WORDS)["en"];

/** The optional customer and order fields, in the order shown. */
const FIELDS: {
  name: keyof CreateCheckoutInput & keyof Words;
  input: Record<string, string>;
  type?: string;
}[] = [
  { name: "order_no", input: { maxlength: "128" } },
  { name: "customer_first_name", input: { maxlength: "100", autocomplete: "off" } },
  { name: "customer_last_name", input: { maxlength: "100", autocomplete: "off" } },
  { name: "customer_email", type: "email", input: { maxlength: "254", autocomplete: "off", dir: "ltr" } },
  { name: "customer_phone", type: "tel", input: { maxlength: "32", autocomplete: "off", dir: "ltr" } },
];

/** A payment request just made, shown with its checkout link above the form. */
interface Created {
  amount: string;
  currency: string;
  orderNo: string | null;
  url: string;
}

const SESSION_ID = /^sess_[a-z2-7]{1,40}$/;

interface FormState {
  values: Record<string, string>;
  errors: Record<string, string[]>;
  /** The summary's lines; `english` ones came from the checkout service in English. */
  summary: { text: string; english?: boolean }[];
}

function formPage(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  gateways: GatewaySettingRow[],
  state: FormState,
  status = 200,
  created?: Created,
) {
  const session = sessionOf(request);
  const lang = dashboardLanguage(request);
  const w = WORDS[lang];
  const { values, errors } = state;
  const err = (name: string) => errors[name]?.[0];
  const currencies = [...new Set(gateways.flatMap((g) => g.currencies))].sort();
  const chosen = (values.pg_codes ?? "").split(",");
  const english = lang === "ar" && state.summary.some((s) => s.english);
  // The service's field errors are English, like its summary lines.
  const errorLang = english ? ("en" as const) : undefined;
  return render(
    ctx,
    request,
    reply,
    { title: w.title, current: "paymentRequest", translated: true },
    <>
      <ErrorSummary
        heading={messages(lang).there_is_a_problem}
        messages={state.summary.map((s) => s.text)}
        messagesLang={english ? "en" : undefined}
      />
      {created && (
        <section aria-labelledby="created-h">
          <h2 id="created-h">{w.created_title}</h2>
          <p>
            {format(w.created_what, {
              amount: isolate(lang, `${created.amount} ${created.currency}`),
              order: created.orderNo
                ? format(w.created_order, { order: isolate(lang, created.orderNo) })
                : "",
            })}{" "}
            {w.link_hint}
          </p>
          <p class="actions">
            <a class="mono" id="checkout-link" data-copy={w.link_copy} href={created.url} dir="ltr">
              {created.url}
            </a>
          </p>
        </section>
      )}
      {gateways.length === 0 && (
        <div class="notice error" role="alert">
          <p>{w.no_gateways}</p>
        </div>
      )}
      <section>
        {created && <h2>{w.another}</h2>}
        <PostForm action="/dashboard/payments/new" csrf={session.csrfToken}>
          <div class="grid">
            <div>
              <Field
                name="amount"
                label={w.amount}
                value={values.amount}
                hint={format(w.amount_hint, {
                  kwd: isolate(lang, "10.500 KWD"),
                  usd: isolate(lang, "10.50 USD"),
                })}
                error={err("amount")}
                errorLang={errorLang}
                input={{ inputmode: "decimal", required: true, dir: "ltr", autocomplete: "off" }}
              />
              <SelectField
                name="currency_code"
                label={w.currency}
                value={values.currency_code ?? (currencies.includes("KWD") ? "KWD" : currencies[0])}
                options={currencies.map((c) => ({ value: c, text: c }))}
                error={err("currency_code")}
                errorLang={errorLang}
              />
              <SelectField
                name="language"
                label={w.language}
                value={values.language ?? lang}
                options={[
                  { value: "en", text: w.english },
                  { value: "ar", text: w.arabic },
                ]}
              />
              <fieldset class="field" aria-describedby={err("pg_codes") ? "pg-error" : undefined}>
                <legend>{w.gateways}</legend>
                {gateways.map((g, i) => (
                  <div class="check">
                    <input
                      type="checkbox"
                      id={`pg-${i}`}
                      name="pg_codes"
                      value={g.pg_code}
                      checked={chosen.includes(g.pg_code)}
                    />
                    <label for={`pg-${i}`}>
                      <bdi>{g.name}</bdi>{" "}
                      <span class="muted">
                        (<code>{g.pg_code}</code>
                        {lang === "ar" ? "، " : ", "}
                        {label(g.operation, lang)})
                      </span>
                    </label>
                  </div>
                ))}
                {err("pg_codes") && (
                  <p class="field-error" id="pg-error">
                    {err("pg_codes")}
                  </p>
                )}
              </fieldset>
            </div>
            <div>
              {FIELDS.map((f) => (
                <Field
                  name={f.name}
                  label={w[f.name]}
                  value={values[f.name]}
                  error={err(f.name)}
                  errorLang={errorLang}
                  type={f.type ?? "text"}
                  input={f.input}
                />
              ))}
            </div>
          </div>
          <button type="submit">{w.create}</button>
        </PostForm>
      </section>
    </>,
    status,
  );
}

export function paymentRequestPages(scope: FastifyInstance, ctx: DashboardContext): void {
  const config = { dashboard: { permission: PAGE_PERMISSIONS.paymentRequest } };

  scope.get("/payments/new", { config }, async (request, reply) => {
    const session = sessionOf(request);
    const gateways = await merchantsRepo.listGateways(ctx.services().db, session.merchantId);
    // `?created=`: the payment request just made, for a user who may not open its payment page.
    // Only one made in the dashboard and still to be paid: its link is all this shows.
    const id = queryOf(request).created ?? "";
    let created: Created | undefined;
    if (SESSION_ID.test(id)) {
      const p = await ctx
        .services()
        .payments.status(session.merchantId, { sessionId: id })
        .catch((error: unknown) => {
          if (error instanceof AppError && error.code === "not_found") return undefined;
          throw error;
        });
      if (
        p?.type === "payment_request" &&
        p.created_via === "dashboard" &&
        (p.state === "created" || p.state === "pending")
      )
        created = {
          amount: p.amount,
          currency: p.currency_code,
          orderNo: p.order_no,
          url: `${ctx.config.publicUrl}/pay/${p.session_id}`,
        };
    }
    return formPage(
      ctx,
      request,
      reply,
      gateways,
      { values: { pg_codes: gateways[0]?.pg_code ?? "" }, errors: {}, summary: [] },
      200,
      created,
    );
  });

  scope.post("/payments/new", { config }, async (request, reply) => {
    const session = sessionOf(request);
    const lang = dashboardLanguage(request);
    const w = WORDS[lang];
    const gateways = await merchantsRepo.listGateways(ctx.services().db, session.merchantId);
    const raw = (request.body ?? {}) as Record<string, unknown>;
    const form = formOf(request);
    const pgCodes = (Array.isArray(raw.pg_codes) ? raw.pg_codes : [raw.pg_codes]).filter(
      (c): c is string => typeof c === "string" && c.length > 0,
    );
    const values: Record<string, string> = { ...form, pg_codes: pgCodes.join(",") };
    const currency = (form.currency_code ?? "").trim().toUpperCase();
    const errors: Record<string, string[]> = {};
    if (pgCodes.length === 0) errors.pg_codes = [w.choose_gateway];
    // The currency first: the amount's decimals are the currency's (a forged or unknown one is refused).
    if (!CURRENCY_CODES.includes(currency)) errors.currency_code = [w.choose_currency];
    else {
      const typed = normaliseAmountInput(form.amount ?? "", currency);
      if (!typed.ok) errors.amount = [refusedAmount(lang, typed, form.amount ?? "", currency)];
      else values.amount = typed.value;
    }
    if (Object.keys(errors).length)
      return formPage(
        ctx,
        request,
        reply,
        gateways,
        {
          values,
          errors,
          summary: Object.values(errors)
            .flat()
            .map((text) => ({ text })),
        },
        422,
      );
    const input: CreateCheckoutInput = {
      type: "payment_request",
      pg_codes: pgCodes,
      amount: values.amount!,
      currency_code: currency,
      language: form.language === "ar" ? "ar" : "en",
    };
    for (const f of FIELDS) {
      const value = form[f.name]?.trim();
      if (value) (input as unknown as Record<string, string>)[f.name] = value;
    }
    try {
      const created = await ctx.services().checkout.create(session.merchantId, input, "dashboard");
      auditDone(request, { amount: input.amount, currency_code: currency });
      // The payment's page needs payment.view; without it, the link is shown here.
      const next = can(session.user, "payment.view")
        ? `/dashboard/payments/${created.session_id}`
        : `/dashboard/payments/new?created=${created.session_id}`;
      return redirectWithFlash(ctx, request, reply, next, { kind: "success", text: w.created });
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      const fieldErrors = error.errors ?? {};
      const summary = Object.keys(fieldErrors).length
        ? Object.entries(fieldErrors).map(([k, v]) => ({
            text: `${k.replace(/_/g, " ")}: ${v[0]}`,
            english: true,
          }))
        : [{ text: error.message, english: true }];
      return formPage(ctx, request, reply, gateways, { values, errors: fieldErrors, summary }, error.status);
    }
  });
}
