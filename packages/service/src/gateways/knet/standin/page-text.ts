/** The stand-in's payment page in KNET's two languages (langid USA/EN → English, AR → Arabic). */

export type PageLanguage = "en" | "ar";

export const pageLanguage = (langid: string): PageLanguage => (langid === "AR" ? "ar" : "en");

/** The banks of the page's list: KNET's test card (manual section 4) and one bank without an issuer. */
export const BANKS = [
  { code: "KNET1", name: "KNET Test Card [KNET1]", prefixes: ["888888"] },
  { code: "TEST2", name: "Stand-in Other Bank [TEST2]", prefixes: ["777777"] },
] as const;
/** Card digits typed after the prefix: 16-digit cards. */
export const CARD_DIGITS_AFTER_PREFIX = 10;
/** The expiry years offered: the test card's 2021 and the years cards are issued for now. */
export const EXPIRY_YEARS = Array.from({ length: 21 }, (_, i) => String(2020 + i));

export const PAGE_TEXT = {
  en: {
    title: "KNET Payment",
    heading: "KNET Payment Gateway",
    notice: "Test stand-in of KNET's payment page: no real card is charged.",
    amount: "Amount",
    currency: (amount: string) => `KWD ${amount}`,
    bank: "Bank",
    chooseBank: "Select your bank",
    cardNumber: "Card number",
    cardPrefix: "Card number prefix",
    choosePrefix: "Prefix",
    cardRest: `Card number (the remaining ${CARD_DIGITS_AFTER_PREFIX} digits)`,
    expiry: "Expiration date",
    month: "Expiry month",
    year: "Expiry year",
    pin: "PIN",
    submit: "Submit",
    cancel: "Cancel",
    error: "Error",
    done: "Your transaction has been processed. You may close this window.",
  },
  ar: {
    title: "الدفع عبر كي نت",
    heading: "بوابة الدفع كي نت",
    notice: "صفحة دفع تجريبية بديلة عن كي نت: لا تُخصم أي مبالغ.",
    amount: "المبلغ",
    currency: (amount: string) => `${amount} د.ك.`,
    bank: "البنك",
    chooseBank: "اختر البنك",
    cardNumber: "رقم البطاقة",
    cardPrefix: "بادئة رقم البطاقة",
    choosePrefix: "البادئة",
    cardRest: `رقم البطاقة (الأرقام الـ${CARD_DIGITS_AFTER_PREFIX} المتبقية)`,
    expiry: "تاريخ الانتهاء",
    month: "شهر الانتهاء",
    year: "سنة الانتهاء",
    pin: "الرقم السري",
    submit: "إرسال",
    cancel: "إلغاء",
    error: "خطأ",
    done: "تمت معالجة العملية. يمكنك إغلاق هذه النافذة.",
  },
} as const;
