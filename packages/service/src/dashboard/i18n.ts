/**
 * The dashboard's words in English and Arabic, one catalogue per language with the same keys
 * (the type makes a missing Arabic entry a compile error), and the user's choice of language:
 * `?lang=en|ar` on any page (remembered in a cookie for a year), else that cookie, else the
 * browser's Accept-Language, else English. Arabic pages are laid out right to left.
 * Codes from the API (states, forms of payment…) are translated by labels.ts.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { DashboardLanguage } from "./labels.js";

export type { DashboardLanguage };

export const LANGUAGE_COOKIE = "svc_dashboard_lang";
const YEAR_S = 365 * 24 * 3600;

const EN = {
  skip: "Skip to content",
  brand: "svc dashboard",
  nav_label: "Dashboard",
  nav_overview: "Overview",
  nav_payments: "Payments",
  nav_payment_request: "New payment request",
  nav_discrepancies: "Discrepancies",
  nav_gateways: "Gateways",
  nav_webhooks: "Webhooks",
  nav_deliveries: "Delivery log",
  nav_sdk: "SDK",
  nav_keys: "API keys",
  nav_audit: "Audit log",
  signed_in_as: "Signed in as",
  sign_out: "Sign out",
  title_suffix: "svc dashboard",
  language_switch: "العربية",
  there_is_a_problem: "There is a problem",
  copy: "Copy",
  copied: "Copied",
  none: "—",
  // Error pages
  not_found: "Not found",
  no_page: "There is no page here.",
  back: "Back to the dashboard",
  went_wrong: "Something went wrong",
  went_wrong_body: "Something went wrong on our side. Quote request id {id} to support.",
  unavailable: "Unavailable for a moment",
  unavailable_body:
    "The service cannot reach its database just now, so this did not complete. Try again in a few seconds.",
  conflict: "Try that again",
  conflict_body:
    "Another change to the same records happened at the same moment, so this one was undone. Try it again.",
  bad_request: "Bad request",
  bad_request_body: "The request could not be read. Go back and submit the form again.",
  too_large: "Form too large",
  too_large_body:
    "What was sent is over 1 MB, more than any form here takes. Go back, shorten what you typed and submit it again.",
  refused: "Request refused",
  signed_out: "Signed out",
  signed_out_body: "Your session has ended. Sign in again, then repeat the action.",
  permission_needed: "Permission needed",
  permission_body:
    'This needs the "{permission}" permission, which your user ({user}) does not have. Ask an administrator to grant it.',
  csrf_other_site: "The form was sent from another site. Open the dashboard and try again from there.",
  csrf_token:
    "The form's security token is missing or out of date. Reload the page and submit the form again.",
  // Sign-in and the account page
  sign_in: "Sign in",
  sign_in_failed: "Sign-in failed",
  sign_in_empty: "Enter your username and your password.",
  sign_in_wrong: "The username or password is wrong.",
  sign_in_locked: "Too many failed sign-ins. Wait {seconds} seconds, then try again.",
  username: "Username",
  password: "Password",
  account_title: "Your account",
  account_permissions: "Your permissions",
  account_none: "You have no permissions yet. Ask an administrator to grant the ones you need.",
  // Audit log
  audit_title: "Audit log",
  audit_intro:
    "Who did what to this account, when and from where: sign-ins, refunds, captures and voids, discrepancies settled, gateways, webhook settings and endpoints, keys, the signing secret, replays. The same list:",
  audit_newest_first: "Newest first",
  audit_when: "When",
  audit_who: "Who",
  audit_what: "What",
  audit_from: "From",
  audit_api_key: "(API key)",
  audit_empty: "Nothing recorded yet.",
  audit_older: "Older",
  pages: "Pages",
} as const;

export type MessageKey = keyof typeof EN;
export type Messages = Record<MessageKey, string>;

const AR: Messages = {
  skip: "تخطَّ إلى المحتوى",
  brand: "لوحة تحكم svc",
  nav_label: "لوحة التحكم",
  nav_overview: "نظرة عامة",
  nav_payments: "المدفوعات",
  nav_payment_request: "طلب دفع جديد",
  nav_discrepancies: "الفروقات",
  nav_gateways: "بوابات الدفع",
  nav_webhooks: "الويب هوك",
  nav_deliveries: "سجل التسليم",
  nav_sdk: "حزمة SDK",
  nav_keys: "مفاتيح API",
  nav_audit: "سجل التدقيق",
  signed_in_as: "مسجَّل الدخول باسم",
  sign_out: "تسجيل الخروج",
  title_suffix: "لوحة تحكم svc",
  language_switch: "English",
  there_is_a_problem: "هناك مشكلة",
  copy: "نسخ",
  copied: "تم النسخ",
  none: "—",
  not_found: "غير موجود",
  no_page: "لا توجد صفحة هنا.",
  back: "العودة إلى لوحة التحكم",
  went_wrong: "حدث خطأ ما",
  went_wrong_body: "حدث خطأ من جهتنا. اذكر معرّف الطلب {id} للدعم.",
  unavailable: "الخدمة غير متاحة للحظات",
  unavailable_body: "لا تستطيع الخدمة الوصول إلى قاعدة بياناتها الآن، فلم يكتمل هذا. حاول مرة أخرى بعد ثوانٍ.",
  conflict: "أعد المحاولة",
  conflict_body: "تزامن هذا مع تغيير آخر على السجلات نفسها، فأُلغي. حاول مرة أخرى.",
  bad_request: "طلب غير صالح",
  bad_request_body: "تعذّرت قراءة الطلب. ارجع وأرسل النموذج مرة أخرى.",
  too_large: "النموذج كبير جدًا",
  too_large_body:
    "ما أُرسل يتجاوز 1 ميغابايت، وهو أكثر مما يقبله أي نموذج هنا. ارجع واختصر ما كتبته ثم أرسله مرة أخرى.",
  refused: "رُفض الطلب",
  signed_out: "انتهت الجلسة",
  signed_out_body: "انتهت جلستك. سجّل الدخول مرة أخرى، ثم كرّر الإجراء.",
  permission_needed: "صلاحية مطلوبة",
  permission_body:
    "يتطلب هذا الصلاحية {permission}، وهي ليست لدى مستخدمك ({user}). اطلب من أحد المسؤولين منحها.",
  csrf_other_site: "أُرسل النموذج من موقع آخر. افتح لوحة التحكم وأعد المحاولة منها.",
  csrf_token: "رمز الأمان في النموذج مفقود أو منتهي الصلاحية. أعد تحميل الصفحة وأرسل النموذج مرة أخرى.",
  sign_in: "تسجيل الدخول",
  sign_in_failed: "تعذّر تسجيل الدخول",
  sign_in_empty: "أدخل اسم المستخدم وكلمة المرور.",
  sign_in_wrong: "اسم المستخدم أو كلمة المرور غير صحيحة.",
  sign_in_locked: "محاولات دخول فاشلة كثيرة. انتظر {seconds} ثانية، ثم أعد المحاولة.",
  username: "اسم المستخدم",
  password: "كلمة المرور",
  account_title: "حسابك",
  account_permissions: "صلاحياتك",
  account_none: "ليست لديك صلاحيات بعد. اطلب من أحد المسؤولين منحك ما تحتاج إليه.",
  audit_title: "سجل التدقيق",
  audit_intro:
    "من فعل ماذا في هذا الحساب، ومتى، ومن أين: تسجيلات الدخول، والاستردادات، والتحصيلات، والإلغاءات، والفروقات المحلولة، وبوابات الدفع، وإعدادات الويب هوك ونقاطه، والمفاتيح، والسر الموقِّع، وإعادات الإرسال. القائمة نفسها:",
  audit_newest_first: "الأحدث أولاً",
  audit_when: "متى",
  audit_who: "مَن",
  audit_what: "ماذا",
  audit_from: "من أين",
  audit_api_key: "(مفتاح API)",
  audit_empty: "لم يُسجَّل شيء بعد.",
  audit_older: "الأقدم",
  pages: "الصفحات",
};

const CATALOGUES: Record<DashboardLanguage, Messages> = { en: EN, ar: AR };

export function messages(lang: DashboardLanguage): Messages {
  return CATALOGUES[lang];
}

/**
 * Text that must read left to right (an amount with its currency, an id, a URL) inside a
 * sentence: in Arabic it is wrapped in Unicode isolates (U+2066 … U+2069), so "86.000 KWD" never
 * shows as "KWD 86.000"; in English it is left as it is.
 */
