/**
 * The customer on KNET's payment page: the page itself, the form's checks, the result by the
 * test conventions (manual section 4, plus the stand-in's HOST TIMEOUT), and KNET's response to
 * the merchant followed by the browser's redirect, or the auto-void (manual 9.2).
 */
import { encryptTrandata } from "../trandata.js";
import { fail, KnetStandInError } from "./knet-errors.js";
import { type Ledger, type Payment, settle } from "./ledger.js";
import { notifyMerchant } from "./notify.js";
import { donePage, type Entered, errorPage, paymentPage } from "./page.js";
import { BANKS, CARD_DIGITS_AFTER_PREFIX, EXPIRY_YEARS, pageLanguage } from "./page-text.js";
import type { KnetPageResult, KnetStandInFaults } from "./types.js";

/** What the stand-in answers the browser. */
export interface PageAnswer {
  status: number;
  html?: string;
  location?: string;
}

export interface CheckoutContext {
  ledger: Ledger;
  faults: KnetStandInFaults;
  merchantTimeoutMs: number;
  /** Aborted when the stand-in closes. */
  stop: AbortSignal;
}

/** The test card's expiry that KNET's test host approves (manual section 4). */
const APPROVED_EXPIRY = "09/2021";
/** The stand-in's own: the issuer does not answer. */
const HOST_TIMEOUT_EXPIRY = "12/2021";
/** Reason codes: approved; KNET1 with another expiry (as the spec's vector 3); a bank without an issuer here. */
const APPROVED_CODE = "00";
const DECLINED_CODE = "51";
const NO_ISSUER_CODE = "05";

const errorAnswer = (error: KnetStandInError, payment?: Payment): PageAnswer => ({
  status: 400,
  html: errorPage(error, pageLanguage(payment?.langid ?? "")),
});

/** The payment the page is about, open or not; KNET's errors for a missing or unknown id. */
function paymentOf(ctx: CheckoutContext, paymentId: string | null): Payment {
  if (!paymentId) fail("IPAY0100037");
  return ctx.ledger.byPaymentId(paymentId) ?? fail("IPAY0100039");
}

/** Refuses a page that is finished: IPAY0100042 if its time ran out, IPAY0100055 otherwise. */
function checkOpen(payment: Payment): void {
  if (payment.result === "EXPIRED") fail("IPAY0100042");
  if (payment.result !== "PENDING" || payment.submitted) fail("IPAY0100055");
}

/** GET /kpg/paymentpage.htm?PaymentID=… */
export async function showPaymentPage(ctx: CheckoutContext, query: URLSearchParams): Promise<PageAnswer> {
  let payment: Payment | undefined;
  try {
    payment = paymentOf(ctx, query.get("PaymentID"));
    checkOpen(payment);
  } catch (error) {
    if (error instanceof KnetStandInError) return errorAnswer(error, payment);
    throw error;
  }
  if (Date.now() > payment.expiresAt) return expire(ctx, payment);
  return { status: 200, html: paymentPage(payment, pageLanguage(payment.langid)) };
}

/** The result the test card gives, or KNET's error for what the customer typed. */
function pageResult(form: URLSearchParams): { result: KnetPageResult; code: string } {
  const bank = BANKS.find((b) => b.code === form.get("bank")) ?? fail("IPAY0100106");
  const prefix = form.get("cardPrefix") ?? "";
  if (!(bank.prefixes as readonly string[]).includes(prefix)) fail("IPAY0100119");
  if (!new RegExp(`^[0-9]{${CARD_DIGITS_AFTER_PREFIX}}$`).test(form.get("cardNumber") ?? ""))
    fail("IPAY0100119");
  const month = form.get("expMonth") ?? "";
  if (!/^(0[1-9]|1[0-2])$/.test(month)) fail("IPAY0100077");
  const year = form.get("expYear") ?? "";
  if (!EXPIRY_YEARS.includes(year)) fail("IPAY0100075");
  if (!/^[0-9]{4}$/.test(form.get("pin") ?? "")) fail("IPAY0100087");
  if (bank.code !== "KNET1") return { result: "NOT CAPTURED", code: NO_ISSUER_CODE };
  const expiry = `${month}/${year}`;
  if (expiry === APPROVED_EXPIRY) return { result: "CAPTURED", code: APPROVED_CODE };
  if (expiry === HOST_TIMEOUT_EXPIRY) return { result: "HOST TIMEOUT", code: "" };
  return { result: "NOT CAPTURED", code: DECLINED_CODE };
}

