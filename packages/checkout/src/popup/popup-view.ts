/**
 * The popup chunk, loaded only when a popup is shown (the ESM build code-splits it; the
 * single-file build loads `svc-checkout-popup.js` beside itself). An accessible modal `<dialog>`:
 * focus moves in, Escape and the Close button close it, focus returns to what opened it (inside
 * a shadow root too); styled without `style` attributes. The gateway's answer is shown as a
 * receipt: translated label/value rows, values left to right inside a right-to-left layout.
 */
import { adoptStyles } from "../theme/adopt.js";
import { themeRule } from "../theme/variables.js";
import { browserLanguage, POPUP_TEXTS as TEXTS, type PopupOptions, type PopupRow } from "@svc/checkout-core";

export { popupRows } from "@svc/checkout-core";
import { h, uid } from "../components/dom.js";

const POPUP_CSS = `
dialog{box-sizing:border-box;width:min(calc(100vw - 24px),480px);max-height:calc(100vh - 24px);overflow:auto;border:1px solid #8a8a96;border-radius:12px;padding:20px;background:var(--svc-modal-bg,#fff);color:#1b1b1f;font:16px/1.45 system-ui,sans-serif}
:host([data-theme=dark]) dialog{background:var(--svc-modal-bg,#16161a);color:#ececf1}
dialog::backdrop{background:rgb(0 0 0/.5)}
h2{margin:0 0 12px;font-size:1.125rem}
p{margin:0 0 16px}
dl{margin:0 0 16px;display:grid;grid-template-columns:minmax(0,auto) minmax(0,1fr);border-top:1px solid #8a8a96}
dt,dd{margin:0;padding:8px 0;border-bottom:1px solid #8a8a96;min-width:0}
dt{color:#4a4a55;padding-inline-end:16px}
:host([data-theme=dark]) dt{color:#c2c2cc}
dd{font-weight:600;overflow-wrap:anywhere}
button{font:inherit;min-height:44px;padding:8px 16px;border-radius:8px;border:0;background:#0b57d0;color:#fff;cursor:pointer;width:100%}
:host([data-theme=dark]) button{background:#a8c7fa;color:#062e6f}
button:focus-visible{outline:3px solid #0b57d0;outline-offset:2px}
`;

/** The focused element, looking into open shadow roots (a button inside the checkout view). */
function deepActiveElement(): HTMLElement | null {
  let el = document.activeElement as HTMLElement | null;
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement as HTMLElement;
  return el;
}

export function showPopup(message: string | PopupRow[], options: PopupOptions = {}): Promise<void> {
  const language = browserLanguage();
  const texts = TEXTS[language];
  const dark = typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
  const mode = dark ? "dark" : "light";
  const host = h("div", {
    class: "svc-checkout-popup",
    "data-theme": mode,
    lang: language,
    dir: language === "ar" ? "rtl" : "ltr",
  });
  const shadow = host.attachShadow({ mode: "open" });
  adoptStyles(shadow, [POPUP_CSS, themeRule(options.theme, mode)], options.nonce);
  const titleId = uid("popup");
  const content =
    typeof message === "string"
      ? h("p", {}, message)
      : h(
          "dl",
          {},
          ...message.flatMap((row) => [
            h("dt", {}, row.label),
            h("dd", {}, h("bdi", { dir: "ltr" }, row.value)),
          ]),
        );
  const dialog = h(
    "dialog",
    { "aria-labelledby": titleId },
    h("h2", { id: titleId }, options.title ?? texts.popupTitle!),
    content,
    h("form", { method: "dialog" }, h("button", { type: "submit", autofocus: true }, texts.close!)),
  );
  shadow.append(dialog);
  const previous = deepActiveElement();
  document.body.append(host);
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      host.remove();
      if (previous?.isConnected && previous !== document.body) previous.focus();
      resolve();
    });
  });
}
