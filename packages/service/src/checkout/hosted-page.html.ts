/**
 * The hosted card page, server-rendered: works without JavaScript, in the transaction's
 * language (Arabic right-to-left, card digits left-to-right), with labelled fields and an error
 * summary a screen reader announces. No inline scripts; styles come from one <style> block.
 */
import type { Language } from "@svc/protocol";
import { type TextKey, t } from "./i18n.js";

export function esc(value: unknown): string {
  return String(value ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

const CSS = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1b1f24;--muted:#545d68;--accent:#0b5cd5;--err:#b00020;--border:#8a939e}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--card:#1b2026;--fg:#eef1f4;--muted:#b4bcc6;--accent:#7fb0ff;--err:#ff8a8a;--border:#6b7580}}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;background:var(--bg);color:var(--fg)}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:var(--card);border-radius:12px}
h1{font-size:1.4rem;margin:0 0 1rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:0 0 1.5rem}dt{color:var(--muted)}dd{margin:0;font-weight:600}
label{display:block;margin:.75rem 0 .25rem;font-weight:600}.hint{color:var(--muted);font-size:.875rem;margin:0}
input[type=text]{width:100%;padding:.6rem;font-size:1rem;border:1px solid var(--border);border-radius:6px;background:var(--card);color:var(--fg)}
input[aria-invalid=true]{border-color:var(--err)}.row{display:grid;grid-template-columns:1fr 1fr;gap:1rem}
.check{display:flex;gap:.5rem;align-items:center;margin-top:1rem}.check label{margin:0;font-weight:400}
button,.button{display:inline-block;margin-top:1.5rem;width:100%;padding:.75rem;font-size:1rem;font-weight:600;border:0;border-radius:6px;background:var(--accent);color:#fff;text-align:center;text-decoration:none;cursor:pointer}
@media (prefers-color-scheme:dark){button,.button{color:#0b1220}}
.errors{border:2px solid var(--err);border-radius:6px;padding:.75rem 1rem;margin-bottom:1rem}.errors h2{font-size:1rem;margin:0;color:var(--err)}
.field-error{color:var(--err);margin:.25rem 0 0;font-size:.875rem}fieldset{border:0;padding:0;margin:0}legend{font-weight:600}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
`;

export function layout(language: Language, title: string, body: string): string {
  const dir = language === "ar" ? "rtl" : "ltr";
  return `<!doctype html><html lang="${language}" dir="${dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>${CSS}</style></head><body><main>${body}</main></body></html>`;
}

export interface CardFormView {
  language: Language;
  sessionId: string;
  amount: string;
  currency: string;
  orderNo: string | null;
  gateways: { pg_code: string; name: string }[];
  selectedPgCode: string | undefined;
  canSaveCard: boolean;
  values: Record<string, string>;
  errors: Partial<Record<"number" | "expiry" | "cvc" | "holder" | "pg_code", TextKey>>;
}

function field(
  v: CardFormView,
  name: "number" | "expiry" | "cvc" | "holder",
  label: TextKey,
  attrs: string,
  hint?: TextKey,
): string {
  const error = v.errors[name];
  const described = [hint ? `${name}-hint` : "", error ? `${name}-error` : ""].filter(Boolean).join(" ");
  return `<div><label for="${name}">${esc(t(v.language, label))}</label>${hint ? `<p class="hint" id="${name}-hint">${esc(t(v.language, hint))}</p>` : ""}
<input type="text" id="${name}" name="${name}" value="${esc(v.values[name])}" ${attrs}${described ? ` aria-describedby="${described}"` : ""}${error ? ' aria-invalid="true"' : ""}>
${error ? `<p class="field-error" id="${name}-error">${esc(t(v.language, error))}</p>` : ""}</div>`;
}

export function cardFormPage(v: CardFormView): string {
  const L = v.language;
  const errorKeys = Object.values(v.errors);
  const summary = errorKeys.length
    ? `<div class="errors" role="alert" tabindex="-1" id="error-summary"><h2>${esc(t(L, "error_summary"))}</h2><ul>${errorKeys.map((k) => `<li>${esc(t(L, k!))}</li>`).join("")}</ul></div>`
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
  const body = `<h1>${esc(t(L, "page_title"))}</h1>${summary}
<dl><dt>${esc(t(L, "amount_due"))}</dt><dd dir="ltr">${esc(v.amount)} ${esc(v.currency)}</dd>${v.orderNo ? `<dt>${esc(t(L, "order"))}</dt><dd dir="ltr">${esc(v.orderNo)}</dd>` : ""}</dl>
<form method="post" action="/pay/${esc(v.sessionId)}" novalidate>${gatewayPicker}
${field(v, "number", "card_number", 'inputmode="numeric" autocomplete="cc-number" dir="ltr" maxlength="23" required', "card_number_hint")}
<div class="row">${field(v, "expiry", "expiry", 'inputmode="numeric" autocomplete="cc-exp" dir="ltr" maxlength="7" placeholder="MM/YY" required')}
${field(v, "cvc", "cvc", 'inputmode="numeric" autocomplete="cc-csc" dir="ltr" maxlength="4" required')}</div>
${field(v, "holder", "holder", 'autocomplete="cc-name" maxlength="100"')}
${v.canSaveCard ? `<div class="check"><input type="checkbox" id="save_card" name="save_card" value="1"${v.values.save_card ? " checked" : ""}><label for="save_card">${esc(t(L, "save_card"))}</label></div>` : ""}
<button type="submit">${esc(t(L, "pay"))} <span dir="ltr">${esc(v.amount)} ${esc(v.currency)}</span></button></form>`;
  return layout(L, t(L, "page_title"), body);
}

export function messagePage(
  language: Language,
  title: TextKey,
  body: TextKey,
  link?: { href: string; text: TextKey },
): string {
  const content = `<h1>${esc(t(language, title))}</h1><p>${esc(t(language, body))}</p>${link ? `<a class="button" href="${esc(link.href)}">${esc(t(language, link.text))}</a>` : ""}`;
  return layout(language, t(language, title), content);
}
