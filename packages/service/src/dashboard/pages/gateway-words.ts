/**
 * The Gateways pages' words in English and Arabic, and the gateway kinds in words. The credential
 * fields' labels are here too: the pages name them, never show them.
 */
import type { GatewayKind } from "@svc/protocol";
import type { DashboardLanguage } from "../i18n.js";

export const GATEWAY_WORDS = {
  en: {
    title_list: "Gateways",
    title_new: "Add a gateway",
    title_one: "Gateway {name}",
    add: "Add a gateway",
    intro:
      "Where your payments go: each gateway setting has a code (pg_code) your checkout names, a kind, and for a real gateway your credentials there. Credentials are stored encrypted and never shown again: only whether each is set, and the last characters of identifiers and keys.",
    caption: "Your gateway settings",
    gateway: "Gateway",
    kind: "Kind",
    currencies: "Currencies",
    operation: "Payment operation",
    credentials: "Credentials",
    api_host: "API host",
    changed: "Last changed",
    none: "No gateways yet. Add one so your checkout has somewhere to send payments.",
    no_credentials: "None (a test gateway of svc)",
    default_host: "Default",
    knet_test_host: "KNET test host",
    cred_set: "saved",
    all_gateways: "All gateways",
    // The form
    name: "Name (optional)",
    name_hint: "How the dashboard calls it, e.g. “KNET main store”. Empty: its code.",
    pg_code: "Gateway code (pg_code)",
    pg_code_hint:
      "What your checkout requests name: lowercase letters, digits, - and _ (e.g. knet-main). It cannot be changed later.",
    pg_code_fixed: "Gateway code (pg_code)",
    kind_label: "Kind of gateway",
    kind_hint: "Only the fields of the kind you choose are used.",
    part_knet: "KNET",
    part_stripe: "Stripe",
    part_sandbox: "Test gateways of svc (Sandbox, Sandbox (queued), National debit)",
    tranportal_id: "Tranportal ID",
    tranportal_password: "Tranportal password",
    resource_key: "Terminal resource key",
    secret_key: "Secret key",
    webhook_secret: "Webhook signing secret",
    tranportal_id_hint: "From KNET's merchant portal.",
    tranportal_password_hint: "From KNET's merchant portal (at most 15 characters).",
    resource_key_hint: "The terminal resource key KNET gave you: exactly 16 characters.",
    secret_key_hint:
      "sk_test_…, sk_live_… or a restricted key rk_… (Stripe Dashboard, Developers, API keys).",
    webhook_secret_hint: "whsec_… of the webhook endpoint you created on Stripe for svc.",
    saved_hint: "Saved: {hint}. Leave empty to keep it.",
    saved_set: "Saved (not shown). Leave empty to keep it.",
    retype: "Credentials typed before the form was refused are not kept or shown again: type them again.",
    knet_rules: "KNET takes Kuwaiti dinars (KWD) and purchases only.",
    environment: "KNET environment",
    env_production: "Production (www.kpay.com.kw)",
    env_test: "KNET's test host (kpaytest.com.kw): test cards, no real money",
    currencies_label: "Currencies",
    currencies_hint: "ISO codes separated by commas or spaces, e.g. KWD, USD.",
    operation_purchase: "Purchase (the money is taken at once)",
    operation_authorize: "Authorization (captured or voided later)",
    advanced: "Advanced",
    api_base_url: "API host",
    api_base_url_hint_knet:
      "Only to send KNET's calls somewhere else than the environment above (a stand-in for tests). https://, or http:// to this machine's loopback. Empty: the environment's host.",
    api_base_url_hint_stripe:
      "Only to send Stripe's calls somewhere else than https://api.stripe.com (a stand-in for tests). https://, or http:// to this machine's loopback. Empty: Stripe's own.",
    create: "Add gateway",
    save: "Save gateway",
    facts: "This gateway",
    created: "Added",
    // Messages
    no_key_title: "Credentials cannot be saved",
    no_key:
      "svc has no secrets key, so it cannot store gateway credentials. Set SVC_SECRETS_KEY to 32 random bytes in base64 (“svc secrets generate-key” prints one) and restart the service. Nothing was saved.",
    no_key_ahead:
      "svc has no secrets key (SVC_SECRETS_KEY), so KNET and Stripe credentials cannot be saved until one is set and the service restarted. Test gateways and names can still be changed.",
    err_kind: "Kind of gateway: choose one from the list.",
    err_currencies: "Currencies: enter at least one three-letter code, e.g. KWD.",
    added: "Gateway {code} added. Name it in your checkout requests to use it.",
    saved: "Gateway {code} saved. It applies from the next payment or operation.",
    not_found: "There is no such gateway setting.",
  },
  ar: {
    title_list: "بوابات الدفع",
    title_new: "إضافة بوابة",
    title_one: "البوابة {name}",
    add: "إضافة بوابة",
    intro:
      "إلى أين تذهب مدفوعاتك: لكل إعداد بوابة رمز (pg_code) تذكره طلبات الدفع، ونوع، ولبوابة حقيقية بيانات اعتمادك لديها. تُخزَّن بيانات الاعتماد مشفّرة ولا تُعرض مرة أخرى: يظهر فقط أنها محفوظة، وآخر أحرف المعرّفات والمفاتيح.",
    caption: "إعدادات بواباتك",
    gateway: "البوابة",
    kind: "النوع",
    currencies: "العملات",
    operation: "عملية الدفع",
    credentials: "بيانات الاعتماد",
    api_host: "خادم الواجهة",
    changed: "آخر تغيير",
    none: "لا بوابات بعد. أضف واحدة ليكون لصفحة الدفع مكان ترسل إليه المدفوعات.",
    no_credentials: "لا شيء (بوابة تجريبية من svc)",
    default_host: "الافتراضي",
    knet_test_host: "خادم كي نت التجريبي",
    cred_set: "محفوظ",
    all_gateways: "كل البوابات",
    name: "الاسم (اختياري)",
    name_hint: "ما تسمّيها به لوحة التحكم، مثل «كي نت المتجر الرئيسي». فارغ: رمزها.",
    pg_code: "رمز البوابة (pg_code)",
    pg_code_hint:
      "ما تذكره طلبات الدفع: أحرف لاتينية صغيرة وأرقام والرمزان «-» و«_» (مثل \u2066knet-main\u2069). لا يمكن تغييره لاحقًا.",
    pg_code_fixed: "رمز البوابة (pg_code)",
    kind_label: "نوع البوابة",
    kind_hint: "لا تُستخدم إلا حقول النوع الذي تختاره.",
    part_knet: "كي نت",
    part_stripe: "سترايب",
    part_sandbox: "بوابات svc التجريبية (تجريبية، تجريبية مع انتظار، خصم وطني)",
    tranportal_id: "معرّف Tranportal",
    tranportal_password: "كلمة مرور Tranportal",
    resource_key: "مفتاح مورد الطرفية",
    secret_key: "المفتاح السري",
    webhook_secret: "سر توقيع الويب هوك",
    tranportal_id_hint: "من بوابة التجار في كي نت.",
    tranportal_password_hint: "من بوابة التجار في كي نت (15 حرفًا على الأكثر).",
    resource_key_hint: "مفتاح مورد الطرفية الذي أعطتك إياه كي نت: 16 حرفًا بالضبط.",
    secret_key_hint:
      "\u2066sk_test_…\u2069 أو \u2066sk_live_…\u2069 أو مفتاح مقيّد \u2066rk_…\u2069 (لوحة تحكم سترايب، المطوّرون، مفاتيح API).",
    webhook_secret_hint: "سر التوقيع \u2066whsec_…\u2069 لنقطة الويب هوك التي أنشأتها في سترايب من أجل svc.",
    saved_hint: "محفوظ: {hint}. اتركه فارغًا لإبقائه.",
    saved_set: "محفوظ (لا يُعرض). اتركه فارغًا لإبقائه.",
    retype: "لا تُحفظ بيانات الاعتماد التي كُتبت قبل رفض النموذج ولا تُعرض من جديد: اكتبها مرة أخرى.",
    knet_rules: "تقبل كي نت الدينار الكويتي (KWD) وعمليات الشراء فقط.",
    environment: "بيئة كي نت",
    env_production: "الإنتاج (www.kpay.com.kw)",
    env_test: "خادم كي نت التجريبي (kpaytest.com.kw): بطاقات اختبار، بلا أموال حقيقية",
    currencies_label: "العملات",
    currencies_hint: "رموز ISO تفصل بينها فواصل أو مسافات، مثل \u2066KWD, USD\u2069.",
    operation_purchase: "شراء (يُؤخذ المبلغ فورًا)",
    operation_authorize: "تفويض (يُحصَّل أو يُلغى لاحقًا)",
    advanced: "خيارات متقدمة",
    api_base_url: "خادم الواجهة",
    api_base_url_hint_knet:
      "فقط لإرسال طلبات كي نت إلى مكان غير البيئة أعلاه (بديل للاختبار). https://، أو http:// إلى عنوان الاسترجاع في هذا الجهاز. فارغ: خادم البيئة.",
    api_base_url_hint_stripe:
      "فقط لإرسال طلبات سترايب إلى مكان غير https://api.stripe.com (بديل للاختبار). https://، أو http:// إلى عنوان الاسترجاع في هذا الجهاز. فارغ: خادم سترايب.",
    create: "إضافة البوابة",
    save: "حفظ البوابة",
    facts: "هذه البوابة",
    created: "أُضيفت",
    no_key_title: "تعذّر حفظ بيانات الاعتماد",
    no_key:
      "لا يملك svc مفتاح أسرار، لذا لا يستطيع تخزين بيانات اعتماد البوابات. اضبط SVC_SECRETS_KEY على 32 بايتًا عشوائيًا بترميز base64 (يطبع الأمر «svc secrets generate-key» واحدًا) وأعد تشغيل الخدمة. لم يُحفظ شيء.",
    no_key_ahead:
      "لا يملك svc مفتاح أسرار (SVC_SECRETS_KEY)، لذا لا يمكن حفظ بيانات اعتماد كي نت وسترايب حتى يُضبط ويُعاد تشغيل الخدمة. لا يزال بالإمكان تغيير البوابات التجريبية والأسماء.",
    err_kind: "نوع البوابة: اختر نوعًا من القائمة.",
    err_currencies: "العملات: أدخل رمزًا واحدًا على الأقل من ثلاثة أحرف، مثل KWD.",
    added: "أُضيفت البوابة {code}. اذكرها في طلبات الدفع لاستخدامها.",
    saved: "حُفظت البوابة {code}. تُطبَّق من الدفعة أو العملية التالية.",
    not_found: "لا يوجد إعداد بوابة كهذا.",
  },
} satisfies Record<DashboardLanguage, Record<string, string>>;

