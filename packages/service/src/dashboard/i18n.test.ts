/**
 * The dashboard in English and Arabic over real HTTP: the user's choice (`?lang=`, remembered in
 * a cookie; else Accept-Language), right to left in Arabic, translated pages in Arabic words,
 * the service's own English refusals marked as English inside the Arabic layout; and the components escape
 * what they show (a hostile refund reason in the audit log stays text).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient, signedIn } from "../../../../test/support/dashboard.js";
import { api, apiKey, bearer, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { LANGUAGE_COOKIE, messages } from "./i18n.js";
import { label } from "./labels.js";

describe.each(STORES)("dashboard languages on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack.close();
  });

  it("follows ?lang=ar, remembers it, and lays Arabic out right to left", async () => {
    const client = await signedIn(stack, m.admin);
    const english = await client.get("/dashboard/audit");
    expect(english.text).toContain('<html lang="en" dir="ltr">');
    expect(english.text).toContain(">Audit log</h1>");
    const arabic = await client.get("/dashboard/audit?lang=ar");
    expect(arabic.text).toContain('<html lang="ar" dir="rtl">');
    expect(arabic.text).toContain(`<h1>${messages("ar").audit_title}</h1>`);
    expect(arabic.text).toContain("سجّل الدخول"); // the sign-in just recorded, in words
    expect(arabic.text).toContain(`>${messages("ar").nav_payments}</a>`);
    expect(client.cookies.get(LANGUAGE_COOKIE)).toBe("ar");
    // The next page follows the remembered choice; the switch leads back to English.
    const next = await client.get("/dashboard/audit");
    expect(next.text).toContain('<html lang="ar" dir="rtl">');
    expect(next.text).toMatch(/<a href="\/dashboard\/audit\?lang=en" lang="en"[^>]*>English<\/a>/);
    const back = await client.get("/dashboard/audit?lang=en");
    expect(back.text).toContain('<html lang="en" dir="ltr">');
    expect(client.cookies.get(LANGUAGE_COOKIE)).toBe("en");
  });

  it("the language link of a page answering a POST leads to the page the form belongs to, which loads", async () => {
    const client = await signedIn(stack, m.admin);
    const parent = await paidParent(stack, m, "sandbox", { amount: "9.000" });
    await client.get(`/dashboard/payments/${parent.session_id}`);
    const switchOf = (html: string) => /<p class="lang-switch"><a href="([^"]+)"/.exec(html)?.[1];
    const pages = [
      // A confirmation, a refusal of the same form, a revealed secret, a new key.
      [
        `/dashboard/payments/${parent.session_id}/refund`,
        { amount: "1" },
        `/dashboard/payments/${parent.session_id}`,
      ],
      [
        `/dashboard/payments/${parent.session_id}/refund`,
        { amount: "99" },
        `/dashboard/payments/${parent.session_id}`,
      ],
      ["/dashboard/webhooks/secret/reveal", {}, "/dashboard/webhooks"],
      ["/dashboard/keys", { kind: "private", label: "lang test" }, "/dashboard/keys"],
    ] as const;
    for (const [path, fields, page] of pages) {
      const answer = await client.post(path, fields);
      expect(switchOf(answer.text)).toBe(`${page}?lang=ar`);
      expect((await client.get(`${page}?lang=ar`)).status).toBe(200);
      await client.get(`${page}?lang=en`);
    }
    // A refused POST's error page (a stale form token) too.
    const stale = await client.post(`/dashboard/payments/${parent.session_id}/void`, {}, { csrf: "stale" });
    expect(stale.status).toBe(403);
    expect(switchOf(stale.text)).toBe(`/dashboard/payments/${parent.session_id}?lang=ar`);
  });

  it("the payments list in Arabic: its words, the states' Arabic labels, amounts left to right", async () => {
    const client = await signedIn(stack, m.admin);
    await paidParent(stack, m, "sandbox", { amount: "12.500" });
    const page = await client.get("/dashboard/payments?lang=ar");
    expect(page.text).toContain('<html lang="ar" dir="rtl">');
    expect(page.text).toContain("<h1>المدفوعات</h1>");
    expect(page.text).toMatch(/<strong>عدد المدفوعات: \d+<\/strong>/);
    expect(page.text).toContain(`data-state="paid">${label("paid", "ar")}</span>`);
    expect(page.text).toContain('<bdi dir="ltr">12.500 KWD</bdi>');
    // The totals read right to left with their amounts isolated left to right, not as one
    // left-to-right run whose parenthesis an Arabic reader meets first.
    expect(page.text).toMatch(/\u2066[\d.]+ KWD\u2069 \(مدفوعة أو مفوَّضة: \u2066[\d.]+\u2069\)/);
    await client.get("/dashboard/payments?lang=en");
  });

  it("a payment in Arabic: customer, totals, timeline and the refund (form, confirmation, refusal) in Arabic words", async () => {
    const client = await signedIn(stack, m.admin);
    const parent = await paidParent(stack, m, "sandbox", { amount: "12.500", customer_first_name: "ليلى" });
    const page = await client.get(`/dashboard/payments/${parent.session_id}?lang=ar`);
    expect(page.text).toContain('<html lang="ar" dir="rtl">');
    for (const text of [
      '<h2 id="customer-h">العميل</h2>',
      "<dd>ليلى</dd>",
      "التسلسل الزمني",
      "اختار العميل",
      '<bdi dir="ltr">12.500 KWD</bdi>',
    ])
      expect(page.text).toContain(text);
    expect(page.text).toContain('<h2 id="op-refund-h">استرداد</h2>');
    // The refund in Arabic: the confirmation says what will happen, in Arabic, amounts left to right.
    const asked = await client.post(`/dashboard/payments/${parent.session_id}/refund`, { amount: "2.5" });
    expect(asked.text).toContain("<h1>تأكيد الاسترداد</h1>");
    expect(asked.text).toContain("يعود \u20662.500 KWD\u2069 إلى بطاقة العميل أو محفظته");
    const refused = await client.post(`/dashboard/payments/${parent.session_id}/refund`, {
      amount: "2.5005",
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain("عملة KWD لها 3 خانات عشرية، والمبلغ \u20662.5005\u2069 فيه 4.");
    await client.get("/dashboard/payments?lang=en");
  });

  it("the endpoints pages in Arabic: the list, the form, and the service's English refusal marked as English on the summary and the field", async () => {
    const client = await signedIn(stack, m.admin);
    const list = await client.get("/dashboard/webhooks/endpoints?lang=ar");
    expect(list.text).toContain('<html lang="ar" dir="rtl">');
    expect(list.text).toContain("<h1>نقاط الويب هوك</h1>");
    expect(list.text).not.toContain('<div lang="en"');
    const form = await client.get("/dashboard/webhooks/endpoints/new");
    expect(form.text).toContain("<h1>إضافة نقطة ويب هوك</h1>");
    const refused = await client.post("/dashboard/webhooks/endpoints", {
      url: "ftp://shop.example/hooks",
      event_all: "on",
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toMatch(
      /<div class="notice error" role="alert" tabindex="-1" data-error-summary="true"><h2>هناك مشكلة<\/h2><ul lang="en" dir="ltr"><li>URL: /,
    );
    expect(refused.text).toMatch(/<p class="field-error" id="f-url-error" lang="en" dir="ltr">URL: /);
    // A malformed header line is the page's own refusal: in Arabic, not marked.
    const badHeader = await client.post("/dashboard/webhooks/endpoints", {
      url: "https://shop.example/hooks",
      event_all: "on",
      headers: "no colon here",
    });
    expect(badHeader.status).toBe(422);
    expect(badHeader.text).toMatch(/<p class="field-error" id="f-headers-error">[^<]*السطر/);
    await client.get("/dashboard/webhooks/endpoints?lang=en");
  });

  it("the new payment request form in Arabic: its words, a refused amount said in Arabic with the amount kept left to right, a hostile order number kept as text", async () => {
    const client = await signedIn(stack, m.admin);
    const form = await client.get("/dashboard/payments/new?lang=ar");
    expect(form.text).toContain('<html lang="ar" dir="rtl">');
    expect(form.text).toContain("<h1>طلب دفع جديد</h1>");
    expect(form.text).toContain("\u206610.500 KWD\u2069");
    const refused = await client.post("/dashboard/payments/new", {
      amount: "1.2345",
      currency_code: "KWD",
      pg_codes: m.pg.sandbox,
      order_no: '<script>alert("x")</script>',
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain("عملة KWD لها 3 خانات عشرية، والمبلغ \u20661.2345\u2069 فيه 4.");
    expect(refused.text).not.toContain("<script>alert");
    expect(refused.text).toContain("&lt;script>alert(&quot;x&quot;)&lt;/script>");
    await client.get("/dashboard/payments/new?lang=en");
  });

  it("error pages follow the language: a missing page, and and a refused form, both in Arabic", async () => {
    const client = await signedIn(stack, m.admin);
    const missing = await client.get("/dashboard/no-such-page?lang=ar");
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('<html lang="ar" dir="rtl">');
    expect(missing.text).toContain(`<h1>${messages("ar").not_found}</h1>`);
    expect(missing.text).toContain(messages("ar").no_page);
    const forged = await fetch(`${stack.url}/dashboard/keys`, {
      method: "POST",
      headers: {
        cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; "),
        "content-type": "application/x-www-form-urlencoded",
      },
      body: "kind=private",
    });
    expect(forged.status).toBe(403);
    const page = await forged.text();
    expect(page).toContain(`<h1>${messages("ar").refused}</h1>`);
    expect(page).toContain(`<p>${messages("ar").csrf_token}</p>`);
    await client.get("/dashboard/keys?lang=en");
  });

  it("the permission and signed-out pages are Arabic on an Arabic page, the permission and the user left to right", async () => {
    const viewer = { username: `viewer${Date.now()}`, password: "viewer-password-1" };
    const added = await api(stack, "POST", `/v1/admin/merchants/${m.id}/users`, {
      auth: bearer,
      body: { ...viewer, email: "viewer@example.com", permissions: ["payment.view"] },
    });
    expect(added.status).toBe(201);
    const client = await signedIn(stack, viewer);
    const refused = await client.get("/dashboard/keys?lang=ar");
    expect(refused.status).toBe(403);
    expect(refused.text).toContain(`<h1>${messages("ar").permission_needed}</h1>`);
    expect(refused.text).toContain(
      `<p>يتطلب هذا الصلاحية \u2066webhooks.manage\u2069، وهي ليست لدى مستخدمك (\u2066${viewer.username}\u2069).`,
    );
    expect(refused.text).not.toContain("This needs the");
    expect(refused.text).not.toContain('<p lang="en"');
    // A POST after the session ended, from a browser that chose Arabic.
    const gone = new DashboardClient(stack);
    gone.cookies.set(LANGUAGE_COOKIE, "ar");
    const out = await gone.post("/dashboard/keys", { kind: "private" }, { csrf: "anything" });
    expect(out.status).toBe(401);
    expect(out.text).toContain(`<h1>${messages("ar").signed_out}</h1>`);
    expect(out.text).toContain(`<p>${messages("ar").signed_out_body}</p>`);
    expect(out.text).not.toContain("Your session has ended");
  });

  it("the endpoints list names the seed's plugins in words; the timeline isolates a refund's reason", async () => {
    const auth = apiKey(m.privateKey);
    await api(stack, "PUT", "/v1/webhooks/plugins/e_commerce", {
      auth,
      body: { webhook_url: "https://shop.example/plugin", enabled: true },
    });
    const client = await signedIn(stack, m.admin);
    const list = await client.get("/dashboard/webhooks/endpoints?lang=en");
    expect(list.text).toContain("<bdi>E-commerce plugin</bdi>");
    expect(list.text).not.toContain("Plugin e commerce");
    const arabic = await client.get("/dashboard/webhooks/endpoints?lang=ar");
    expect(arabic.text).toContain(`<bdi>إضافة ${label("e_commerce", "ar")}</bdi>`);
    // A reason in Arabic on the English timeline, and one with a closing bracket on the Arabic one.
    const parent = await paidParent(stack, m, "sandbox", { amount: "6.000" });
    await client.get(`/dashboard/payments/${parent.session_id}?lang=en`);
    await client.post(`/dashboard/payments/${parent.session_id}/refund`, {
      amount: "1.000",
      confirm: "yes",
      reason: "طلب العميل (تذكرة 42)",
    });
    const page = await client.get(`/dashboard/payments/${parent.session_id}`);
    expect(page.text).toContain(" Reason: <bdi>طلب العميل (تذكرة 42)</bdi>");
    const ar = await client.get(`/dashboard/payments/${parent.session_id}?lang=ar`);
    expect(ar.text).toContain(" السبب: <bdi>طلب العميل (تذكرة 42)</bdi>");
    await client.get("/dashboard/overview?lang=en");
  });

  it("uses Accept-Language when nothing was chosen; an explicit choice wins", async () => {
    const client = await signedIn(stack, m.admin);
    client.cookies.delete(LANGUAGE_COOKIE);
    const res = await fetch(`${stack.url}/dashboard/audit`, {
      headers: { cookie: `svc_dash=${client.cookies.get("svc_dash")}`, "accept-language": "ar-KW,ar;q=0.9" },
    });
    expect(await res.text()).toContain('<html lang="ar" dir="rtl">');
    const chosen = await fetch(`${stack.url}/dashboard/audit?lang=en`, {
      headers: { cookie: `svc_dash=${client.cookies.get("svc_dash")}`, "accept-language": "ar" },
    });
    expect(await chosen.text()).toContain('<html lang="en" dir="ltr">');
  });

  it("escapes what it shows: a hostile refund reason in the audit log is text, not markup", async () => {
    const hostile = `<img src=x onerror="alert(1)">`;
    const client = await signedIn(stack, m.admin);
    const parent = await paidParent(stack, m, "sandbox", { amount: "10.000" });
    await client.get(`/dashboard/payments/${parent.session_id}`);
    await client.post(`/dashboard/payments/${parent.session_id}/refund`, {
      amount: "1.000",
      confirm: "yes",
      reason: hostile,
    });
    await expect
      .poll(async () => (await client.get("/dashboard/audit")).text, { timeout: 5_000 })
      .toContain("&lt;img src=x onerror=&quot;alert(1)&quot;>");
    const page = await client.get("/dashboard/audit");
    expect(page.text).not.toContain(hostile);
  });
});

describe("the sign-in page in Arabic", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack("pglite");
  });
  afterAll(async () => {
    await stack.close();
  });

  it("is Arabic, right to left, keeps its sign-in cookie beside the language cookie, and says why in Arabic", async () => {
    const client = new DashboardClient(stack);
    const page = await client.get("/dashboard/sign-in?lang=ar");
    expect(page.text).toContain('<html lang="ar" dir="rtl">');
    expect(page.text).toContain(`<label for="f-username">${messages("ar").username}</label>`);
    expect(client.cookies.get(LANGUAGE_COOKIE)).toBe("ar");
    expect(client.cookies.size).toBe(2); // the language and the pre-session (login CSRF) cookie
    const refused = await client.signIn("nobody-here", "wrong-password");
    expect(refused.status).toBe(401);
    expect(refused.text).toContain(messages("ar").sign_in_wrong);
  });
});
