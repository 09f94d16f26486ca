/** The example merchant page: a shop's checkout page that mounts the SDK with the public key. */
import { randomBytes } from "node:crypto";

export interface ExamplePage {
  merchantId: string;
  publicKey: string;
  sessionId: string;
  preload: unknown;
  language: "en" | "ar";
}

/** The SDK's base URL rule: https, plain http only for localhost and 127.0.0.1. */
const serviceOrigin = (merchantId: string) =>
  `${/^(localhost|127\.0\.0\.1)(:|$)/.test(merchantId) ? "http" : "https"}://${merchantId}`;
/** JSON inside a <script>: no `<` can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

export function examplePage(page: ExamplePage): { html: string; csp: string } {
  const nonce = randomBytes(16).toString("base64");
  const html = `<!doctype html>
<html lang="${page.language}" dir="${page.language === "ar" ? "rtl" : "ltr"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc example shop — checkout</title>
<style nonce="${nonce}">
body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:40rem;padding:1rem}
pre{white-space:pre-wrap;background:#f3f3f6;padding:1rem;border-radius:8px}
@media (prefers-color-scheme:dark){body{background:#0e0e11;color:#ececf1}pre{background:#26262d}a{color:#a8c7fa}}
</style>
</head>
<body>
<main>
<h1>Example shop</h1>
<p>A new sandbox transaction (10.500 KWD) was created for this page by the server with the private key;
the checkout below runs in your browser with the public key only. <a href="/example/">New checkout</a> ·
<a href="/example/?lang=${page.language === "ar" ? "en" : "ar"}">${page.language === "ar" ? "English" : "العربية"}</a></p>
<div id="checkout"></div>
<h2>Result</h2>
<pre id="result" aria-live="polite">Waiting for a callback…</pre>
<details><summary>Sandbox test values</summary>
<ul>
<li>Mobile wallet: any number, code <code>123456</code> approves; a number ending in <code>0000</code> is declined.</li>
<li>Card page: <code>4242 4242 4242 4242</code> approved, <code>4000 0000 0000 0002</code> declined, any future expiry and CVC. Tick "save" to see a saved card (tokenPay) on the next checkout.</li>
<li>National debit (redirect): Approve, Decline or Cancel on the gateway's page; a decline shows the gateway's response in a popup.</li>
</ul></details>
</main>
<script nonce="${nonce}">
function show(name, data) { document.getElementById("result").textContent = name + "\\n" + JSON.stringify(data, null, 2); }
function onSuccess(data) { show("successCallback", data); }
function onError(data) { show("errorCallback", data); }
function onCancel(data) { show("cancelCallback", data); SvcCheckout.Checkout.showPopup(SvcCheckout.Checkout.popupText(data)); }
</script>
<script nonce="${nonce}" src="/sdk/svc-checkout.js" data-success="onSuccess" data-cancel="onCancel" data-error="onError"></script>
<script nonce="${nonce}">
SvcCheckout.init({
  selector: "#checkout",
  merchantId: ${scriptJson(page.merchantId)},
  apiKey: ${scriptJson(page.publicKey)},
  sessionId: ${scriptJson(page.sessionId)},
  setupPreload: ${scriptJson(page.preload)},
  nonce: ${scriptJson(nonce)}
});
</script>
</body>
</html>`;
  const csp = `default-src 'none'; script-src 'nonce-${nonce}' 'strict-dynamic'; style-src 'nonce-${nonce}'; connect-src 'self' ${serviceOrigin(page.merchantId)}; frame-ancestors 'none'; base-uri 'none'`;
  return { html, csp };
}
