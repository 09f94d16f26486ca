/** The example merchant page: a shop's checkout page that mounts the SDK with the public key. */
import { randomBytes } from "node:crypto";

/** The `formsOfPayment` choices the shop offers as a switch (`?forms=`); `all` passes none. */
export const EXAMPLE_FORMS = {
  all: { en: "All options", ar: "كل الطرق", forms: undefined },
  walletAPay: { en: "Device wallet", ar: "محفظة الجهاز", forms: ["walletAPay"] },
  walletBPay: { en: "Mobile wallet (minified view)", ar: "محفظة الجوال (عرض مصغّر)", forms: ["walletBPay"] },
  svcPG: { en: "Card page", ar: "صفحة البطاقة", forms: ["svcPG"] },
  tokenPay: { en: "Saved cards", ar: "البطاقات المحفوظة", forms: ["tokenPay"] },
  redirect: { en: "Bank page", ar: "صفحة البنك", forms: ["redirect"] },
  knet: { en: "KNET (local stand-in)", ar: "كي نت (بديل محلي)", forms: ["redirect"] },
  stripe: { en: "Stripe (local stand-in)", ar: "سترايب (بديل محلي)", forms: ["svcPG"] },
} as const;
export type ExampleForms = keyof typeof EXAMPLE_FORMS;

export interface ExamplePage {
  merchantId: string;
  publicKey: string;
  sessionId: string;
  preload: unknown;
  language: "en" | "ar";
  /**
   * The browser's language (Accept-Language), which the SDK follows: when the shop's switch chose
   * the other one, the page says why the checkout is not in the shop's language.
   */
  browserLanguage: "en" | "ar";
  forms: ExampleForms;
  /** The SDK's URL, with its Subresource Integrity hash when the build published one. */
  sdk: { src: string; integrity?: string };
}

const TEXT = {
  en: {
    title: "Example shop",
    intro:
      "A new test transaction was created for this page by the shop's server with the private key; the checkout below runs in your browser with the public key only.",
    order: "Your order",
    item: "Desert rose candle × 3",
    total: "Total",
    newCheckout: "New checkout",
    show: "Show",
    result: "Callback",
    waiting: "Waiting for a callback…",
    values: "Sandbox test values",
    followsBrowser:
      "The checkout below is in Arabic: as on any merchant's site, it follows your browser's language. This switch sets the shop page's language and the transaction's (the payment options' names).",
  },
  ar: {
    title: "متجر تجريبي",
    intro:
      "أنشأ خادم المتجر عملية دفع تجريبية جديدة لهذه الصفحة بالمفتاح الخاص؛ وتعمل صفحة الدفع أدناه في متصفحك بالمفتاح العام فقط.",
    order: "طلبك",
    item: "شمعة وردة الصحراء × 3",
    total: "المجموع",
    newCheckout: "عملية دفع جديدة",
    show: "اعرض",
    result: "الاستدعاء",
    waiting: "بانتظار الاستدعاء…",
    values: "قيم الاختبار التجريبية",
    followsBrowser:
      "صفحة الدفع أدناه بالإنجليزية: فهي تتبع لغة متصفحك كما في موقع أي تاجر. أما هذا الخيار فيضبط لغة صفحة المتجر ولغة عملية الدفع (أسماء طرق الدفع).",
  },
} as const;

/** The SDK's base URL rule: https, plain http only for localhost and 127.0.0.1. */
const serviceOrigin = (merchantId: string) =>
  `${/^(localhost|127\.0\.0\.1)(:|$)/.test(merchantId) ? "http" : "https"}://${merchantId}`;