export type GatewayWords = (typeof GATEWAY_WORDS)["en"];

/** Each gateway kind in words. */
export const KIND_NAMES: Record<DashboardLanguage, Record<GatewayKind, string>> = {
  en: {
    knet: "KNET",
    stripe: "Stripe",
    sandbox: "Sandbox",
    "sandbox-queued": "Sandbox (queued)",
    ndebit: "National debit (sandbox)",
  },
  ar: {
    knet: "كي نت",
    stripe: "سترايب",
    sandbox: "تجريبية",
    "sandbox-queued": "تجريبية (مع انتظار)",
    ndebit: "خصم وطني (تجريبية)",
  },
};

/** The order the kinds are offered in: the real gateways first. */
export const KIND_ORDER: GatewayKind[] = ["knet", "stripe", "sandbox", "sandbox-queued", "ndebit"];

/**
 * The credential fields of each real gateway, as the form shows them. Only KNET's tranportal id
 * is an identifier a person reads off a portal, so only it is a plain text input.
 */
export const CREDENTIAL_INPUTS = {
  knet: [
    { name: "tranportal_id", secret: false },
    { name: "tranportal_password", secret: true },
    { name: "resource_key", secret: true },
  ],
  stripe: [
    { name: "secret_key", secret: true },
    { name: "webhook_secret", secret: true },
  ],
} as const satisfies Partial<Record<GatewayKind, readonly { name: string; secret: boolean }[]>>;

export type RealKind = keyof typeof CREDENTIAL_INPUTS;
export type CredentialName = (typeof CREDENTIAL_INPUTS)[RealKind][number]["name"];

export const isRealKind = (kind: string): kind is RealKind => kind === "knet" || kind === "stripe";

/** The service's field names in English, for its English messages ("Resource key: must be …"). */
export const FIELD_LABELS_EN: Record<string, string> = {
  pg_code: "Gateway code",
  name: "Name",
  kind: "Kind",
  currencies: "Currencies",
  operation: "Payment operation",
  api_base_url: "API host",
  environment: "KNET environment",
  notification_secret: "Kind",
  credentials: "Credentials",
  "credentials.tranportal_id": "Tranportal ID",
  "credentials.tranportal_password": "Tranportal password",
  "credentials.resource_key": "Terminal resource key",
  "credentials.secret_key": "Secret key",
  "credentials.webhook_secret": "Webhook signing secret",
};