/** POST /kpg/paymentpage.htm: the customer pressed Submit or Cancel. */
export async function submitPaymentPage(ctx: CheckoutContext, form: URLSearchParams): Promise<PageAnswer> {
  let payment: Payment | undefined;
  try {
    payment = paymentOf(ctx, form.get("PaymentID"));
    checkOpen(payment);
  } catch (error) {
    if (error instanceof KnetStandInError) return errorAnswer(error, payment);
    throw error;
  }
  if (Date.now() > payment.expiresAt) return expire(ctx, payment);
  let outcome: { result: KnetPageResult; code: string };
  if (form.get("button") === "cancel") outcome = { result: "CANCELED", code: "" };
  else {
    try {
      outcome = pageResult(form);
    } catch (error) {
      if (!(error instanceof KnetStandInError)) throw error;
      // KNET shows its page again with the error: the customer may correct and retry.
      const entered: Entered = Object.fromEntries(
        (["bank", "cardPrefix", "expMonth", "expYear"] as const).map((k) => [k, form.get(k) ?? ""]),
      );
      return { status: 400, html: paymentPage(payment, pageLanguage(payment.langid), error, entered) };
    }
  }
  payment.submitted = true;
  // Settled before the merchant hears of it: its inquiry, while it answers, must find the result.
  settle(ctx.ledger, payment, outcome.result, outcome.code);
  return respond(ctx, payment, encryptedResponse(ctx, payment));
}

/** KNET's response for `payment`, encrypted: the vectors' field order (manual section 5). */
function encryptedResponse(ctx: CheckoutContext, p: Payment): string {
  const pairs: [string, string][] = [
    ["paymentid", p.paymentId],
    ["result", p.result],
    ["auth", p.auth],
    ["avr", "N"],
    ["ref", p.ref],
    ["tranid", p.tranId],
    ["postdate", p.postdate],
    ["trackid", p.trackId],
    ["udf1", p.udf1],
    ["udf2", p.udf2],
    ["udf3", p.udf3],
    ["udf4", p.udf4],
    ["udf5", p.udf5],
    ["amt", p.amount],
  ];
  // The manual's CANCELED and HOST TIMEOUT samples end at amt: no reason code.
  if (p.authRespCode) pairs.push(["authRespCode", p.authRespCode]);
  const terminal = ctx.ledger.terminal(p.tranportalId)!;
  const trandata = encryptTrandata(pairs.map(([k, v]) => `${k}=${v}`).join("&"), terminal.resourceKey);
  return new URLSearchParams({ trandata }).toString();
}

/** The page's time ran out: KNET's plain error post (no trandata), then the redirect. */
function expire(ctx: CheckoutContext, p: Payment): Promise<PageAnswer> {
  p.submitted = true;
  settle(ctx.ledger, p, "EXPIRED", "");
  const error = new KnetStandInError("IPAY0100042");
  const form = new URLSearchParams({ Error: error.code, ErrorText: error.text, paymentid: p.paymentId });
  form.set("trackid", p.trackId);
  form.set("amt", p.amount);
  for (const n of [1, 2, 3, 4, 5] as const) form.set(`udf${n}`, p[`udf${n}`]);
  return respond(ctx, p, form.toString());
}

/** Posts the response to the merchant and sends the browser where the answer says, or to errorURL. */
async function respond(ctx: CheckoutContext, p: Payment, form: string): Promise<PageAnswer> {
  if (ctx.faults.dropResponseNotification) {
    p.notification = "dropped";
    return { status: 200, html: donePage(pageLanguage(p.langid)) };
  }
  const answer = await notifyMerchant(p.responseURL, form, ctx.merchantTimeoutMs, ctx.stop);
  if ("redirect" in answer) {
    p.notification = "redirected";
    return { status: 302, location: answer.redirect };
  }
  // The auto-void (manual 9.2): the handshake failed, so the payment is reversed.
  p.notification = "failed";
  if (p.result === "CAPTURED") p.voided = true;
  return { status: 302, location: p.errorURL };
}
