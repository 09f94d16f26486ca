/**
 * The hosted card page's help in real Chromium: with JavaScript (grouping as typed, the brand,
 * "/" in the expiry, messages on blur, a focused summary whose links move focus) and without it
 * (the server says the same); axe in English and Arabic, light and dark; no sideways scrolling
 * at 320 px. One Chromium with three contexts: JavaScript on, off, and an auditor that may
 * inject axe past the page's CSP.
 */
import { createRequire } from "node:module";
import { type Browser, type BrowserContext, type Page, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_PATH } from "../support/browser.js";
import { api, apiKey, createMerchant, createTransaction, type TestMerchant } from "../support/merchant.js";
import { type Stack, startStack } from "../support/stack.js";

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const YY = String((new Date().getUTCFullYear() + 3) % 100).padStart(2, "0");

const TYPO = "This card number has a typo: check the digits.";
const EXPIRED = "This card has expired: use a card that is still valid.";
const CVC = "Enter the 3-digit security code from the back of the card.";

describe("the card page in Chromium", () => {
  let stack: Stack;
  let m: TestMerchant;
  let browser: Browser;
  let withJs: BrowserContext;
  let withoutJs: BrowserContext;
  let auditor: BrowserContext;
  beforeAll(async () => {
    stack = await startStack("pglite");
    m = await createMerchant(stack);
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
    });
    withJs = await browser.newContext({ locale: "en-US" });
    withoutJs = await browser.newContext({ locale: "en-US", javaScriptEnabled: false });
    auditor = await browser.newContext({ locale: "en-US", bypassCSP: true });
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  /** A page on a new transaction's card page; fails the test on any script error or CSP report. */
  async function open(
    context: BrowserContext,
    tx: Record<string, unknown> = {},
    query = "",
  ): Promise<{ page: Page; sessionId: string; problems: string[] }> {
    const created = (await createTransaction(stack, m, tx)).json;
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    page.on("console", (msg) => {
      if (msg.type() === "error") problems.push(msg.text());
    });
    await page.goto(`${created.checkout_url}${query}`);
    return { page, sessionId: created.session_id, problems };
  }

  /** axe's violations on the page as it is now, as "rule (nodes)". */
  async function axeViolations(page: Page): Promise<string[]> {
    if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: axePath });
    return page.evaluate(async () => {
      const axe = (
        window as unknown as { axe: { run(): Promise<{ violations: { id: string; nodes: unknown[] }[] }> } }
      ).axe;
      return (await axe.run()).violations.map((v) => `${v.id} (${v.nodes.length})`);
    });
  }

  const value = (page: Page, id: string) => page.locator(`#${id}`).inputValue();
  const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? "");
  const state = async (sessionId: string) =>
    (await api(stack, "GET", `/v1/payments/${sessionId}`, { auth: apiKey(m.privateKey) })).json.state;

  it("groups the digits as typed (Amex 4-6-5), shows the brand, and puts the '/' into the expiry", async () => {
    const { page, problems } = await open(withJs);
    const number = page.locator("#number");
    const brand = page.locator("#number-brand");
    await number.click();
    await page.keyboard.type("4242424242424242");
    expect(await value(page, "number")).toBe("4242 4242 4242 4242");
    expect(await brand.locator(".vh").textContent()).toBe("Visa");
    await number.fill("");
    await page.keyboard.type("378282246310005");
    expect(await value(page, "number")).toBe("3782 822463 10005");
    expect(await brand.locator(".vh").textContent()).toBe("American Express");
    await number.fill("");
    await page.keyboard.type("5555 5555 5555 4444");
    expect(await value(page, "number")).toBe("5555 5555 5555 4444");
    expect(await brand.locator(".vh").textContent()).toBe("Mastercard");
    // A digit typed in the middle keeps the caret after it.
    await number.fill("");
    await page.keyboard.type("42424242");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.type("9");
    expect(await value(page, "number")).toBe("4242 4294 2");
    expect(
      await page.evaluate(() => (document.getElementById("number") as HTMLInputElement).selectionStart),
    ).toBe(8);

    await page.locator("#expiry").click();
    await page.keyboard.type(`12${YY}`);
    expect(await value(page, "expiry")).toBe(`12/${YY}`);
    await page.locator("#expiry").fill("");
    await page.keyboard.type(`4${YY}`);
    expect(await value(page, "expiry")).toBe(`04/${YY}`);
    await page.locator("#expiry").fill("");
    await page.keyboard.type(`12/${YY}`); // a typed "/" is not doubled
    expect(await value(page, "expiry")).toBe(`12/${YY}`);
    await page.locator("#cvc").click();
    await page.keyboard.type("12a3");
    expect(await value(page, "cvc")).toBe("123");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("checks a field when the customer leaves it, with the server's own words, and clears the message once fixed", async () => {
    const { page, problems } = await open(withJs);
    await page.locator("#number").click();
    await page.keyboard.type("4242424242424241");
    await page.keyboard.press("Tab");
    expect(await page.locator("#number-error").textContent()).toBe(TYPO);
    expect(await page.getAttribute("#number", "aria-invalid")).toBe("true");
    expect(await page.getAttribute("#number", "aria-describedby")).toBe("number-hint number-error");
    expect(await focusedId(page)).toBe("expiry"); // the check never steals focus
    await page.keyboard.type("0120");
    await page.keyboard.press("Tab");
    expect(await page.locator("#expiry-error").textContent()).toBe(EXPIRED);
    expect(await page.getAttribute("#expiry", "aria-describedby")).toBe("expiry-error");
    // Leaving an empty field says nothing.
    await page.keyboard.press("Tab");
    expect(await page.locator("#cvc-error").textContent()).toBe("");
    // Fixing the number clears its message as soon as it is right.
    await page.locator("#number").fill("");
    await page.locator("#number").click();
    await page.keyboard.type("4242424242424242");
    expect(await page.locator("#number-error").textContent()).toBe("");
    expect(await page.getAttribute("#number", "aria-invalid")).toBeNull();
    expect(await page.getAttribute("#number", "aria-describedby")).toBe("number-hint");
    // An American Express number wants 4 digits of security code.
    await page.locator("#number").fill("378282246310005");
    await page.locator("#cvc").fill("123");
    await page.locator("#holder").focus();
    expect(await page.locator("#cvc-error").textContent()).toBe(
      "Enter the 4-digit security code from the front of the card.",
    );
    expect(problems).toEqual([]);
    await page.close();
  });

  it("a submit with mistakes focuses the summary, whose links move focus to their fields; nothing is sent", async () => {
    const { page, sessionId, problems } = await open(withJs);
    await page.locator("#number").fill("4242 4242 4242 4241");
    await page.locator("#cvc").fill("1");
    await page.getByRole("button", { name: /^Pay/ }).click();
    const summary = page.locator("#error-summary");
    await summary.waitFor();
    expect(await focusedId(page)).toBe("error-summary");
    expect(await summary.getAttribute("role")).toBe("alert");
    const links = summary.locator("a");
    expect(await links.evaluateAll((as) => as.map((a) => [a.getAttribute("href"), a.textContent]))).toEqual([
      ["#number", TYPO],
      ["#expiry", "Enter the expiry date shown on the card."],
      ["#cvc", CVC],
    ]);
    expect(await page.title()).toBe("Error: Pay by card");
    await links.nth(1).click();
    expect(await focusedId(page)).toBe("expiry");
    await links.nth(2).press("Enter");
    expect(await focusedId(page)).toBe("cvc");
    expect(page.url()).not.toContain("#");
    expect(await state(sessionId)).toBe("pending");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("pays with 4242 4242 4242 4242 typed by keyboard", async () => {
    const { page, sessionId, problems } = await open(withJs, { amount: "3.250" });
    await page.locator("#number").click();
    await page.keyboard.type("4242424242424242");
    await page.keyboard.press("Tab");
    await page.keyboard.type(`12${YY}`);
    await page.keyboard.press("Tab");
    await page.keyboard.type("123");
    await page.keyboard.press("Enter");
    await page.locator("h1", { hasText: "Payment successful" }).waitFor();
    expect(page.url()).toBe(`${stack.url}/pay/${sessionId}`);
    expect(await state(sessionId)).toBe("paid");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("without JavaScript the server gives the same messages, the summary first and focused, and MMYY pays", async () => {
    const { page, sessionId } = await open(withoutJs);
    await page.locator("#number").fill("4242424242424241");
    await page.locator("#expiry").fill("0120");
    await page.locator("#cvc").fill("12");
    await page.getByRole("button", { name: /^Pay/ }).click();
    await page.locator("#error-summary").waitFor();
    expect(await page.title()).toBe("Error: Pay by card");
    expect(await page.locator("#number-error").textContent()).toBe(TYPO);
    expect(await page.locator("#expiry-error").textContent()).toBe(EXPIRED);
    expect(await page.locator("#cvc-error").textContent()).toBe(CVC);
    expect(
      await page.locator("#error-summary a").evaluateAll((as) => as.map((a) => a.getAttribute("href"))),
    ).toEqual(["#number", "#expiry", "#cvc"]);
    expect(await focusedId(page)).toBe("error-summary");
    // No grouping without the script: the value comes back as typed.
    expect(await value(page, "number")).toBe("4242424242424241");
    await page.locator("#number").fill("4242424242424242");
    await page.locator("#expiry").fill(`12${YY}`);
    await page.locator("#cvc").fill("123");
    await page.getByRole("button", { name: /^Pay/ }).click();
    await page.locator("h1", { hasText: "Payment successful" }).waitFor();
    expect(page.url()).toBe(`${stack.url}/pay/${sessionId}`);
    expect(await state(sessionId)).toBe("paid");
    await page.close();
  });

  it("without JavaScript 'Cancel and return to the shop' cancels and returns with state=canceled", async () => {
    const { page, sessionId } = await open(withoutJs, { redirect_url: `${stack.url}/healthz?shop=1` });
    await page.getByRole("button", { name: "Cancel and return to the shop" }).click();
    await page.waitForURL((url) => url.pathname === "/healthz");
    const back = new URL(page.url());
    expect(Object.fromEntries(back.searchParams)).toEqual({
      shop: "1",
      session_id: sessionId,
      state: "canceled",
    });
    expect(await state(sessionId)).toBe("canceled");
    await page.close();
  });

  for (const width of [320, 390]) {
    it(`fits ${width} px in English and Arabic: no sideways scrolling, expiry and code side by side and aligned`, async () => {
      for (const lang of ["en", "ar"] as const) {
        const { page } = await open(
          withJs,
          { customer_id: "c1", redirect_url: "https://shop.example.com/" },
          `?lang=${lang}`,
        );
        await page.setViewportSize({ width, height: 800 });
        await page.locator("#number").fill("4242 4242 4242 4241");
        await page.getByRole("button", { name: lang === "en" ? /^Pay/ : /^ادفع/ }).click();
        await page.locator("#error-summary").waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth), lang).toBeLessThanOrEqual(
          width,
        );
        const [expiry, cvc] = [
          await page.locator("#expiry").boundingBox(),
          await page.locator("#cvc").boundingBox(),
        ];
        expect(expiry!.y, lang).toBe(cvc!.y);
        expect(expiry!.height, lang).toBe(cvc!.height);
        // Side by side, in reading order: the expiry first (on the right in Arabic).
        expect(lang === "ar" ? expiry!.x > cvc!.x : expiry!.x < cvc!.x, lang).toBe(true);
        // A label breaks only before its "(…)", which stays on one line.
        const parts = await page
          .locator("label[for=expiry] .nowrap, label[for=cvc] .nowrap")
          .evaluateAll((spans) =>
            spans.map((s) => new Set([...s.getClientRects()].map((r) => Math.round(r.top))).size),
          );
        expect(parts, lang).toEqual([1, 1]);
        await page.close();
      }
    });
  }

  it("without JavaScript the sandbox's challenge page (the card page's look) approves and returns to svc", async () => {
    const { page, sessionId } = await open(withoutJs, { language: "ar" });
    await page.locator("#number").fill("4000 0000 0000 3220");
    await page.locator("#expiry").fill(`12${YY}`);
    await page.locator("#cvc").fill("123");
    await page.locator("form#card-form button[type=submit]").click();
    await page.waitForURL((url) => url.href.startsWith(stack.gatewayUrl));
    expect(await page.locator("h1").textContent()).toBe("تأكيد بطاقتك");
    await page.getByRole("button", { name: "موافقة" }).click();
    await page.locator("h1", { hasText: "تم الدفع بنجاح" }).waitFor();
    expect(await state(sessionId)).toBe("paid");
    await page.close();
  });

  /** The sandbox's challenge page (card 4000 0000 0000 3220) or bank page (a redirect payment). */
  async function sandboxPage(kind: "challenge" | "bank", language: "en" | "ar"): Promise<Page> {
    if (kind === "challenge") {
      const { page } = await open(auditor, { language });
      await page.locator("#number").fill("4000 0000 0000 3220");
      await page.locator("#expiry").fill(`12${YY}`);
      await page.locator("#cvc").fill("123");
      await page.locator("form#card-form button[type=submit]").click();
      await page.waitForURL((url) => url.href.startsWith(stack.gatewayUrl));
      return page;
    }
    const tx = (await createTransaction(stack, m, { language, pg_codes: [m.pg.ndebit] })).json;
    const started = await api(stack, "POST", `/v1/checkout/${tx.session_id}/payments`, {
      auth: apiKey(m.publicKey),
      body: { form_of_payment: "redirect", pg_code: m.pg.ndebit },
    });
    const page = await auditor.newPage();
    await page.goto(started.json.redirect_url);
    return page;
  }

  for (const kind of ["challenge", "bank"] as const) {
    for (const lang of ["en", "ar"] as const) {
      it(`axe: the sandbox's ${kind} page has no violations in ${lang}, light and dark`, async () => {
        const page = await sandboxPage(kind, lang);
        expect(await page.getAttribute("html", "dir")).toBe(lang === "ar" ? "rtl" : "ltr");
        for (const colorScheme of ["light", "dark"] as const) {
          await page.emulateMedia({ colorScheme });
          expect(await axeViolations(page), `${kind} ${lang} ${colorScheme}`).toEqual([]);
        }
        await page.close();
      });
    }
  }

  for (const lang of ["en", "ar"] as const) {
    for (const colorScheme of ["light", "dark"] as const) {
      it(`axe: no violations in ${lang}, ${colorScheme} — empty, mistakes found by the script, by the server, a brand shown`, async () => {
        const { page } = await open(auditor, { language: lang, customer_id: "c1" });
        await page.emulateMedia({ colorScheme });
        const audit = async (phase: string) =>
          expect(await axeViolations(page), `${lang} ${colorScheme} ${phase}`).toEqual([]);
        await audit("empty");
        await page.locator("#number").fill("4242424242424241");
        await page.locator("#expiry").fill("0120");
        await page.locator("form#card-form button[type=submit]").click();
        await page.locator("#error-summary").waitFor();
        await audit("script errors");
        await page.evaluate(() => (document.getElementById("card-form") as HTMLFormElement).submit());
        await page.locator("#error-summary[autofocus]").waitFor(); // the server's 422 page
        await audit("server errors");
        await page.locator("#number").fill("378282246310005");
        await audit("brand");
        await page.close();
      });
    }
  }
});
