/**
 * Human labels for the codes the API speaks (`e_commerce`, `wallet_b_pay`, `input`, …), one table
 * per language (the dashboard's English and Arabic pages). The dashboard shows the label; a badge
 * keeps the code in `data-state` for scripts.
 */
export type DashboardLanguage = "en" | "ar";

const EN: Record<string, string> = {
  // Payment states (the parent) and what its totals make of them.
  created: "Created",
  pending: "Opened by the customer",
  attempted: "Waiting on the customer",
  authorized: "Authorized",
  paid: "Paid",
  failed: "Declined",
  canceled: "Canceled",
  expired: "Expired",
  partially_refunded: "Partially refunded",
  refunded: "Refunded",
  partially_captured: "Partially captured",
  captured: "Captured",
  voided: "Voided",
  // Operations and their states.
  refund: "Refund",
  capture: "Capture",
  void: "Void",
  purchase: "Purchase",
  authorize: "Authorization",
  refund_pending: "Refund in progress",
  refund_queued: "Refund queued at the gateway",
  refund_rejected: "Refund rejected by the gateway",
  capture_pending: "Capture in progress",
  capture_queued: "Capture queued at the gateway",
  capture_rejected: "Capture rejected by the gateway",
  void_pending: "Void in progress",
  void_queued: "Void queued at the gateway",
  void_rejected: "Void rejected by the gateway",
  // Types, origins and sources.
  e_commerce: "E-commerce",
  payment_request: "Payment request",
  api: "API",
  dashboard: "Dashboard",
  gateway: "Gateway's own dashboard",
  input: "svc (dashboard or API)",
  svc_pg: "Card (svc's card page)",
  pg: "The gateway",
  // Forms of payment.
  wallet_a_pay: "Wallet A (device wallet)",
  wallet_b_pay: "Wallet B (mobile number)",
  national_debit: "National debit card",
  card: "Card",
  redirect: "Bank page",
  token_pay: "Saved card",
  // Attempt statuses.
  started: "Started",
  otp_required: "Waiting for the one-time code",
  action_required: "Sent to the gateway's page",
  approved: "Approved",
  declined: "Declined",
  error: "Error",
};

const AR: Record<string, string> = {
  created: "أُنشئت",
  pending: "فتحها العميل",
  attempted: "بانتظار العميل",
  authorized: "مفوَّضة",
  paid: "مدفوعة",
  failed: "مرفوضة",
  canceled: "ملغاة",
  expired: "منتهية الصلاحية",
  partially_refunded: "مستردة جزئيًا",
  refunded: "مستردة",
  partially_captured: "محصّلة جزئيًا",
  captured: "محصّلة",
  voided: "مُبطلة",
  refund: "استرداد",
  capture: "تحصيل",
  void: "إبطال",
  purchase: "شراء",
  authorize: "تفويض",
  refund_pending: "استرداد قيد التنفيذ",
  refund_queued: "استرداد في انتظار البوابة",
  refund_rejected: "رفضت البوابة الاسترداد",
  capture_pending: "تحصيل قيد التنفيذ",
  capture_queued: "تحصيل في انتظار البوابة",
  capture_rejected: "رفضت البوابة التحصيل",
  void_pending: "إبطال قيد التنفيذ",
  void_queued: "إبطال في انتظار البوابة",
  void_rejected: "رفضت البوابة الإبطال",
  e_commerce: "تجارة إلكترونية",
  payment_request: "طلب دفع",
  api: "واجهة البرمجة",
  dashboard: "لوحة التحكم",
  gateway: "لوحة تحكم البوابة",
  input: "svc (لوحة التحكم أو واجهة البرمجة)",
  svc_pg: "بطاقة (صفحة البطاقة في svc)",
  pg: "البوابة",
  wallet_a_pay: "المحفظة A (محفظة الجهاز)",
  wallet_b_pay: "المحفظة B (رقم الجوال)",
  national_debit: "بطاقة الخصم الوطنية",
  card: "بطاقة",
  redirect: "صفحة البنك",
  token_pay: "بطاقة محفوظة",
  started: "بدأت",
  otp_required: "بانتظار رمز التحقق",
  action_required: "أُرسل إلى صفحة البوابة",
  approved: "مقبولة",
  declined: "مرفوضة",
  error: "خطأ",
};

const TABLES: Record<DashboardLanguage, Record<string, string>> = { en: EN, ar: AR };

/** The label of `code`, or the code with its underscores as spaces when there is none. */
export function label(code: string | null | undefined, language: DashboardLanguage = "en"): string {
  if (!code) return "—";
  return TABLES[language][code] ?? code.replace(/_/g, " ");
}

/** Every code with a label in one language has one in the other (checked by a test). */
export function labelCodes(language: DashboardLanguage): string[] {
  return Object.keys(TABLES[language]);
}

/**
 * What a payment is now, from its state and its totals (formatted, or in minor units: only
 * whether each is above zero counts): a paid payment with part of it refunded is "partially
 * refunded", an authorization with part captured "partially captured", and so on. The payment's
 * page and the payments list both show it.
 */
export function displayState(p: {
  state: string;
  captured_amount: string | number;
  refunded_amount: string | number;
  voided_amount: string | number;
  refundable_amount: string | number;
  capturable_amount: string | number;
}): string {
  const some = (a: string | number) => Number(a) > 0;
  if (p.state === "paid" || p.state === "authorized") {
    if (some(p.refunded_amount)) return some(p.refundable_amount) ? "partially_refunded" : "refunded";
    if (p.state === "authorized") {
      if (some(p.voided_amount) && !some(p.captured_amount)) return "voided";
      if (some(p.captured_amount)) return some(p.capturable_amount) ? "partially_captured" : "captured";
    }
  }
  return p.state;
}
