/**
 * The dashboard's stylesheet and its one small script, served as files so the CSP needs no
 * 'unsafe-inline'. Light and dark follow prefers-color-scheme; layout uses logical properties.
 * The script only enhances: every page works without it.
 */
export const DASHBOARD_CSS = `
:root{color-scheme:light dark;--bg:#f4f5f7;--card:#fff;--fg:#1b1f24;--muted:#545d68;--accent:#0b5cd5;--accent-fg:#fff;--err:#b00020;--ok:#156b2f;--wait:#7a4b00;--border:#8a939e;--line:#d5d9de}
@media (prefers-color-scheme:dark){:root{--bg:#111418;--card:#1b2026;--fg:#eef1f4;--muted:#b4bcc6;--accent:#7fb0ff;--accent-fg:#0b1220;--err:#ff8a8a;--ok:#7ddc95;--wait:#f3c46b;--border:#6b7580;--line:#39414b}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,sans-serif;background:var(--bg);color:var(--fg)}
a{color:var(--accent)}
.skip{position:absolute;inset-inline-start:-999px}.skip:focus{inset-inline-start:1rem;inset-block-start:1rem;background:var(--card);padding:.5rem;z-index:2}
.top{display:flex;flex-wrap:wrap;align-items:center;gap:1rem 2rem;padding-block:.75rem;padding-inline:1.5rem;background:var(--card);border-block-end:1px solid var(--line)}
.brand{margin:0;font-weight:700}.brand a{color:var(--fg);text-decoration:none}
.top nav{order:3;flex-basis:100%}
.top nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
.top nav a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
.account{margin-inline-start:auto;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.25rem}
.lang-switch{margin:0}
.sign-out{display:flex;align-items:center;gap:.5rem}
main{max-width:72rem;margin-block:1.5rem;margin-inline:auto;padding-inline:1.5rem}
main:focus{outline:none}
h1{font-size:1.5rem;margin-block:0 1rem}h2{font-size:1.15rem;margin-block:1.5rem .5rem}
section,article,.panel{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:1rem 1.25rem;margin-block-end:1rem}
section>h2:first-child,article>h2:first-child,.panel>h2:first-child{margin-block-start:0}
table{border-collapse:collapse;width:100%;background:var(--card)}
caption{text-align:start;font-weight:600;padding-block:.25rem}
th,td{text-align:start;padding:.45rem .6rem;border-block-end:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600}
td.num,th.num{text-align:end;font-variant-numeric:tabular-nums}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1.25rem;margin:0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr));gap:1rem}
form.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end;margin-block-end:1rem}
.field{margin-block:.5rem}
label{display:block;font-weight:600;margin-block-end:.2rem}
.hint{color:var(--muted);font-size:.875rem;margin:0 0 .2rem}
input[type=text],input[type=password],input[type=url],input[type=email],input[type=tel],input[type=number],input[type=date],input[type=search],select{font:inherit;padding:.45rem .55rem;border:1px solid var(--border);border-radius:6px;background:var(--card);color:var(--fg);min-inline-size:10rem;max-inline-size:100%}
input.wide,textarea.wide{inline-size:28rem;max-inline-size:100%}
input,select,textarea{max-inline-size:100%}
code,dd,td,h1,h2{overflow-wrap:anywhere}
.filters .field{min-inline-size:0;max-inline-size:100%}
details.filters-toggle>summary{cursor:pointer;font-weight:600;margin-block:.5rem}
input,select,textarea{max-inline-size:100%}
code,dd,td{overflow-wrap:anywhere}
details.filters-toggle>summary{cursor:pointer;font-weight:600;margin-block:.5rem}
input[aria-invalid=true],select[aria-invalid=true]{border-color:var(--err);border-width:2px}
.check{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-block:.5rem}.check label{margin:0;font-weight:400;flex:1 1 0;min-inline-size:0}.check .hint{flex-basis:100%}
button{font:inherit;font-weight:600;padding:.5rem 1rem;border:2px solid var(--accent);border-radius:6px;background:var(--accent);color:var(--accent-fg);cursor:pointer;max-inline-size:100%;overflow-wrap:anywhere}
a.button{display:inline-block;font-weight:600;padding:.5rem 1rem;border:2px solid var(--accent);border-radius:6px;background:var(--accent);color:var(--accent-fg);text-decoration:none}
code.url{overflow-wrap:anywhere}
.summary{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;margin-block:.25rem 1rem}
.summary .big{font-size:1.6rem;font-weight:700}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(8.5rem,1fr));gap:.75rem;margin-block:.5rem 1rem}
.tile{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.6rem .9rem}
.tile p{margin:0}.tile .k{color:var(--muted);font-size:.85rem;font-weight:600}.tile .v{font-size:1.35rem;font-weight:700}
svg.chart{display:block;inline-size:100%;block-size:10rem;border-block-end:1px solid var(--border)}
svg.chart .bar{fill:var(--accent)}
svg.chart:dir(rtl){transform:scaleX(-1)}
ol.chart-days{display:grid;list-style:none;padding:0;margin:.2rem 0 .5rem;font-size:.75rem;color:var(--muted);text-align:center}
ol.chart-days.n1{grid-template-columns:1fr}ol.chart-days.n7{grid-template-columns:repeat(7,1fr)}ol.chart-days.n30{grid-template-columns:repeat(30,1fr);white-space:nowrap}
ul.ranges{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;padding:0;margin:0 0 .5rem}
ul.ranges a{display:inline-block;padding:.3rem .8rem;border:1px solid var(--border);border-radius:999px;text-decoration:none}
ul.ranges a[aria-current=page]{background:var(--accent);color:var(--accent-fg);border-color:var(--accent);font-weight:600}
ol.timeline{list-style:none;padding:0;margin:0 0 1rem;border-inline-start:2px solid var(--line)}
ol.timeline li{position:relative;padding:.15rem 0 .8rem;padding-inline-start:1rem}
ol.timeline li::before{content:"";position:absolute;inset-inline-start:-7px;inset-block-start:.45rem;width:12px;height:12px;border-radius:50%;background:var(--border)}
ol.timeline li.good::before{background:var(--ok)}
ol.timeline li.bad::before{background:var(--err)}
ol.timeline li.wait::before{background:var(--wait)}
ol.timeline .what{margin:.1rem 0;font-weight:600}
ol.timeline .hint{margin:0;overflow-wrap:anywhere}[dir=rtl] ol.timeline .hint[dir=ltr]{text-align:right}
fieldset{border:1px solid var(--line);border-radius:6px;margin:0 0 1rem;padding:.5rem 1rem}
textarea{font:inherit;padding:.4rem;border:1px solid var(--border);border-radius:6px;background:var(--card);color:var(--fg);max-width:100%}
@media (max-width:40rem){table.stack thead{display:none}table.stack,table.stack tbody,table.stack tr,table.stack td{display:block}table.stack tr{border-block-end:1px solid var(--line);padding-block:.4rem}table.stack td{border:0;padding:.15rem .6rem}table.stack td::before{content:attr(data-label);display:block;font-size:.8rem;font-weight:600;color:var(--muted)}table.stack caption{display:block}table.stack td.num{text-align:start}}
button.secondary{background:transparent;color:var(--accent)}
button.danger{background:var(--err);border-color:var(--err);color:var(--card)}
button[disabled]{opacity:.6;cursor:progress}
.inline{display:inline}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.notice{border:2px solid var(--accent);border-radius:8px;padding:.6rem 1rem;margin-block-end:1rem;background:var(--card)}
.notice.success{border-color:var(--ok)}.notice.error{border-color:var(--err)}
.notice h2{font-size:1rem;margin:0;color:var(--err)}.notice ul{margin:.25rem 0 0;padding-inline-start:1.25rem}
.field-error{color:var(--err);font-size:.875rem;margin:.2rem 0 0}
.badge{display:inline-block;padding:0 .5rem;border-radius:999px;border:1px solid currentColor;font-size:.85rem;font-weight:600;white-space:nowrap}
.badge.good{color:var(--ok)}.badge.bad{color:var(--err)}.badge.wait{color:var(--wait)}
code,.mono{font-family:ui-monospace,monospace;font-size:.9em;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:0;font-size:.85em;max-block-size:12rem;overflow:auto}
.secret{display:block;padding:.5rem;border:1px dashed var(--border);border-radius:6px}
.pager{display:flex;gap:1rem;margin-block:1rem}
.muted{color:var(--muted)}
article form{margin-block-start:.75rem}
.sign-in{max-width:24rem;margin-inline:auto}
main:has(>.sign-in)>h1,main:has(>div>.sign-in) h1{max-width:24rem;margin-inline:auto}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
fieldset legend{font-weight:600;padding-inline:.25rem}
fieldset.choices{border:0;padding:0;margin-block:.5rem}fieldset.choices legend{padding:0;margin-block-end:.2rem}
fieldset.choices[aria-invalid=true] input{outline:2px solid var(--err);outline-offset:1px}
details.advanced{margin-block:.5rem}details.advanced>summary{cursor:pointer;font-weight:600}
table.gateways td,table.gateways code{overflow-wrap:break-word}table.gateways .cred{display:block}
@media (min-width:40rem){table.gateways .cred{white-space:nowrap}}
@media (min-width:40rem){td.num,td.nowrap{white-space:nowrap}}
form+section,form+article{margin-block-start:1rem}dl.facts+*{margin-block-start:.75rem}
select{min-block-size:calc(1.5em + .9rem + 2px)}
[dir=rtl] .field-error[dir=ltr],[dir=rtl] ul[dir=ltr]{text-align:right}[dir=rtl] ul[dir=ltr]{list-style-position:inside;padding:0}
.gateway-form fieldset,fieldset.choices{min-inline-size:0}.gateway-form fieldset[hidden]{display:none}
`;

