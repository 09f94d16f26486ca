/**
 * The national-debit popup's content as a receipt: translated label/value rows of what the
 * seed's rule shows (popup-rule.ts), and the popup's own words. Both SDKs draw these rows.
 */
import { browserLanguage, type Language } from "./i18n/language.js";
import { popupContent, type PopupRow } from "./popup-rule.js";
import type { CallbackData } from "./types.js";

/** The popup's own words, and labels of the fields gateways and callback data carry. */
export const POPUP_TEXTS: Record<Language, Record<string, string>> = {
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
    // KNET's own field names (its response and inquiry answer).
    f_auth: "Authorization code",
    f_paymentid: "Payment ID",
    f_tranid: "Transaction ID",
    f_trackid: "Tracking ID",
    f_postdate: "Posting date",
    f_amt: "Amount",
    f_authRespCode: "Response code",
    f_error_code: "Error code",
    f_error_text: "Error",
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
    f_auth: "رمز التفويض",
    f_paymentid: "رقم الدفعة",
    f_tranid: "رقم المعاملة",
    f_trackid: "رقم التتبع",
    f_postdate: "تاريخ القيد",
    f_amt: "المبلغ",
    f_authRespCode: "رمز الاستجابة",
    f_error_code: "رمز الخطأ",
    f_error_text: "الخطأ",
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
 * The seed's popup rule as receipt rows with translated labels (`pg_response` for ndebit and
 * knet, else the whole data, nested objects flattened); empty without a gateway response.
 * @example
 * popupRows(data) // [{ label: "Result", value: "NOT CAPTURED" }, { label: "Authorization code", value: "123456" }]
 */
export function popupRows(data: CallbackData | undefined, language = browserLanguage()): PopupRow[] {
  const content = popupContent(data);
  const rows: PopupRow[] = [];
  if (content) flatten(POPUP_TEXTS[language], content, rows);
  return rows;
}
