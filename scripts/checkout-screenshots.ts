/**
 * Screenshots of the real checkout for the README: the example shop of `svc dev` (options, the
 * waiting state, success, the decline popup) and the hosted card page, in English and Arabic,
 * light and dark, desktop (1280 px) and phone (390 px). Starts a real stack (sandbox gateway,
 * service on PGlite) seeded like `svc dev`, and writes docs/images/checkout/*.png.
 *
 *   npx tsx scripts/checkout-screenshots.ts
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { seedDemoMerchant, writeCredentials } from "../packages/service/src/dev/seed.js";
import { type Browser, launchBrowser } from "../test/support/browser.js";
import { startStack } from "../test/support/stack.js";

const OUT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "docs", "images", "checkout");
const DEVICES = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;
const LANGS = { en: "en-US", ar: "ar-KW" } as const;
const THEMES = ["light", "dark"] as const;

const view = (page: Page) => page.locator(".svc-checkout");
const state = (page: Page) => view(page).getAttribute("data-state");
async function until(page: Page, expected: string) {
  for (let i = 0; i < 100 && (await state(page)) !== expected; i++) await page.waitForTimeout(100);
}
const choose = (page: Page, form: string) =>
  page.locator(`.svc-checkout .op[data-form-of-payment="${form}"] label.oh`).first().click();

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-shots-"));
  const stack = await startStack("pglite", { config: { dataDir, exampleShop: true } });
  const credentials = await seedDemoMerchant(stack.service.app, stack.config, undefined);
  await writeCredentials(dataDir, credentials);
  const browsers: Record<string, Browser> = {};
  mkdirSync(OUT_DIR, { recursive: true });
  try {
    for (const [lang, locale] of Object.entries(LANGS)) {
      browsers[lang] = await launchBrowser({ locale });
      for (const theme of THEMES)
        for (const [device, viewport] of Object.entries(DEVICES)) {
          const name = (what: string) => path.join(OUT_DIR, `${what}-${lang}-${theme}-${device}.png`);
          const page = async (url: string) => {
            const p = await browsers[lang]!.context.newPage();
            await p.setViewportSize(viewport);
            await p.emulateMedia({ colorScheme: theme, reducedMotion: "reduce" });
            await p.goto(`${stack.url}${url}`);
            await view(p).waitFor();
            return p;
          };
          // The option list.
          const shop = await page("/example/");
          await shop.screenshot({ path: name("options"), fullPage: true });
          // Waiting for the card page in its window.
          await choose(shop, "svc_pg");
          const opened = shop.waitForEvent("popup");
          await shop.locator('.svc-checkout .op[data-form-of-payment="svc_pg"] button.b').click();
          const card = await opened;
          await until(shop, "waiting");
          await shop.screenshot({ path: name("waiting"), fullPage: true });
          // The card page itself, as that window shows it, at the same size.
          await card.setViewportSize(viewport);
          await card.emulateMedia({ colorScheme: theme });
          await card.waitForLoadState();
          await card.screenshot({ path: name("card-page"), fullPage: true });
          await card.close();
          await shop.close();
          // Success with the mobile wallet.
          const paid = await page("/example/");
          await choose(paid, "wallet_b_pay");
          await paid.locator("input[name=mobile_number]").fill("96551234567");
          await paid.locator('.op[data-form-of-payment="wallet_b_pay"] form:not([hidden]) button').click();
          await paid.locator("input[name=otp]").fill("123456");
          await paid.locator('.op[data-form-of-payment="wallet_b_pay"] form:not([hidden]) button').click();
          await until(paid, "success");
          await paid.screenshot({ path: name("success"), fullPage: true });
          await paid.close();
          // A national-debit decline: the shop's cancelCallback shows the receipt popup.
          const declined = await page("/example/?forms=redirect");
          const bankOpened = declined.waitForEvent("popup");
          await declined.locator('.svc-checkout .op[data-form-of-payment="redirect"] button.b').click();
          const bank = await bankOpened;
          await bank.locator("button[name=action][value=decline]").click();
          await declined.locator("dialog[open]").waitFor();
          await declined.screenshot({ path: name("decline-popup") });
          await declined.close();
          console.log(`${lang} ${theme} ${device}`);
        }
    }
    console.log(`wrote ${OUT_DIR}`);
  } finally {
    for (const b of Object.values(browsers)) await b.close();
    await stack.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
