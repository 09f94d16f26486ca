/**
 * Every state of the view — loading, options, waiting, window closed, success, declined, error,
 * and the result popup — in English and Arabic, light and dark, on a 320 px screen: 0 axe
 * violations and no horizontal scroll in each.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

const PHONE = { width: 320, height: 720 };
const state = (page: Page) => page.locator(".svc-checkout").getAttribute("data-state");

/** axe finds nothing, and nothing is wider than the screen. */
async function clean(page: Page, label: string) {
  expect({ label, violations: await axeViolations(page) }).toEqual({ label, violations: [] });
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect({ label, width }).toEqual({ label, width: PHONE.width });
}

const cases = [
  { name: "English light", scheme: "light" as const, ar: false },
  { name: "English dark", scheme: "dark" as const, ar: false },
  { name: "Arabic light", scheme: "light" as const, ar: true },
  { name: "Arabic dark", scheme: "dark" as const, ar: true },
];

for (const c of cases) {
  describe(c.name, () => {
    const mount = (extra: Parameters<CheckoutEnv["mount"]>[0] = {}) =>
      env.mount({
        colorScheme: c.scheme,
        ...(c.ar ? { browser: arabic } : {}),
        ...extra,
        tx: { language: c.ar ? "ar" : "en", ...extra.tx },
      });
    const texts = c.ar
      ? {
          card: "تابع إلى الدفع بالبطاقة",
          another: "اختر طريقة أخرى",
          send: "أرسل الرمز",
          pay: "ادفع 10.500 KWD",
        }
      : {
          card: "Continue to card payment",
          another: "Choose another way",
          send: "Send code",
          pay: "Pay 10.500 KWD",
        };

    it("options, waiting, window closed", async () => {
      const { page, errors } = await mount({ viewport: PHONE });
      await clean(page, "options");
      await choose(page, "svc_pg");
      const opened = page.waitForEvent("popup");
      await option(page, "svc_pg").getByRole("button", { name: texts.card }).click();
      const popup = await opened;
      await expect.poll(() => state(page)).toBe("waiting");
      await clean(page, "waiting");
      await popup.close();
      await expect.poll(() => state(page), { timeout: 8000 }).toBe("closed");
      await clean(page, "closed");
      expect(
        await page.locator(".svc-checkout .bn").getByRole("button", { name: texts.another }).count(),
      ).toBe(1);
      expect(await styleAudit(page)).toEqual({ inlineStyles: 0, violations: [] });
      expect(errors).toEqual([]);
      await page.close();
    });

    it("declined, the result popup", async () => {
      const { page, errors } = await mount({ tx: { customer_phone: "+96551230000" }, viewport: PHONE });
      await choose(page, "wallet_b_pay");
      const wallet = option(page, "wallet_b_pay");
      await wallet.getByRole("button", { name: texts.send }).click();
      await wallet.locator("input[name=otp]").fill("123456");
      await wallet.getByRole("button", { name: texts.pay }).click();
      const [name, data] = await callback(page);
      expect(name).toBe("cancel");
      await expect.poll(() => state(page)).toBe("declined");
      await clean(page, "declined");
      await page.evaluate((d) => {
        const sdk = (
          window as unknown as { SvcCheckout: { Checkout: { showResultPopup(d: unknown): unknown } } }
        ).SvcCheckout;
        void sdk.Checkout.showResultPopup(d);
      }, data);
      await page.locator("dialog[open]").waitFor();
      await clean(page, "popup");
      expect(await styleAudit(page)).toEqual({ inlineStyles: 0, violations: [] });
      expect(errors).toEqual([]);
      await page.close();
    });

    it("loading, success, error", async () => {
      const tx = await env.transaction({ language: c.ar ? "ar" : "en" });
      // Hold the details request so the loading state can be looked at; then let it through.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const { page } = await mount({
        existing: tx,
        preload: false,
        viewport: PHONE,
        waitReady: false,
        beforeGoto: (p) =>
          p.route(`**/v1/checkout/${tx.session_id}`, async (route) => {
            await held;
            await route.continue();
          }),
      });
      await page.locator(".svc-checkout").waitFor({ state: "attached" });
      expect(await state(page)).toBe("loading");
      expect(await page.locator(".svc-checkout .sk").count()).toBe(1);
      await clean(page, "loading");
      release();
      await expect.poll(() => state(page)).toBe("options");
      await choose(page, "wallet_b_pay");
      const wallet = option(page, "wallet_b_pay");
      await wallet.locator("input[name=mobile_number]").fill("96551234567");
      await wallet.getByRole("button", { name: texts.send }).click();
      await wallet.locator("input[name=otp]").fill("123456");
      await wallet.getByRole("button", { name: texts.pay }).click();
      expect((await callback(page))[0]).toBe("success");
      await expect.poll(() => state(page)).toBe("success");
      await clean(page, "success");
      await page.close();
      // An unknown session: the customer reads that the checkout could not be found, not the API's words.
      const unknown = { ...tx, session_id: "sess_unknownunknownunknown" };
      const { page: failed } = await mount({ existing: unknown, preload: false, viewport: PHONE });
      await expect.poll(() => state(failed)).toBe("error");
      await clean(failed, "error");
      const shown = (await failed.locator(".svc-checkout .out").textContent()) ?? "";
      expect(shown).toContain(
        c.ar ? "تعذّر العثور على عملية الدفع هذه." : "This checkout could not be found.",
      );
      expect(shown).not.toMatch(/session_id|Api-Key|Check the id/);
      const [name, data] = await callback(failed);
      expect(name).toBe("error");
      expect(data.message).not.toBe(shown);
      await failed.close();
    });
  });
}
