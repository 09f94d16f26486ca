/**
 * The stand-in's HTML: the payment page (plain form, no JavaScript, every control labelled), the
 * error page that names KNET's code and words, and the page a customer sees when KNET's response
 * never went out.
 */
import type { KnetStandInError } from "./knet-errors.js";
import type { Payment } from "./ledger.js";
import { BANKS, CARD_DIGITS_AFTER_PREFIX, EXPIRY_YEARS, PAGE_TEXT, type PageLanguage } from "./page-text.js";

/** Where the payment page lives and posts to. */
export const PAYMENT_PAGE_PATH = "/kpg/paymentpage.htm";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
const esc = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const STYLE =
  "body{font-family:system-ui,sans-serif;margin:0;background:#f3f5f8;color:#1b2430}" +
  "main{max-width:28rem;margin:2rem auto;background:#fff;padding:1.5rem;border-radius:.5rem}" +
  "label,legend{display:block;margin-top:.75rem;font-weight:600}fieldset{border:0;padding:0;margin:0}" +
  "select,input{font:inherit;padding:.4rem;margin-top:.25rem}button{font:inherit;margin:1rem .5rem 0 0;padding:.5rem 1.25rem}" +
  "[role=alert]{color:#a4000f;font-weight:600}.notice{color:#555;font-size:.85rem}";

function layout(language: PageLanguage, title: string, body: string): string {
  const dir = language === "ar" ? "rtl" : "ltr";
  return `<!doctype html>
<html lang="${language}" dir="${dir}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body>
</html>`;
}

const option = (value: string, label: string, selected = false) =>
  `<option value="${esc(value)}"${selected ? " selected" : ""}>${esc(label)}</option>`;

/** The values a customer typed, put back when the page is shown again with an error. */
export type Entered = Partial<Record<"bank" | "cardPrefix" | "expMonth" | "expYear", string>>;

/** The payment page of `payment`, optionally with an error above the form. */
export function paymentPage(
  payment: Payment,
  language: PageLanguage,
  error?: KnetStandInError,
  entered: Entered = {},
): string {
  const t = PAGE_TEXT[language];
  const months = Array.from({ length: 12 }, (_, i) => String(i + 1).padStart(2, "0"));
  const prefixes = BANKS.flatMap((b) => b.prefixes);
  const alert = error ? `<p role="alert">${esc(t.error)}: ${esc(error.code)} ${esc(error.text)}</p>` : "";
  const body = `<h1>${esc(t.heading)}</h1>
<p class="notice">${esc(t.notice)}</p>
<p><strong>${esc(t.amount)}:</strong> <span id="amount">${esc(t.currency(payment.amount))}</span></p>
${alert}
<form method="post" action="${PAYMENT_PAGE_PATH}">
<input type="hidden" name="PaymentID" value="${esc(payment.paymentId)}">
<label for="bank">${esc(t.bank)}</label>
<select id="bank" name="bank" required>${option("", t.chooseBank)}${BANKS.map((b) => option(b.code, b.name, entered.bank === b.code)).join("")}</select>
<fieldset><legend>${esc(t.cardNumber)}</legend>
<label for="cardPrefix">${esc(t.cardPrefix)}</label>
<select id="cardPrefix" name="cardPrefix" required>${option("", t.choosePrefix)}${prefixes.map((p) => option(p, p, entered.cardPrefix === p)).join("")}</select>
<label for="cardNumber">${esc(t.cardRest)}</label>
<input id="cardNumber" name="cardNumber" inputmode="numeric" pattern="[0-9]{${CARD_DIGITS_AFTER_PREFIX}}" maxlength="${CARD_DIGITS_AFTER_PREFIX}" autocomplete="off" required>
</fieldset>
<fieldset><legend>${esc(t.expiry)}</legend>
<label for="expMonth">${esc(t.month)}</label>
<select id="expMonth" name="expMonth" autocomplete="cc-exp-month" required>${option("", "MM")}${months.map((m) => option(m, m, entered.expMonth === m)).join("")}</select>
<label for="expYear">${esc(t.year)}</label>
<select id="expYear" name="expYear" autocomplete="cc-exp-year" required>${option("", "YYYY")}${EXPIRY_YEARS.map((y) => option(y, y, entered.expYear === y)).join("")}</select>
</fieldset>
<label for="pin">${esc(t.pin)}</label>
<input id="pin" name="pin" type="password" inputmode="numeric" pattern="[0-9]{4}" minlength="4" maxlength="4" autocomplete="off" required>
<div><button type="submit" name="button" value="submit">${esc(t.submit)}</button><button type="submit" name="button" value="cancel" formnovalidate>${esc(t.cancel)}</button></div>
</form>`;
  return layout(language, t.title, body);
}

/** KNET's error page: its code and the manual's words for it. */
export function errorPage(error: KnetStandInError, language: PageLanguage = "en"): string {
  const t = PAGE_TEXT[language];
  return layout(
    language,
    `${t.title} – ${t.error}`,
    `<h1>${esc(t.heading)}</h1>
<p role="alert"><span class="code">${esc(error.code)}</span> – <span class="text">${esc(error.text)}</span></p>`,
  );
}

/** What the browser shows when KNET's response was never posted (the customer's window stays). */
export function donePage(language: PageLanguage): string {
  const t = PAGE_TEXT[language];
  return layout(language, t.title, `<h1>${esc(t.heading)}</h1>\n<p>${esc(t.done)}</p>`);
}
