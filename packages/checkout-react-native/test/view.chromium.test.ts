/**
 * The React Native view, rendered by react-native-web in real headless Chromium, against the
 * real service and sandbox gateway on loopback: the forms of payment and their flows, each
 * callback, English/Arabic × light/dark, the minified view, the wallet bridge's checks, the card
 * page opened "in the browser" and its result read back, the ends the browser view has too (a
 * session that cannot list options, the poll through an outage, the declined screen's message,
 * every error reported), the component's option checks, and axe on the rendered tree.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Browser, launchBrowser } from "../../../test/support/browser.js";
import {
  api,
  apiKey,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../test/support/stack.js";

const here = import.meta.dirname;
const AXE = readFileSync(path.resolve(here, "../../../node_modules/axe-core/axe.min.js"), "utf8");

let stack: Stack;
let merchant: TestMerchant;
let browser: Browser;
let host: http.Server;
let hostUrl: string;
let bundle: string;
const configs = new Map<string, unknown>();

async function buildApp(): Promise<string> {
  const { build } = await import("esbuild");
  const out = await build({
    entryPoints: [path.join(here, "app.tsx")],
    bundle: true,
    write: false,
    format: "iife",
    target: "es2020",
    jsx: "automatic",
    alias: { "react-native": "react-native-web" },
    resolveExtensions: [".web.tsx", ".web.ts", ".web.js", ".tsx", ".ts", ".js"],
    define: { "process.env.NODE_ENV": '"production"', __DEV__: "false", global: "globalThis" },
    logLevel: "warning",
  });
  return out.outputFiles[0]!.text;
}

beforeAll(async () => {
  [bundle, stack] = await Promise.all([buildApp(), startStack("pglite")]);
  merchant = await createMerchant(stack, { rootDomain: new URL(stack.url).host });
  host = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === "/app.js") {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" }).end(bundle);
      return;
    }
    const config = configs.get(url.pathname);
    if (!config) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>App</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Shop</h1><div id="root"></div></main><script>window.__config=${JSON.stringify(config).replace(/</g, "\\u003c")}</script><script src="/app.js"></script></body></html>`,
    );
  });
  await new Promise<void>((r) => host.listen(0, "127.0.0.1", r));
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => host?.close(r));
  await stack?.close();
});

let counter = 0;
async function open(options: Record<string, unknown> = {}, tx: Record<string, unknown> = {}) {
  const created = await createTransaction(stack, merchant, {
    order_no: `rn-${Date.now()}-${++counter}`,
    ...tx,
  });
  const sessionId = (options.sessionId as string | undefined) ?? created.json.session_id;
  const key = `/app-${counter}`;
  configs.set(key, {
    merchantId: new URL(stack.url).host,
    apiKey: merchant.publicKey,
    ...options,
    sessionId,
  });
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.emulateMedia({ colorScheme: (options.appearance as "light" | "dark") ?? "light" });
  await page.goto(hostUrl + key);
  await page.getByTestId("svc-checkout").waitFor();
  return { page, sessionId, errors };
}

const calls = (page: Page) =>
  page.evaluate(() => (window as unknown as { __calls: [string, Record<string, unknown>][] }).__calls);
async function firstCall(page: Page) {
  await page.waitForFunction(
    () => (window as unknown as { __calls: unknown[] }).__calls.length > 0,
    undefined,
    {
      timeout: 20_000,
    },
  );
  return (await calls(page))[0]!;
}
const option = (page: Page, form: string) => page.getByTestId(`svc-option-${form}`);

/** Ends the checkout with an error: the session is canceled behind the view's back, then the view pays. */
async function failInWalletB(page: Page) {
  const sessionId = await page.evaluate(
    () => (window as unknown as { __config: { sessionId: string } }).__config.sessionId,
  );
  await stack.db.query("update transactions set state = 'canceled' where session_id = $1", [sessionId]);
  await page.getByTestId("mobile_number").fill("96551234567");
  await page.getByRole("button", { name: "Send code" }).click();
  expect((await firstCall(page))[0]).toBe("error");
}

