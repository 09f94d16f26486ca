/**
 * The popup chunk, loaded only when a popup is shown (the ESM build code-splits it; the
 * single-file build loads `svc-checkout-popup.js` beside itself). An accessible modal `<dialog>`:
 * focus moves in, Escape and the Close button close it, focus returns to what opened it (inside
 * a shadow root too); styled without `style` attributes. The gateway's answer is shown as a
 * receipt: translated label/value rows, values left to right inside a right-to-left layout.
 */
import { adoptStyles } from "../theme/adopt.js";
import { themeRule } from "../theme/variables.js";
import {
  browserLanguage,
  type CallbackData,
  type Language,
  popupContent,
  type PopupOptions,
  type PopupRow,
} from "@svc/checkout-core";
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

/** The popup's own words, and labels of the fields gateways and callback data carry. */
const TEXTS: Record<Language, Record<string, string>> = {
  en: {
    popupTitle: "Payment result",
    close: "Close",
    yes: "Yes",
    no: "No",
    f_result: "Result",
    f_auth_code: "Authorization code",
    f_ref: "Reference",
    f_reference_number: "Reference",
    f_payment_id: "Payment ID",
    f_transaction_id: "Transaction ID",
    f_track_id: "Tracking ID",
    f_post_date: "Posting date",
    f_amount: "Amount",
    f_is_sandbox: "Test payment",
    f_status: "Status",
    f_message: "Message",
    f_form_of_payment: "Payment method",
    f_session_id: "Checkout ID",
    f_order_no: "Order",
    f_pg_code: "Gateway code",
    f_pg_name: "Gateway",
    f_challenge_occurred: "Card verification",
    f_authorized: "Authorized",
    f_captured: "Captured",
    f_error: "Error",
    f_reason: "Reason",
    f_detail: "Detail",
  },
  ar: {
    popupTitle: "نتيجة الدفع",
    close: "إغلاق",
    yes: "نعم",
    no: "لا",
    f_result: "النتيجة",
    f_auth_code: "رمز التفويض",
    f_ref: "المرجع",
    f_reference_number: "المرجع",
    f_payment_id: "رقم الدفعة",
    f_transaction_id: "رقم المعاملة",
    f_track_id: "رقم التتبع",
    f_post_date: "تاريخ القيد",
    f_amount: "المبلغ",
    f_is_sandbox: "دفعة تجريبية",
    f_status: "الحالة",
    f_message: "الرسالة",
    f_form_of_payment: "طريقة الدفع",
    f_session_id: "رقم عملية الدفع",
    f_order_no: "الطلب",
    f_pg_code: "رمز البوابة",
    f_pg_name: "البوابة",
    f_challenge_occurred: "التحقق من البطاقة",
    f_authorized: "مفوَّضة",
    f_captured: "محصَّلة",
    f_error: "الخطأ",
    f_reason: "السبب",
    f_detail: "التفاصيل",
  },
};

function label(texts: Record<string, string>, key: string): string {
  const known = texts[`f_${key}`];
  if (known) return known;
  const words = key.replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function flatten(texts: Record<string, string>, value: Record<string, unknown>, rows: PopupRow[]) {
  for (const [key, v] of Object.entries(value)) {
    if (v === null || v === undefined || v === "") continue;
    if (typeof v === "object" && !Array.isArray(v)) flatten(texts, v as Record<string, unknown>, rows);
    else
      rows.push({
        label: label(texts, key),
        value:
          typeof v === "boolean" ? (v ? texts.yes! : texts.no!) : Array.isArray(v) ? v.join(", ") : String(v),
      });
  }
}

/**
 * The seed's popup rule as receipt rows with translated labels (`pg_response` for ndebit, else
 * the whole data, nested objects flattened); empty without a gateway response.
 * @example
 * popupRows(data) // [{ label: "Result", value: "NOT CAPTURED" }, { label: "Authorization code", value: "123456" }]
 */
export function popupRows(data: CallbackData | undefined, language = browserLanguage()): PopupRow[] {
  const content = popupContent(data);
  const rows: PopupRow[] = [];
  if (content) flatten(TEXTS[language], content, rows);
  return rows;
}

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
