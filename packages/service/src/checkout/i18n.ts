/**
 * Backend texts in the transaction's language (the seed: fee descriptions and other texts from
 * the backend follow the language passed at transaction creation). English and Arabic.
 */
import type { FormOfPayment, Language } from "@svc/protocol";

const en = {
  fee_none: "No fee",
  method_wallet_a_pay: "Device wallet",
  method_wallet_b_pay: "Mobile wallet",
  method_svc_pg: "Credit or debit card",
  method_token_pay: "Saved card",
  method_redirect: "Pay on the bank's page",
  page_title: "Pay by card",
  amount_due: "Amount due",
  order: "Order",
  card_number: "Card number",
  card_number_hint: "16 digits, as on the front of the card",
  expiry: "Expiry (MM/YY)",
  cvc: "Security code (CVC)",
  holder: "Name on card",
  save_card: "Save this card for next time",
  gateway: "Payment gateway",
  pay: "Pay",
  paid_title: "Payment successful",
  paid_body: "Thank you. Your payment was received.",
  authorized_body: "Thank you. Your payment was authorised.",
  failed_title: "Payment failed",
  failed_body: "The payment was declined. Start again with a new checkout from the shop.",
  canceled_title: "Payment cancelled",
  canceled_body: "Payment was cancelled.",
  expired_title: "Checkout expired",
  expired_body: "This checkout has expired. Go back to the shop and start again.",
  in_progress_title: "Payment in progress",
  in_progress_body: "A payment for this checkout is already in progress.",
  not_found_title: "Checkout not found",
  not_found_body: "This checkout link is not valid.",
  back_to_shop: "Back to the shop",
  error_summary: "Please correct the following:",
  err_card_number: "Enter the 16-digit card number exactly as on the card.",
  err_expiry: "Enter the expiry as MM/YY, for example 12/30, and use a card that has not expired.",
  err_cvc: "Enter the 3 or 4 digit security code from the back of the card.",
  err_holder: "Enter the name as on the card, at most 100 characters.",
  err_gateway: "Choose a payment gateway.",
  msg_success: "Payment successful",
  msg_declined: "The payment was declined",
  msg_canceled: "Payment was cancelled.",
  msg_redirect: "Continue on the payment page",
  msg_otp_sent: "Enter the one-time code sent to your mobile number",
} as const;

type Key = keyof typeof en;

const ar: Record<Key, string> = {
  fee_none: "بدون رسوم",
  method_wallet_a_pay: "محفظة الجهاز",
  method_wallet_b_pay: "محفظة الجوال",
  method_svc_pg: "بطاقة ائتمان أو خصم",
  method_token_pay: "بطاقة محفوظة",
  method_redirect: "الدفع عبر صفحة البنك",
  page_title: "الدفع بالبطاقة",
  amount_due: "المبلغ المستحق",
  order: "الطلب",
  card_number: "رقم البطاقة",
  card_number_hint: "16 رقمًا كما على وجه البطاقة",
  expiry: "تاريخ الانتهاء (شهر/سنة)",
  cvc: "رمز الأمان (CVC)",
  holder: "الاسم على البطاقة",
  save_card: "احفظ هذه البطاقة للمرة القادمة",
  gateway: "بوابة الدفع",
  pay: "ادفع",
  paid_title: "تم الدفع بنجاح",
  paid_body: "شكرًا لك. تم استلام دفعتك.",
  authorized_body: "شكرًا لك. تم تفويض دفعتك.",
  failed_title: "فشل الدفع",
  failed_body: "تم رفض الدفع. ابدأ من جديد بعملية دفع جديدة من المتجر.",
  canceled_title: "تم إلغاء الدفع",
  canceled_body: "تم إلغاء الدفع.",
  expired_title: "انتهت صلاحية الدفع",
  expired_body: "انتهت صلاحية عملية الدفع هذه. عد إلى المتجر وابدأ من جديد.",
  in_progress_title: "الدفع قيد التنفيذ",
  in_progress_body: "هناك عملية دفع قيد التنفيذ لهذا الطلب.",
  not_found_title: "عملية الدفع غير موجودة",
  not_found_body: "رابط الدفع هذا غير صالح.",
  back_to_shop: "العودة إلى المتجر",
  error_summary: "يرجى تصحيح ما يلي:",
  err_card_number: "أدخل رقم البطاقة المكون من 16 رقمًا كما هو على البطاقة.",
  err_expiry: "أدخل تاريخ الانتهاء بصيغة شهر/سنة مثل 12/30، واستخدم بطاقة غير منتهية.",
  err_cvc: "أدخل رمز الأمان المكون من 3 أو 4 أرقام من ظهر البطاقة.",
  err_holder: "أدخل الاسم كما على البطاقة، 100 حرف على الأكثر.",
  err_gateway: "اختر بوابة الدفع.",
  msg_success: "تم الدفع بنجاح",
  msg_declined: "تم رفض الدفع",
  msg_canceled: "تم إلغاء الدفع.",
  msg_redirect: "تابع في صفحة الدفع",
  msg_otp_sent: "أدخل الرمز المرسل إلى رقم جوالك",
};

const TEXTS: Record<Language, Record<Key, string>> = { en, ar };

export type TextKey = Key;

export function t(language: Language, key: Key): string {
  return TEXTS[language][key];
}

export function methodName(language: Language, form: FormOfPayment): string {
  return t(language, `method_${form}` as Key);
}