/** JSON inside a <script>: no `<` can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");
const attr = (value: string) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

export function examplePage(page: ExamplePage): { html: string; csp: string } {
  const nonce = randomBytes(16).toString("base64");
  const L = page.language;
  const x = TEXT[L];
  const link = (lang: string, forms: string) =>
    `/example/?lang=${lang}${forms === "all" ? "" : `&amp;forms=${forms}`}`;
  const switches = Object.entries(EXAMPLE_FORMS)
    .map(
      ([key, v]) =>
        `<li><a href="${link(L, key)}"${key === page.forms ? ' aria-current="page"' : ""}>${v[L]}</a></li>`,
    )
    .join("");
  const forms = EXAMPLE_FORMS[page.forms].forms;
  const integrity = page.sdk.integrity
    ? ` integrity="${attr(page.sdk.integrity)}" crossorigin="anonymous"`
    : "";
  const html = `<!doctype html>
<html lang="${L}" dir="${L === "ar" ? "rtl" : "ltr"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${x.title} — svc</title>
<style nonce="${nonce}">
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1b1f24;--mut:#545d68;--ln:#d4d7dc;--acc:#0b57d0}
@media (prefers-color-scheme:dark){:root{--bg:#0e0e11;--card:#16161a;--fg:#ececf1;--mut:#c2c2cc;--ln:#34343c;--acc:#a8c7fa}}
*{box-sizing:border-box}
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:var(--bg);color:var(--fg)}
header{background:var(--card);border-bottom:1px solid var(--ln);padding:12px 16px;display:flex;gap:12px;align-items:center;justify-content:space-between;flex-wrap:wrap}
header strong{font-size:1.125rem}
a{color:var(--acc)}
main{max-width:64rem;margin:0 auto;padding:16px;display:grid;gap:16px;grid-template-columns:minmax(0,1fr)}
@media (min-width:860px){main{grid-template-columns:minmax(0,1fr) minmax(0,22rem)}}
section{background:var(--card);border:1px solid var(--ln);border-radius:12px;padding:16px;min-width:0}
h1{font-size:1.5rem;margin:0 0 4px}h2{font-size:1.125rem;margin:0 0 8px}
p{margin:0 0 8px}.mut{color:var(--mut);font-size:.875rem}
nav ul{list-style:none;padding:0;margin:8px 0 0;display:flex;flex-wrap:wrap;gap:6px}
nav a{display:inline-block;padding:6px 10px;border:1px solid var(--ln);border-radius:999px;text-decoration:none;font-size:.875rem}
nav a[aria-current]{background:var(--acc);color:var(--card);border-color:var(--acc)}
dl{display:grid;grid-template-columns:1fr auto;gap:4px 12px;margin:0}dd{margin:0;font-weight:600}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:var(--bg);padding:12px;border-radius:8px;font-size:.8125rem;margin:0;max-height:20rem;overflow:auto}
details{margin-top:12px}ul.v{padding-inline-start:1.25rem;font-size:.875rem}
aside{display:grid;gap:16px;align-content:start}.note{margin-top:12px}nav{margin-bottom:16px}
</style>
</head>
<body>
<header><strong>${x.title}</strong><span><a href="${link(L, page.forms)}">${x.newCheckout}</a> · <a href="${link(L === "ar" ? "en" : "ar", page.forms)}" lang="${L === "ar" ? "en" : "ar"}">${L === "ar" ? "English" : "العربية"}</a></span></header>
<main>
<div>
<h1>${L === "ar" ? "الدفع" : "Checkout"}</h1>
<p class="mut">${x.intro}</p>
<nav aria-label="formsOfPayment"><ul>${switches}</ul></nav>${page.browserLanguage === L ? "" : `\n<p class="mut note" id="language-note">${x.followsBrowser}</p>`}
<div id="checkout"></div>
</div>
<aside>
<section><h2>${x.order}</h2><dl><dt>${x.item}</dt><dd dir="ltr">10.500 KWD</dd><dt>${x.total}</dt><dd dir="ltr">10.500 KWD</dd></dl></section>
<section><h2>${x.result}</h2>
<pre id="result" dir="auto" aria-live="polite">${x.waiting}</pre>
<details><summary>${x.values}</summary>
<ul class="v" dir="ltr" lang="en">
<li>Mobile wallet: any number, code <code>123456</code> approves; a number ending in <code>0000</code> is declined.</li>
<li>Card page: <code>4242 4242 4242 4242</code> approved, <code>4000 0000 0000 0002</code> declined, <code>4000 0000 0000 3220</code> asks for the bank's confirmation; any future expiry and CVC. Tick "save" to see a saved card on the next checkout.</li>
<li>Bank page (national debit): Approve, Decline or Cancel; a decline shows the gateway's response in a popup.</li>
<li>Stripe (local stand-in): <code>4242 4242 4242 4242</code> approved, <code>4000 0027 6000 3184</code> opens its 3-D Secure page, <code>4000 0000 0000 0002</code> declined.</li>
</ul></details></section>
</aside>
</main>
<script nonce="${nonce}">
function show(name, data) { document.getElementById("result").textContent = name + "\\n" + JSON.stringify(data, null, 2); }
function onSuccess(data) { show("successCallback", data); }
function onError(data) { show("errorCallback", data); }
function onCancel(data) { show("cancelCallback", data); SvcCheckout.Checkout.showResultPopup(data); }
</script>
<script nonce="${nonce}" src="${attr(page.sdk.src)}"${integrity} data-success="onSuccess" data-cancel="onCancel" data-error="onError"></script>
<script nonce="${nonce}">
SvcCheckout.init({
  selector: "#checkout",
  merchantId: ${scriptJson(page.merchantId)},
  apiKey: ${scriptJson(page.publicKey)},
  sessionId: ${scriptJson(page.sessionId)},
  setupPreload: ${scriptJson(page.preload)},${forms ? `\n  formsOfPayment: ${scriptJson(forms)},` : ""}
  nonce: ${scriptJson(nonce)}
});
</script>
</body>
</html>`;
  const csp = `default-src 'none'; script-src 'nonce-${nonce}' 'strict-dynamic'; style-src 'nonce-${nonce}'; connect-src 'self' ${serviceOrigin(page.merchantId)}; frame-ancestors 'none'; base-uri 'none'`;
  return { html, csp };
}
