/**
 * The view's behaviour in Chromium: filtering, preload, minified layout, appearance, theme,
 * right-to-left Arabic, accessibility (axe, keyboard only), strict CSP, error reporting switch,
 * script-tag and delegate use, the national-debit popup rule.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey } from "../support/merchant.js";
import { type Browser, launchBrowser } from "../support/browser.js";
import { axeViolations, CheckoutEnv, callback, choose, option, styleAudit } from "./support/checkout-env.js";

let env: CheckoutEnv;
let arabic: Browser;
beforeAll(async () => {
  env = await CheckoutEnv.start();
  arabic = await launchBrowser({ locale: "ar-KW" });
});
afterAll(async () => {
  await arabic?.close();
  await env?.close();
});

const forms = (page: import("playwright-core").Page) =>
  page
    .locator("[data-form-of-payment]")
    .evaluateAll((els) => els.map((e) => e.getAttribute("data-form-of-payment")));
const host = (page: import("playwright-core").Page) => page.locator(".svc-checkout");

describe("options", () => {
  it("shows the transaction's forms, filtered by formsOfPayment", async () => {
    const all = await env.mount();
    expect((await forms(all.page)).sort()).toEqual(["svc_pg", "wallet_a_pay", "wallet_b_pay"]);
    await all.page.close();
    const some = await env.mount({ formsOfPayment: ["walletBPay", "svcPG"] });
    expect((await forms(some.page)).sort()).toEqual(["svc_pg", "wallet_b_pay"]);
    expect(await host(some.page).getAttribute("data-layout")).toBe("full");
    await some.page.close();
  });

  it("setupPreload: zero details requests; without it, one", async () => {
    const isDetails = (url: string, id: string) => url.endsWith(`/v1/checkout/${id}`);
    const pre = await env.mount();
    expect(pre.requests.filter((r) => isDetails(r.url(), pre.tx.session_id))).toHaveLength(0);
    await pre.page.close();
    const fetched = await env.mount({ preload: false });
    expect(fetched.requests.filter((r) => isDetails(r.url(), fetched.tx.session_id))).toHaveLength(1);
    expect((await forms(fetched.page)).length).toBe(3);
    await fetched.page.close();
  });

  it("a single wallet option is the minified view", async () => {
    const { page } = await env.mount({ formsOfPayment: ["walletBPay"] });
    expect(await host(page).getAttribute("data-layout")).toBe("minified");
    expect(await page.locator("h2").count()).toBe(0);
    await option(page, "wallet_b_pay").locator("input[name=mobile_number]").waitFor();
    await page.close();
  });
});

describe("appearance and theme", () => {
  const background = (page: import("playwright-core").Page) =>
    page.locator(".svc-checkout .r").evaluate((el) => getComputedStyle(el).backgroundColor);

  it("light and dark follow prefers-color-scheme at init", async () => {
    const light = await env.mount({ colorScheme: "light" });
    expect(await host(light.page).getAttribute("data-theme")).toBe("light");
    expect(await background(light.page)).toBe("rgb(255, 255, 255)");
    await light.page.close();
    const dark = await env.mount({ colorScheme: "dark" });
    expect(await host(dark.page).getAttribute("data-theme")).toBe("dark");
    expect(await background(dark.page)).toBe("rgb(22, 22, 26)");
    await dark.page.close();
  });

  it("theme properties are applied (computed styles), single colours and {light, dark}", async () => {
    const themeJs = `new SvcCheckout.CheckoutTheme({
      backgroundColor: { light: "#fafaf0", dark: "#101418" },
      margins: { top: 24, left: 8, bottom: 20, right: 4 },
      mainTitle: new SvcCheckout.LabelComponent({ color: "#aa0000", fontFamily: "Georgia" }),
      button: new SvcCheckout.ButtonComponent({ enabledBackgroundColor: "#0a7d38", enabledTitleColor: "#ffffff", fontFamily: "Verdana" }),
      inputTextField: new SvcCheckout.TextFieldComponent({ backgroundColor: "#ffffee", text: new SvcCheckout.LabelComponent({ color: "#111111" }) }),
      feesSubtitle: new SvcCheckout.LabelComponent({ color: "#333366" }),
      showPaymentDetails: false })`;
    for (const scheme of ["light", "dark"] as const) {
      const { page } = await env.mount({ themeJs, colorScheme: scheme });
      await choose(page, "wallet_b_pay");
      const styles = await page.evaluate(() => {
        const root = document.querySelector(".svc-checkout")!.shadowRoot!;
        const cs = (sel: string) => getComputedStyle(root.querySelector(sel)!);
        return {
          bg: cs(".r").backgroundColor,
          padding: [cs(".r").paddingTop, cs(".r").paddingLeft, cs(".r").paddingBottom, cs(".r").paddingRight],
          title: [cs(".mt").color, cs(".mt").fontFamily],
          button: [cs("button.b").backgroundColor, cs("button.b").color, cs("button.b").fontFamily],
          input: [cs("input[name=mobile_number]").backgroundColor, cs("input[name=mobile_number]").color],
          details: root.querySelectorAll("dl").length,
        };
      });
      expect(styles).toEqual({
        bg: scheme === "light" ? "rgb(250, 250, 240)" : "rgb(16, 20, 24)",
        padding: ["24px", "8px", "20px", "4px"],
        title: ["rgb(170, 0, 0)", "Georgia"],
        button: ["rgb(10, 125, 56)", "rgb(255, 255, 255)", "Verdana"],
        input: ["rgb(255, 255, 238)", "rgb(17, 17, 17)"],
        details: 0,
      });
      expect(await styleAudit(page)).toEqual({ inlineStyles: 0, violations: [] });
      await page.close();
    }
  });
});

describe("fees", () => {
  it("a zero fee is not shown; a real fee is, with the fee theme", async () => {
    const { page, tx } = await env.mount();
    expect(await page.locator(".svc-checkout .f").count()).toBe(0);
    await page.close();
    const preload = tx.sdk_setup_preload_payload as {
      payment_methods: { fee: string; fee_description: string }[];
    };
    for (const m of preload.payment_methods) Object.assign(m, { fee: "0.250", fee_description: "0.250 KWD" });
    const feeTheme = `new SvcCheckout.CheckoutTheme({ feesSubtitle: new SvcCheckout.LabelComponent({ color: "#333366" }) })`;
    const fresh = await env.transaction();
    const withFee = await env.mount({
      existing: { ...fresh, sdk_setup_preload_payload: { ...preload, session_id: fresh.session_id } },
      themeJs: feeTheme,
    });
    const fee = withFee.page.locator('.svc-checkout .op[data-form-of-payment="svc_pg"] .f');
    expect(await fee.textContent()).toBe("Fee:0.250 KWD");
    expect(await fee.locator(".fs").evaluate((el) => getComputedStyle(el).color)).toBe("rgb(51, 51, 102)");
    await withFee.page.close();
  });
});

describe("languages", () => {
  it("Arabic browser: right-to-left, Arabic texts, backend texts in the transaction's language, digits left-to-right", async () => {
    const { page } = await env.mount({ browser: arabic, tx: { language: "ar" } });
    expect(await host(page).getAttribute("dir")).toBe("rtl");
    expect(await host(page).getAttribute("lang")).toBe("ar");
    await choose(page, "wallet_b_pay");
    const wallet = option(page, "wallet_b_pay");
    await wallet.getByRole("button", { name: "أرسل الرمز" }).waitFor();
    const input = wallet.locator("input[name=mobile_number]");
    expect(await input.getAttribute("dir")).toBe("ltr");
    expect(await input.evaluate((el) => getComputedStyle(el).direction)).toBe("ltr");
    expect(await wallet.locator(".t").evaluate((el) => getComputedStyle(el).direction)).toBe("rtl");
    expect(await wallet.locator(".t").textContent()).toBe("محفظة الجوال");
    await page.close();
  });

  it("Arabic browser, English transaction: the card page opens in Arabic, the SDK's language", async () => {
    const { page } = await env.mount({ browser: arabic, tx: { language: "en" } });
    await choose(page, "svc_pg");
    const opened = page.waitForEvent("popup");
    await option(page, "svc_pg").locator("button.b").click();
    const popup = await opened;
    await popup.waitForURL(/\/pay\/sess_/);
    expect(new URL(popup.url()).searchParams.get("lang")).toBe("ar");
    expect(await popup.locator("html").getAttribute("dir")).toBe("rtl");
    expect(await popup.locator("h1").textContent()).toBe("الدفع بالبطاقة");
    await popup.close();
    await page.close();
  });

  it("English browser: left-to-right English texts", async () => {
    const { page } = await env.mount();
    expect(await host(page).getAttribute("dir")).toBe("ltr");
    await choose(page, "wallet_b_pay");
    await option(page, "wallet_b_pay").getByRole("button", { name: "Send code" }).waitFor();
    await page.close();
  });
});

describe("accessibility and CSP", () => {
  const cases = [
    { name: "English light", colorScheme: "light" as const },
    { name: "English dark", colorScheme: "dark" as const },
    { name: "Arabic light", colorScheme: "light" as const, ar: true },
    { name: "Arabic dark", colorScheme: "dark" as const, ar: true },
  ];
  for (const c of cases) {
    it(`axe: no violations, no inline styles, no CSP violations — ${c.name}`, async () => {
      const { page, errors } = await env.mount({
        colorScheme: c.colorScheme,
        wallet: "nocards",
        ...(c.ar ? { browser: arabic, tx: { language: "ar" } } : {}),
      });
      await choose(page, "wallet_a_pay");
      await option(page, "wallet_a_pay").getByRole("button").waitFor();
      expect(await axeViolations(page)).toEqual([]);
      // the OTP step too
      await choose(page, "wallet_b_pay");
      await option(page, "wallet_b_pay").locator("input[name=mobile_number]").fill("96551234567");
      await option(page, "wallet_b_pay").locator("form button").first().click();
      await option(page, "wallet_b_pay").locator("input[name=otp]").waitFor();
      expect(await axeViolations(page)).toEqual([]);
      expect(await styleAudit(page)).toEqual({ inlineStyles: 0, violations: [] });
      expect(errors).toEqual([]);
      await page.close();
    });
  }

  it("axe sees inside the view's shadow root (a label removed there is reported)", async () => {
    const { page } = await env.mount();
    await choose(page, "wallet_b_pay");
    await page.evaluate(() => {
      const root = document.querySelector(".svc-checkout")!.shadowRoot!;
      for (const label of root.querySelectorAll("form label")) label.remove();
    });
    expect((await axeViolations(page)).map((v) => v.id)).toContain("label");
    await page.close();
  });

  it("the whole walletBPay path works by keyboard alone", async () => {
    const { page, tx } = await env.mount();
    const focusedName = () =>
      page.evaluate(() => {
        let el: Element | null = document.activeElement;
        while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
        return el?.getAttribute("name") ?? el?.tagName ?? null;
      });
    // Tab to the option list, arrow keys to the mobile wallet (a radio group), Tab into its form.
    for (let i = 0; i < 10 && (await focusedName()) !== "method"; i++) await page.keyboard.press("Tab");
    expect(await focusedName()).toBe("method");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Tab");
    expect(await focusedName()).toBe("mobile_number");
    await page.keyboard.type("96551234567");
    await page.keyboard.press("Enter");
    await expect.poll(focusedName).toBe("otp");
    await page.keyboard.type("123456");
    await page.keyboard.press("Enter");
    const [name, data] = await callback(page);
    expect([name, data.status, data.session_id]).toEqual(["success", "success", tx.session_id]);
    await page.close();
  });
});

describe("error reporting", () => {
  async function errorInView(wallet: "walletBPay") {
    const mounted = await env.mount({ formsOfPayment: [wallet] });
    // Paid elsewhere meanwhile: the view's payment call is refused → errorCallback.
    await api(env.stack, "POST", `/v1/checkout/${mounted.tx.session_id}/payments`, {
      auth: apiKey(env.merchant.publicKey),
      body: { form_of_payment: "wallet_a_pay", pg_code: env.merchant.pg.sandbox, payment_token: "t" },
    });
    // a single wallet: the minified view, the form shown without a choice
    await option(mounted.page, "wallet_b_pay").locator("input[name=mobile_number]").fill("96551234567");
    await option(mounted.page, "wallet_b_pay").getByRole("button", { name: "Send code" }).click();
    expect((await callback(mounted.page))[0]).toBe("error");
    return mounted;
  }
  const reports = () => env.stack.service.app.services.sdk.list(env.merchant.id);

  it("is_enabled false: the config is read, nothing is sent and the reporter is never fetched", async () => {
    await env.stack.service.app.services.sdk.setErrorReporting(env.merchant.id, false);
    try {
      const { page, requests } = await errorInView("walletBPay");
      await expect.poll(() => requests.some((r) => r.url().endsWith("/v1/sdk/config"))).toBe(true);
      await page.waitForTimeout(300);
      expect(requests.filter((r) => r.url().includes("/v1/sdk/errors"))).toHaveLength(0);
      expect(requests.filter((r) => r.url().includes("reporter"))).toHaveLength(0);
      await page.close();
    } finally {
      await env.stack.service.app.services.sdk.setErrorReporting(env.merchant.id, true);
    }
  });

  it("is_enabled true: the reporter chunk loads (under the strict CSP) and the report is stored", async () => {
    const before = (await reports()).length;
    const { page, requests, tx } = await errorInView("walletBPay");
    await expect.poll(async () => (await reports()).length).toBe(before + 1);
    expect(requests.filter((r) => r.url().endsWith("/sdk/svc-checkout-reporter.js"))).toHaveLength(1);
    expect((await reports())[0]).toMatchObject({
      session_id: tx.session_id,
      form_of_payment: "wallet_b_pay",
    });
    expect((await styleAudit(page)).violations).toEqual([]);
    await page.close();
  });
});

describe("integration styles", () => {
  it("new Checkout({delegate}) with paymentView() appended anywhere", async () => {
    const { page, tx } = await env.mount({ delegateObject: true, wallet: "supported" });
    await choose(page, "wallet_a_pay");
    await option(page, "wallet_a_pay").getByRole("button", { name: "Pay with device wallet" }).click();
    expect(await callback(page)).toMatchObject(["success", { session_id: tx.session_id }]);
    await page.close();
  });

  it("option errors are thrown in the page with clear messages", async () => {
    const { page } = await env.mount();
    const messages = await page.evaluate(() => {
      const { Checkout } = (window as unknown as { SvcCheckout: { Checkout: new (o: unknown) => unknown } })
        .SvcCheckout;
      const delegate = { successCallback() {}, cancelCallback() {}, errorCallback() {} };
      const attempt = (o: Record<string, unknown>) => {
        try {
          new Checkout({ merchantId: "shop.example.com", apiKey: "pk_x", sessionId: "s", delegate, ...o });
          return "no error";
        } catch (e) {
          return `${(e as { code: string }).code}: ${(e as Error).message}`;
        }
      };
      return [
        attempt({ merchantId: "https://shop.example.com" }),
        attempt({ apiKey: "sk_secret" }),
        attempt({ delegate: { successCallback() {} } }),
      ];
    });
    expect(messages).toEqual([
      'invalid_merchant_id: merchantId is the root domain without a scheme: give "shop.example.com", not "https://shop.example.com".',
      "private_key: apiKey must be your public key (pk_…). A private key (sk_…) must never be used in a browser or an app: revoke it if it was published.",
      "invalid_delegate: delegate must implement errorCallback, cancelCallback.",
    ]);
    await page.close();
  });

  it("the popup rule: other gateways show the whole data, no response shows the default; focus goes in and back", async () => {
    const { page } = await env.mount();
    const show = (data: unknown) =>
      page.evaluate((d) => {
        const sdk = (
          window as unknown as { SvcCheckout: { Checkout: { cancelPopupHandler(): (d: unknown) => void } } }
        ).SvcCheckout;
        (document.querySelector("h1") as HTMLElement).tabIndex = -1;
        (document.querySelector("h1") as HTMLElement).focus();
        sdk.Checkout.cancelPopupHandler()(d);
      }, data);
    const other = {
      status: "canceled",
      message: "declined",
      form_of_payment: "svc_pg",
      payment_gateway_info: { pg_code: "x", pg_name: "sandbox", pg_response: { result: "DECLINED" } },
    };
    await show(other);
    const dialog = page.locator("dialog[open]");
    // The popup's code is its own chunk, fetched on first use: wait for the dialog's rows.
    await dialog.locator("dt").first().waitFor();
    // the whole data as receipt rows, translated labels, no JSON
    expect(await dialog.locator("dt").allTextContents()).toEqual([
      "Status",
      "Message",
      "Payment method",
      "Gateway code",
      "Gateway",
      "Result",
    ]);
    expect(await dialog.locator("dd").allTextContents()).toEqual([
      "canceled",
      "declined",
      "svc_pg",
      "x",
      "sandbox",
      "DECLINED",
    ]);
    const active = () =>
      page.evaluate(() => {
        const a = document.activeElement;
        return a?.shadowRoot?.activeElement?.textContent ?? a?.tagName;
      });
    expect(await active()).toBe("Close");
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => page.locator("dialog").count()).toBe(0);
    expect(await active()).toBe("H1");
    await show({ status: "canceled", message: "m", form_of_payment: "svc_pg" });
    expect(await page.locator("dialog[open] p").textContent()).toBe("Payment was cancelled.");
    await page.close();
  });
});