/** axe on the page, or on one element of it (the popup, portaled outside the page's landmarks). */
async function axe(page: Page, selector?: string) {
  await page.addScriptTag({ content: AXE });
  if (selector) await page.locator(selector).waitFor();
  return page.evaluate(async (sel) => {
    const { axe } = window as unknown as {
      axe: { run(c: unknown, o: object): Promise<{ violations: { id: string; nodes: unknown[] }[] }> };
    };
    const r = await axe.run(sel ? document.querySelector(sel) : document, { resultTypes: ["violations"] });
    return r.violations.map((v) => `${v.id} (${v.nodes.length})`);
  }, selector);
}

describe("the React Native checkout view under react-native-web", () => {
  it("lists the transaction's forms of payment as radios; the mobile wallet pays by number and code; successCallback once", async () => {
    const { page, sessionId, errors } = await open();
    const radios = page.getByRole("radio");
    // The view is on screen before the session's forms of payment are: wait for the list.
    await radios.first().waitFor();
    expect(await radios.count()).toBeGreaterThanOrEqual(3);
    await option(page, "wallet_b_pay").getByRole("radio").click();
    await page.getByTestId("mobile_number").fill("96551234567");
    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByTestId("otp").fill("123456");
    await page.getByRole("button", { name: /^Pay / }).click();
    const [name, data] = await firstCall(page);
    expect(name).toBe("success");
    expect(data).toMatchObject({ status: "success", form_of_payment: "wallet_b_pay", session_id: sessionId });
    await expect.poll(() => page.getByTestId("svc-outcome").textContent()).toContain("Payment successful");
    expect(await page.getByTestId("svc-outcome").textContent()).toContain("\u206610.500 KWD\u2069");
    // The pressed button is gone: the focus is on the result.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid")))
      .toBe("svc-outcome");
    expect(await calls(page)).toHaveLength(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a wrong code is said under the field and can be typed again", async () => {
    const { page } = await open({ formsOfPayment: ["walletBPay"] });
    await page.getByTestId("mobile_number").fill("96551234567");
    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByTestId("otp").fill("000000");
    await page.getByRole("button", { name: /^Pay / }).click();
    await expect
      .poll(() => page.getByRole("alert").first().textContent())
      .toBe("The code is not correct. Try again.");
    expect(await calls(page)).toEqual([]);
    await page.close();
  });

  it("one wallet is the minified view: no list, its form at once", async () => {
    const { page } = await open({ formsOfPayment: ["walletBPay"] });
    // The view shows its layout once the session's details are in: wait for the form first.
    await page.getByTestId("mobile_number").waitFor();
    expect(await page.getByTestId("svc-checkout").getAttribute("data-layout")).toBe("minified");
    expect(await page.getByRole("radio").count()).toBe(0);
    await page.close();
  });

  it("Arabic from the device locale: right to left, Arabic words, amounts left to right; dark from the device", async () => {
    const { page } = await open({ locale: "ar-KW", appearance: "dark" });
    const root = page.getByTestId("svc-checkout");
    expect(await root.getAttribute("lang")).toBe("ar");
    expect(await root.evaluate((el) => getComputedStyle(el).direction)).toBe("rtl");
    expect(await root.getAttribute("data-theme")).toBe("dark");
    expect(await root.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(22, 22, 26)");
    expect(await root.getByRole("heading").first().textContent()).toBe("الدفع");
    expect(await root.textContent()).toContain("\u206610.500 KWD\u2069");
    await page.close();
  });

  it("the theme: a colour per appearance, a label's colour and font, the button's colours", async () => {
    const theme = {
      backgroundColor: { light: "#fafaf0", dark: "#101418" },
      mainTitle: { color: "#0a7d38", fontFamily: "Georgia, serif" },
      button: { enabledBackgroundColor: "#0a7d38", enabledTitleColor: { light: "#ffffff", dark: "#000000" } },
    };
    for (const appearance of ["light", "dark"] as const) {
      const { page } = await open({ theme, appearance, formsOfPayment: ["walletBPay"] });
      const root = page.getByTestId("svc-checkout");
      expect(await root.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(
        appearance === "light" ? "rgb(250, 250, 240)" : "rgb(16, 20, 24)",
      );
      const button = page.getByRole("button", { name: "Send code" });
      expect(await button.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe("rgb(10, 125, 56)");
      expect(await button.getByText("Send code").evaluate((el) => getComputedStyle(el).color)).toBe(
        appearance === "light" ? "rgb(255, 255, 255)" : "rgb(0, 0, 0)",
      );
      await page.close();
    }
    const { page } = await open({ theme });
    const title = page.getByTestId("svc-checkout").getByRole("heading").first();
    expect(
      await title.evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).fontFamily]),
    ).toEqual(["rgb(10, 125, 56)", "Georgia, serif"]);
    await page.close();
  });

  it("an unknown session ends with errorCallback: the developer's detail in the data, the customer's words on screen", async () => {
    const { page } = await open({ sessionId: "sess_doesnotexist" });
    const [name, data] = await firstCall(page);
    expect(name).toBe("error");
    expect(data).toMatchObject({ status: "error", session_id: "sess_doesnotexist" });
    expect(String(data.message).length).toBeGreaterThan(0);
    await expect
      .poll(() => page.getByTestId("svc-outcome").textContent())
      .toContain("This checkout could not be found.");
    await page.close();
  });

  it("the card page opens in the browser; the result is read back and successCallback follows", async () => {
    const { page } = await open({ formsOfPayment: ["svcPG", "walletBPay"] });
    await option(page, "svc_pg").getByRole("radio").click();
    const [popup] = await Promise.all([
      browser.context.waitForEvent("page"),
      page.getByRole("button", { name: "Continue to card payment" }).click(),
    ]);
    await popup.waitForLoadState();
    expect(new URL(popup.url()).searchParams.get("lang")).toBe("en");
    await page.getByTestId("svc-waiting").waitFor();
    await popup.locator("input[name=number]").fill("4242 4242 4242 4242");
    await popup.locator("input[name=expiry]").fill("12/39");
    await popup.locator("input[name=cvc]").fill("123");
    await popup.locator("button[type=submit]").click();
    const [name, data] = await firstCall(page);
    expect(name).toBe("success");
    expect(data).toMatchObject({ form_of_payment: "svc_pg" });
    await popup.close();
    await page.close();
  });

  it("a card page left without paying: the customer may choose another way and pay with it", async () => {
    const { page } = await open({ formsOfPayment: ["svcPG", "walletBPay"] });
    await option(page, "svc_pg").getByRole("radio").click();
    const [cardPage] = await Promise.all([
      browser.context.waitForEvent("page"),
      page.getByRole("button", { name: "Continue to card payment" }).click(),
    ]);
    await cardPage.close();
    await page.getByRole("button", { name: "Choose another way" }).click();
    await page.getByTestId("svc-waiting").waitFor({ state: "detached" });
    await option(page, "wallet_b_pay").getByRole("radio").click();
    await page.getByTestId("mobile_number").fill("96551234567");
    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByTestId("otp").fill("123456");
    await page.getByRole("button", { name: /^Pay / }).click();
    expect(await firstCall(page)).toMatchObject(["success", { form_of_payment: "wallet_b_pay" }]);
    await page.close();
  });

  it(
    "a bank page (national debit) declined there → cancelCallback with the gateway's answer; a saved card pays the next checkout",
    { timeout: 60_000 },
    async () => {
      const { page, sessionId } = await open({}, { pg_codes: [merchant.pg.ndebit] });
      await option(page, "redirect").getByRole("radio").click();
      const [bank] = await Promise.all([
        browser.context.waitForEvent("page"),
        page.getByRole("button", { name: "Continue to payment page" }).click(),
      ]);
      await bank.waitForURL((url) => url.href.startsWith(stack.gatewayUrl));
      await bank.locator("button[name=action][value=decline]").click();
      const [name, data] = await firstCall(page);
      expect([name, data]).toMatchObject([
        "cancel",
        {
          status: "canceled",
          form_of_payment: "redirect",
          session_id: sessionId,
          payment_gateway_info: { pg_name: "ndebit", pg_response: { result: "NOT CAPTURED" } },
        },
      ]);
      await bank.close();
      await page.close();

      // A card saved on the card page (the customer ticks "save") is the next checkout's first option.
      const customer = { customer_id: `cust-rn-${Date.now()}` };
      const first = await open({ formsOfPayment: ["svcPG", "walletBPay"] }, customer);
      await option(first.page, "svc_pg").getByRole("radio").click();
      const [cardPage] = await Promise.all([
        browser.context.waitForEvent("page"),
        first.page.getByRole("button", { name: "Continue to card payment" }).click(),
      ]);
      await cardPage.locator("input[name=number]").fill("4242 4242 4242 4242");
      await cardPage.locator("input[name=expiry]").fill("12/39");
      await cardPage.locator("input[name=cvc]").fill("123");
      await cardPage.locator("input[name=save_card]").check();
      await cardPage.locator("button[type=submit]").click();
      expect((await firstCall(first.page))[0]).toBe("success");
      await cardPage.close();
      await first.page.close();
      const next = await open({}, customer);
      const saved = option(next.page, "token_pay").first();
      expect(await next.page.getByRole("radio").first().textContent()).toMatch(/^VISA ending 4242/);
      await saved.getByRole("radio").click();
      await next.page.getByRole("button", { name: "Pay 10.500 KWD" }).click();
      const [paid, paidData] = await firstCall(next.page);
      expect([paid, paidData]).toMatchObject(["success", { form_of_payment: "token_pay" }]);
      await next.page.close();
    },
  );

  it("the device wallet through the bridge: ready pays with the bridge's token; no card offers Setup first; without a bridge it is not supported", async () => {
    const ready = await open({ formsOfPayment: ["walletAPay", "walletBPay"], wallet: "ready" });
    await option(ready.page, "wallet_a_pay").getByRole("radio").click();
    await ready.page.getByRole("button", { name: "Pay with device wallet" }).click();
    const [name, data] = await firstCall(ready.page);
    expect(name).toBe("success");
    expect(data).toMatchObject({ form_of_payment: "wallet_a_pay" });
    const bridge = await ready.page.evaluate(
      () =>
        (window as unknown as { __wallet: { asked: string[]; requests: unknown[]; completed: boolean[] } })
          .__wallet,
    );
    // The sheet was closed with the service's answer.
    expect(bridge.completed).toEqual([true]);
    expect(bridge.asked.length).toBeGreaterThan(0);
    expect(bridge.requests).toEqual([expect.objectContaining({ currencyCode: "KWD", amount: "10.500" })]);
    await ready.page.close();

    const setup = await open({ formsOfPayment: ["walletAPay", "walletBPay"], wallet: "nocards" });
    await option(setup.page, "wallet_a_pay").getByRole("radio").click();
    await setup.page.getByRole("button", { name: "Set up device wallet" }).click();
    await setup.page.getByRole("button", { name: "Pay with device wallet" }).waitFor();
    await setup.page.close();

    const none = await open({ formsOfPayment: ["walletAPay", "walletBPay"] });
    // The checks run once the details are known: the row says so then.
    await expect
      .poll(() => option(none.page, "wallet_a_pay").textContent())
      .toContain("not supported on this device");
    await none.page.close();

    // A bridge whose device cannot pay: check 2 stops there (check 3 is never asked).
    const unsupported = await open({ formsOfPayment: ["walletAPay", "walletBPay"], wallet: "unsupported" });
    await expect
      .poll(() => option(unsupported.page, "wallet_a_pay").textContent())
      .toContain("not supported on this device");
    expect(
      await unsupported.page.evaluate(
        () => (window as unknown as { __wallet: { asked: string[] } }).__wallet.asked,
      ),
    ).toEqual([]);
    await unsupported.page.close();
  });

  it("error reporting: off → nothing sent and the reporter never loaded; on → the report is stored with the session and form", async () => {
    const sdk = stack.service.app.services.sdk;
    await sdk.setErrorReporting(merchant.id, false);
    try {
      const off = await open({ formsOfPayment: ["walletBPay"] });
      const requests: string[] = [];
      off.page.on("request", (r) => requests.push(r.url()));
      await failInWalletB(off.page);
      await off.page.waitForTimeout(300);
      expect(requests.filter((u) => u.includes("/v1/sdk/errors"))).toEqual([]);
      await off.page.close();
    } finally {
      await sdk.setErrorReporting(merchant.id, true);
    }
    const before = (await sdk.list(merchant.id)).length;
    const on = await open({ formsOfPayment: ["walletBPay"] });
    await failInWalletB(on.page);
    await expect.poll(async () => (await sdk.list(merchant.id)).length).toBe(before + 1);
    expect((await sdk.list(merchant.id))[0]).toMatchObject({
      session_id: on.sessionId,
      form_of_payment: "wallet_b_pay",
    });
    await on.page.close();
  });

  it("the national-debit popup: the gateway's answer as rows for ndebit, the whole data for another gateway, the default without a response; Arabic labels; Close", async () => {
    const info = (pg_name: string) => ({
      pg_code: "nd",
      pg_name,
      pg_response: { result: "NOT CAPTURED", auth_code: "000000" },
    });
    const base = { status: "canceled", message: "declined", form_of_payment: "redirect" };
    const popup = async (data: unknown, locale = "en") => {
      const key = `/popup-${++counter}`;
      configs.set(key, { merchantId: "x", apiKey: "pk_x", sessionId: "s", popup: data, locale });
      const page = await browser.context.newPage();
      await page.goto(hostUrl + key);
      await page.getByTestId("svc-popup").waitFor();
      return page;
    };
    const rows = (page: Page) => page.getByTestId("svc-popup").textContent();
    const ndebit = await popup({ ...base, payment_gateway_info: info("ndebit") });
    expect(await rows(ndebit)).toBe(
      "Payment resultResult\u2066NOT CAPTURED\u2069Authorization code\u2066000000\u2069Close",
    );
    expect(await axe(ndebit, "[role=dialog]")).toEqual([]);
    await ndebit.getByRole("button", { name: "Close" }).click();
    expect((await firstCall(ndebit))[0]).toBe("popup-closed");
    await ndebit.close();
    const other = await popup({ ...base, payment_gateway_info: info("sandbox") });
    expect(await rows(other)).toContain("Status\u2066canceled\u2069Message\u2066declined\u2069");
    await other.close();
    const none = await popup(base, "ar-KW");
    expect(await rows(none)).toBe("نتيجة الدفعتم إلغاء الدفع.إغلاق");
    await none.close();
  });

  it("<SvcCheckoutView {...options} /> checks its options as new Checkout does: a private key is refused before any request", async () => {
    const key = `/component-${++counter}`;
    const created = await createTransaction(stack, merchant, { order_no: `rn-${Date.now()}-${counter}` });
    configs.set(key, {
      merchantId: new URL(stack.url).host,
      apiKey: merchant.privateKey,
      sessionId: created.json.session_id,
      component: true,
    });
    const page = await browser.context.newPage();
    const sent: string[] = [];
    page.on("request", (r) => {
      const auth = r.headers().authorization;
      if (auth) sent.push(auth);
    });
    await page.goto(hostUrl + key);
    const [name, data] = await firstCall(page);
    expect([name, data.code]).toEqual(["thrown", "private_key"]);
    expect(data.message).toMatch(/^apiKey must be your public key/);
    await page.waitForTimeout(300);
    expect(sent).toEqual([]);
    expect(await page.getByTestId("svc-checkout").count()).toBe(0);
    await page.close();

    // The same component with the public key is the checkout.
    const fine = await open({ component: true, formsOfPayment: ["walletBPay"] });
    await fine.page.getByTestId("mobile_number").waitFor();
    expect(await calls(fine.page)).toEqual([]);
    await fine.page.close();
  });

  /** A session paid (wallet A) or declined (wallet B, a number ending 0000) through the API first. */
  async function endedSession(outcome: "paid" | "failed") {
    const created = await createTransaction(stack, merchant, { order_no: `rn-${Date.now()}-${++counter}` });
    const sessionId = created.json.session_id as string;
    const pay = (path: string, body: unknown) =>
      api(stack, "POST", `/v1/checkout/${sessionId}/payments${path}`, {
        auth: apiKey(merchant.publicKey),
        body,
      });
    if (outcome === "paid") {
      await pay("", { form_of_payment: "wallet_a_pay", pg_code: merchant.pg.sandbox, payment_token: "t" });
    } else {
      const otp = await pay("", {
        form_of_payment: "wallet_b_pay",
        pg_code: merchant.pg.sandbox,
        mobile_number: "96551230000",
      });
      await pay("/otp", { otp_reference: otp.json.otp_reference, otp: "123456" });
    }
    return sessionId;
  }

  it("a session already paid or failed lists nothing and hands over its stored outcome, as the browser view does", async () => {
    for (const [outcome, callback, status] of [
      ["paid", "success", "success"],
      ["failed", "cancel", "canceled"],
    ] as const) {
      const sessionId = await endedSession(outcome);
      const { page } = await open({ sessionId });
      const [name, data] = await firstCall(page);
      expect([name, data.status, data.session_id]).toEqual([callback, status, sessionId]);
      expect(await page.getByRole("radio").count()).toBe(0);
      await expect.poll(() => page.getByTestId("svc-outcome").count()).toBe(1);
      expect(await calls(page)).toHaveLength(1);
      await page.close();
    }
  });

  it("an expired session, or formsOfPayment that leaves no option: errorCallback with the customer's words", async () => {
    const created = await createTransaction(stack, merchant, { order_no: `rn-${Date.now()}-${++counter}` });
    const sessionId = created.json.session_id as string;
    await stack.db.query(
      "update transactions set expires_at = now() - interval '10 seconds' where session_id = $1",
      [sessionId],
    );
    const expired = await open({ sessionId });
    const [name, data] = await firstCall(expired.page);
    expect([name, data.session_id]).toEqual(["error", sessionId]);
    expect(data.message).toContain("state is expired");
    await expect
      .poll(() => expired.page.getByTestId("svc-outcome").textContent())
      .toBe(
        "Payment could not be completedThis checkout has expired.Return to the shop to start a new checkout.",
      );
    await expired.page.close();

    const none = await open({ formsOfPayment: ["tokenPay"] });
    const [noneName, noneData] = await firstCall(none.page);
    expect([noneName, noneData.form_of_payment]).toEqual(["error", "token_pay"]);
    await expect
      .poll(() => none.page.getByTestId("svc-outcome").textContent())
      .toContain("No payment option is available for this checkout.");
    await none.page.close();
  });

  it("the declined screen says the service's message, then the way forward", async () => {
    const { page } = await open({ formsOfPayment: ["walletBPay"] }, { customer_phone: "+96551230000" });
    await page.getByRole("button", { name: "Send code" }).click();
    await page.getByTestId("otp").fill("123456");
    await page.getByRole("button", { name: /^Pay / }).click();
    const [name, data] = await firstCall(page);
    expect(name).toBe("cancel");
    expect(String(data.message).length).toBeGreaterThan(0);
    await expect
      .poll(() => page.getByTestId("svc-outcome").textContent())
      .toContain(`${String(data.message)}No money was taken. To pay, start again with a new checkout.`);
    await page.close();
  });

  it("an `error` answer of the service is reported too, not only the SDK's own errors", async () => {
    const sdk = stack.service.app.services.sdk;
    await sdk.setErrorReporting(merchant.id, true);
    const { page, sessionId } = await open({ formsOfPayment: ["walletBPay"] });
    const message = `The gateway's answer could not be read (${sessionId}).`;
    await page.route("**/payments", (route) =>
      route.fulfill({
        status: 200,
        contentType: "application/json",
        headers: { "access-control-allow-origin": "*" },
        body: JSON.stringify({
          status: "error",
          message,
          form_of_payment: "wallet_b_pay",
          session_id: sessionId,
        }),
      }),
    );
    await page.getByTestId("mobile_number").fill("96551234567");
    await page.getByRole("button", { name: "Send code" }).click();
    expect(await firstCall(page)).toEqual(["error", expect.objectContaining({ message })]);
    await expect
      .poll(async () =>
        (await sdk.list(merchant.id)).some((r) => (r as { message: string }).message === message),
      )
      .toBe(true);
    expect(
      (await sdk.list(merchant.id)).find((r) => (r as { message: string }).message === message),
    ).toMatchObject({
      session_id: sessionId,
      form_of_payment: "wallet_b_pay",
    });
    await page.close();
  });

  it(
    "a result poll that keeps failing for a while (503 through every retry) does not end the checkout: it asks on, as the browser view does",
    { timeout: 90_000 },
    async () => {
      const { page } = await open({ formsOfPayment: ["svcPG", "walletBPay"] });
      let refused = 0;
      // One poll's worth: the first request and its seven retries (about 30 s), all 503.
      await page.route("**/payments/result", (route) =>
        refused++ < 8
          ? route.fulfill({
              status: 503,
              contentType: "application/problem+json",
              headers: { "access-control-allow-origin": "*" },
              body: JSON.stringify({ code: "service_unavailable", detail: "Try again shortly." }),
            })
          : route.continue(),
      );
      await option(page, "svc_pg").getByRole("radio").click();
      const [cardPage] = await Promise.all([
        browser.context.waitForEvent("page"),
        page.getByRole("button", { name: "Continue to card payment" }).click(),
      ]);
      await expect.poll(() => refused, { timeout: 60_000, interval: 1000 }).toBeGreaterThan(8);
      expect(await calls(page)).toEqual([]);
      await cardPage.locator("input[name=number]").fill("4242 4242 4242 4242");
      await cardPage.locator("input[name=expiry]").fill("12/39");
      await cardPage.locator("input[name=cvc]").fill("123");
      await cardPage.locator("button[type=submit]").click();
      expect(await firstCall(page)).toMatchObject(["success", { form_of_payment: "svc_pg" }]);
      expect(await calls(page)).toHaveLength(1);
      await cardPage.close();
      await page.close();
    },
  );

  it.each([
    ["en", "light"],
    ["en", "dark"],
    ["ar-KW", "light"],
    ["ar-KW", "dark"],
  ] as const)(
    "axe: no violations on the rendered tree (%s, %s), list and a flow open",
    async (locale, appearance) => {
      const { page } = await open({ locale, appearance });
      await option(page, "wallet_b_pay").getByRole("radio").click();
      await page.getByTestId("mobile_number").waitFor();
      expect(await axe(page)).toEqual([]);
      await page.close();
    },
  );
});