/** The tab's icon: a rounded square with an "s", in the accent colour. */
export const DASHBOARD_FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b5cd5"/><path d="M21 11.5c-1-1.3-2.7-2-4.7-2-2.8 0-4.8 1.5-4.8 3.6 0 2.3 2 3 4.6 3.6 2.3.5 3.4 1 3.4 2.2 0 1.2-1.3 2-3.2 2-1.9 0-3.4-.7-4.4-2" fill="none" stroke="#fff" stroke-width="2.6" stroke-linecap="round"/></svg>`;

/**
 * 1. Disables a form's submit button once it is sent (no double refund by a double click).
 * 2. Adds a "Copy" button beside [data-copy] values (in the page's language: the body's words).
 * 3. Refreshes a [data-poll] region (queued operations) until nothing in it is pending. Redirects
 *    are not followed: one means the session ended (the dashboard sends a signed-out GET to
 *    sign-in), so the page reloads, which leads to sign-in and back here — the sign-in form is
 *    never put inside the region.
 * 4. Moves the focus to a refused form's error summary ([data-error-summary]), or else to the
 *    message of what the last action did ([data-flash], FlashBox).
 * 5. A form with a choice of kind ([data-kind-select]) shows only the chosen kind's part
 *    ([data-kinds]); without the script every part shows and the server reads the chosen one.
 */
