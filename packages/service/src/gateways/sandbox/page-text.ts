/** The gateway page's words in each language svc supports. */
import type { Language } from "@svc/protocol";

export interface PageText {
  /** Who shows the page, above its title. */
  gateway: string;
  title: { challenge: string; redirect: string };
  intro: { challenge: string; redirect: string };
  merchantReference: string;
  amount: string;
  approve: string;
  decline: string;
  cancel: string;
  sandboxNotice: string;
  done: string;
}

export const PAGE_TEXT: Record<Language, PageText> = {
  en: {
    gateway: "Sandbox bank",
    title: { challenge: "Confirm your card", redirect: "Confirm your payment" },
    intro: {
      challenge: "Your bank asks you to confirm this card payment.",
      redirect: "Choose how this test payment should end.",
    },
    merchantReference: "Merchant reference",
    amount: "Amount",
    approve: "Approve",
    decline: "Decline",
    cancel: "Cancel",
    sandboxNotice: "Sandbox gateway: no real money moves.",
    done: "This payment is already finished.",
  },
  ar: {
    gateway: "البنك التجريبي",
    title: { challenge: "تأكيد بطاقتك", redirect: "تأكيد الدفع" },
    intro: {
      challenge: "يطلب منك البنك تأكيد هذه الدفعة بالبطاقة.",
      redirect: "اختر كيف تنتهي هذه الدفعة التجريبية.",
    },
    merchantReference: "مرجع التاجر",
    amount: "المبلغ",
    approve: "موافقة",
    decline: "رفض",
    cancel: "إلغاء",
    sandboxNotice: "بوابة تجريبية: لا تنتقل أي أموال حقيقية.",
    done: "هذه الدفعة منتهية بالفعل.",
  },
};
