/**
 * The hosted card page, server-rendered: works without JavaScript, in the transaction's
 * language (Arabic right-to-left, card digits left-to-right), with labelled fields, one specific
 * message per mistake and an error summary whose items link to their fields. A small script,
 * allowed by the response's CSP nonce, only enhances: grouping, the card brand, checks on blur.
 */
import type { Language } from "@svc/protocol";
import { PAGE_CSS } from "../pages/page-style.js";
import {
  type CardBrand,
  type CardErrors,
  type CardField,
  brandOf,
  cardDigits,
  clientRules,
} from "./card-input.js";
import { CARD_PAGE_JS } from "./card-page.client.js";
import { type TextKey, t } from "./i18n.js";

export function esc(value: unknown): string {
  return String(value ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** JSON inside a <script> data block: no `<` can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

export function layout(language: Language, title: string, body: string, nonce: string, tail = ""): string {
  const dir = language === "ar" ? "rtl" : "ltr";
  return `<!doctype html><html lang="${language}" dir="${dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style nonce="${nonce}">${PAGE_CSS}</style></head><body><main>${body}</main>${tail}</body></html>`;
}

/** The brand marks: drawn inline (no requests), hidden from screen readers, which read the name instead. */
const MARKS: Record<CardBrand, string> = {
  card: '<rect x="4.5" y="2.5" width="31" height="19" rx="3" fill="none" stroke="currentColor"/><rect x="4" y="7" width="32" height="3.5" fill="currentColor"/>',
  visa: '<rect x=".5" y=".5" width="39" height="23" rx="3" fill="#fff" stroke="#8a939e"/><text x="20" y="16.5" text-anchor="middle" font-family="Arial,Helvetica,sans-serif" font-size="11" font-weight="700" font-style="italic" fill="#1a1f71">VISA</text>',
  mastercard:
    '<rect x=".5" y=".5" width="39" height="23" rx="3" fill="#fff" stroke="#8a939e"/><circle cx="16" cy="12" r="7" fill="#eb001b"/><circle cx="24" cy="12" r="7" fill="#f79e1b" fill-opacity=".85"/>',
  amex: '<rect x=".5" y=".5" width="39" height="23" rx="3" fill="#2e77bc" stroke="#2e77bc"/><text x="20" y="15.5" text-anchor="middle" font-family="Arial,Helvetica,sans-serif" font-size="9" font-weight="700" fill="#fff">AMEX</text>',
  mada: '<rect x=".5" y=".5" width="39" height="23" rx="3" fill="#fff" stroke="#8a939e"/><text x="20" y="16" text-anchor="middle" font-family="Arial,Helvetica,sans-serif" font-size="11" font-weight="700" fill="#004b87">mada</text>',
};

function brandMark(language: Language, brand: CardBrand): string {
  const svg = `<svg viewBox="0 0 40 24" width="40" height="24" aria-hidden="true" focusable="false">${MARKS[brand]}</svg>`;
  return brand === "card" ? svg : `${svg}<span class="vh">${esc(t(language, `brand_${brand}`))}</span>`;
}

/** Keys the script needs, in the page's language: the same texts the server shows. */
const SCRIPT_TEXTS = [
  "error_summary",
  "error_prefix",
  "err_number_required",
  "err_number_digits",
  "err_number_short",
  "err_number_long",
  "err_number_luhn",
  "err_expiry_required",
  "err_expiry_format",
  "err_expiry_month",
  "err_expiry_past",
  "err_cvc",
  "err_cvc_amex",
  "err_holder",
] as const satisfies readonly TextKey[];

export interface CardFormView {
  language: Language;
  /** Set when `?lang=` chose the language: carried through the form posts. */
  langOverride: Language | undefined;
  nonce: string;
  sessionId: string;
  merchantName: string;
  amount: string;
  currency: string;
  orderNo: string | null;
  gateways: { pg_code: string; name: string }[];
  selectedPgCode: string | undefined;
  canSaveCard: boolean;
  /** Whether canceling returns to the shop (the transaction has a redirect_url). */
  returnsToShop: boolean;
  values: Record<string, string>;
  errors: CardErrors & { pg_code?: TextKey };
}

function field(v: CardFormView, name: CardField, label: TextKey, attrs: string, hint?: TextKey): string {
  const error = v.errors[name];
  const described = [hint ? `${name}-hint` : "", error ? `${name}-error` : ""].filter(Boolean).join(" ");
  const input = `<input type="text" id="${name}" name="${name}" value="${esc(v.values[name])}" ${attrs}${described ? ` aria-describedby="${described}"` : ""}${error ? ' aria-invalid="true"' : ""}>`;
  const control =
    name === "number"
      ? `<div class="card-number">${input}<span class="brand" id="number-brand" aria-live="polite">${brandMark(v.language, brandOf(cardDigits(v.values.number ?? "")))}</span></div>`
      : input;
  // A label wraps before its "(…)", never inside it (a half column at 320 px is narrow).
  const labelText = esc(t(v.language, label)).replace(/ (\([^)]*\))$/, ' <span class="nowrap">$1</span>');
  return `<div><label for="${name}">${labelText}</label>${hint ? `<p class="hint" id="${name}-hint">${esc(t(v.language, hint))}</p>` : ""}
${control}
<p class="field-error" id="${name}-error" aria-live="polite">${error ? esc(t(v.language, error)) : ""}</p></div>`;
}

function langField(v: { langOverride: Language | undefined }): string {
  return v.langOverride ? `<input type="hidden" name="lang" value="${v.langOverride}">` : "";
}

export function cardFormPage(v: CardFormView): string {
  const L = v.language;
  const errorEntries = Object.entries(v.errors) as [CardField | "pg_code", TextKey][];
  // Without JavaScript the summary is first in the form, an alert, and takes focus (autofocus).
  const summary = errorEntries.length
    ? `<div class="errors" role="alert" tabindex="-1" id="error-summary" autofocus><h2>${esc(t(L, "error_summary"))}</h2><ul>${errorEntries
        .map(
          ([name, key]) => `<li><a href="#${name === "pg_code" ? "pg-0" : name}">${esc(t(L, key))}</a></li>`,
        )
        .join("")}</ul></div>`
    : "";
  const gatewayPicker =
    v.gateways.length === 1
      ? `<input type="hidden" name="pg_code" value="${esc(v.gateways[0]!.pg_code)}">`
      : `<fieldset><legend>${esc(t(L, "gateway"))}</legend>${v.gateways
          .map(
            (g, i) =>
              `<div class="check"><input type="radio" id="pg-${i}" name="pg_code" value="${esc(g.pg_code)}"${(v.selectedPgCode ?? v.gateways[0]?.pg_code) === g.pg_code ? " checked" : ""}><label for="pg-${i}">${esc(g.name)}</label></div>`,
          )
          .join("")}</fieldset>`;
  const money = `<span dir="ltr">${esc(v.amount)} ${esc(v.currency)}</span>`;
  const payee = v.merchantName
    ? `<p class="overline">${esc(t(L, "pay_to"))} <strong>${esc(v.merchantName)}</strong></p>`
    : "";
  const body = `${payee}<h1>${esc(t(L, "page_title"))}</h1>
<dl><dt>${esc(t(L, "amount_due"))}</dt><dd class="total">${money}</dd>${v.orderNo ? `<dt>${esc(t(L, "order"))}</dt><dd><span dir="ltr">${esc(v.orderNo)}</span></dd>` : ""}</dl>
<form method="post" action="/pay/${esc(v.sessionId)}" id="card-form" novalidate>${summary}${langField(v)}${gatewayPicker}
${field(v, "number", "card_number", 'inputmode="numeric" autocomplete="cc-number" dir="ltr" maxlength="23" spellcheck="false" required', "card_number_hint")}
<div class="row">${field(v, "expiry", "expiry", 'inputmode="numeric" autocomplete="cc-exp" dir="ltr" maxlength="7" placeholder="MM/YY" required')}
${field(v, "cvc", "cvc", 'inputmode="numeric" autocomplete="cc-csc" dir="ltr" maxlength="4" required')}</div>
${field(v, "holder", "holder", 'autocomplete="cc-name" maxlength="100" spellcheck="false"')}
${v.canSaveCard ? `<div class="check"><input type="checkbox" id="save_card" name="save_card" value="1"${v.values.save_card ? " checked" : ""}><label for="save_card">${esc(t(L, "save_card"))}</label></div>` : ""}
<button type="submit">${esc(t(L, "pay"))} ${money}</button></form>
<form method="post" action="/pay/${esc(v.sessionId)}/cancel">${langField(v)}<input type="submit" class="secondary" value="${esc(t(L, v.returnsToShop ? "cancel_return" : "cancel_payment"))}"></form>`;
  const data = {
    title: t(L, "page_title"),
    messages: Object.fromEntries(SCRIPT_TEXTS.map((k) => [k, t(L, k)])),
    rules: clientRules(),
    marks: Object.fromEntries(
      (Object.keys(MARKS) as CardBrand[]).map((brand) => [brand, brandMark(L, brand)]),
    ),
  };
  const tail = `<script type="application/json" id="card-page-data">${scriptJson(data)}</script><script nonce="${v.nonce}">${CARD_PAGE_JS}</script>`;
  const title = errorEntries.length ? `${t(L, "error_prefix")}: ${t(L, "page_title")}` : t(L, "page_title");
  return layout(L, title, body, v.nonce, tail);
}

export function messagePage(
  language: Language,
  nonce: string,
  title: TextKey,
  body: TextKey,
  link?: { href: string; text: TextKey },
): string {
  const content = `<h1>${esc(t(language, title))}</h1><p>${esc(t(language, body))}</p>${link ? `<a class="button" href="${esc(link.href)}">${esc(t(language, link.text))}</a>` : ""}`;
  return layout(language, t(language, title), content, nonce);
}