export const DASHBOARD_JS = `"use strict";
document.addEventListener("submit", function (e) {
  var button = e.target.querySelector("button[type=submit]");
  if (button) setTimeout(function () { button.disabled = true; }, 0);
});
var copyWord = document.body.getAttribute("data-copy-word") || "Copy";
var copiedWord = document.body.getAttribute("data-copied-word") || "Copied";
document.querySelectorAll("[data-copy]").forEach(function (el) {
  if (!navigator.clipboard) return;
  var b = document.createElement("button");
  b.type = "button"; b.className = "secondary"; b.textContent = copyWord;
  b.setAttribute("aria-label", copyWord + " " + (el.getAttribute("data-copy") || ""));
  b.addEventListener("click", function () {
    navigator.clipboard.writeText(el.textContent.trim()).then(function () { b.textContent = copiedWord; });
  });
  el.insertAdjacentElement("afterend", b);
});
function poll(region) {
  var url = region.getAttribute("data-poll");
  if (!url || !region.querySelector("[data-pending]")) return;
  setTimeout(function () {
    fetch(url, { credentials: "same-origin", redirect: "manual" }).then(function (r) {
      if (r.type === "opaqueredirect" || r.status === 401) { location.reload(); return null; }
      return r.ok ? r.text() : null;
    }).then(function (html) {
      if (html === null) return;
      region.innerHTML = html;
      poll(region);
    }).catch(function () {});
  }, 2000);
}
document.querySelectorAll("[data-poll]").forEach(poll);
var summary = document.querySelector("[data-error-summary]") || document.querySelector("[data-flash]");
if (summary) summary.focus();
document.querySelectorAll("select[data-kind-select]").forEach(function (select) {
  var parts = select.form ? select.form.querySelectorAll("[data-kinds]") : [];
  function show() {
    parts.forEach(function (part) {
      var on = part.getAttribute("data-kinds").split(" ").indexOf(select.value) >= 0;
      part.hidden = !on;
      part.disabled = !on;
    });
  }
  select.addEventListener("change", show);
  show();
});
`;