export function isolate(lang: DashboardLanguage, text: string): string {
  return lang === "ar" ? `\u2066${text}\u2069` : text;
}

/** A message with its `{name}` placeholders filled in. */
export function format(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => String(values[name] ?? whole));
}

const isLanguage = (value: unknown): value is DashboardLanguage => value === "en" || value === "ar";

function cookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}

/**
 * The language of this request's page. A `?lang=` choice is also remembered (the reply gets the
 * cookie), so the next page — and the next visit — follows it.
 */
export function dashboardLanguage(request: FastifyRequest, reply?: FastifyReply): DashboardLanguage {
  const asked = Object(request.query).lang;
  if (isLanguage(asked)) {
    reply?.header(
      "set-cookie",
      `${LANGUAGE_COOKIE}=${asked}; Path=/dashboard; Max-Age=${YEAR_S}; SameSite=Lax; HttpOnly${request.protocol === "https" ? "; Secure" : ""}`,
    );
    return asked;
  }
  const remembered = cookie(request, LANGUAGE_COOKIE);
  if (isLanguage(remembered)) return remembered;
  const first = (request.headers["accept-language"] ?? "").split(",")[0]?.trim() ?? "";
  return /^ar\b/i.test(first) ? "ar" : "en";
}

/**
 * The same page in the other language: the current URL with `lang` switched. A page that answers
 * a POST (a refusal, a confirmation, a revealed secret, a new key) has no URL of its own to load
 * again — a GET of the form's address is not found, and posting again could act twice — so its
 * link goes to the page the form belongs to: the nearest GET route up the POST's path
 * (`/payments/:session_id/refund` → the payment), else the dashboard's home.
 */
export function otherLanguageHref(request: FastifyRequest, lang: DashboardLanguage): string {
  const other = lang === "ar" ? "en" : "ar";
  if (request.method === "GET" || request.method === "HEAD") {
    const url = new URL(request.url, "http://dashboard.invalid");
    url.searchParams.set("lang", other);
    return `${url.pathname}${url.search}`;
  }
  const params = Object(request.params) as Record<string, unknown>;
  const parts = (request.routeOptions.url ?? "").split("/");
  for (; parts.length > 2; parts.pop()) {
    const route = parts.join("/");
    if (!request.server.hasRoute({ method: "GET", url: route })) continue;
    const path = route.replace(/:(\w+)/g, (_, name: string) =>
      encodeURIComponent(typeof params[name] === "string" ? params[name] : ""),
    );
    return `${path}?lang=${other}`;
  }
  return `/dashboard?lang=${other}`;
}
