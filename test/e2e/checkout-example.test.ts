/**
 * The example shop of `svc dev` (/example/): seeded like `svc dev` seeds its demo merchant, then
 * a newcomer's first payment in Chromium, with the script-tag integration the page shows.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadConfig } from "../../packages/service/src/config.js";
import { seedDemoMerchant, writeCredentials } from "../../packages/service/src/dev/seed.js";
import { startSandboxGateway } from "../../packages/service/src/gateways/sandbox/server.js";
import { type RunningService, startService } from "../../packages/service/src/server.js";
import { freePort } from "../support/free-port.js";
import { ADMIN_TOKEN, GATEWAY_SECRET } from "../support/stack.js";
import { testDb } from "../support/stores.js";
import { type Browser, launchBrowser } from "../support/browser.js";

let service: RunningService;
let gateway: Awaited<ReturnType<typeof startSandboxGateway>>;
let browser: Browser;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-example-"));
  gateway = await startSandboxGateway({ port: 0, notificationSecret: GATEWAY_SECRET });
  const port = await freePort();
  const config = loadConfig(
    {},
    {
      port,
      host: "127.0.0.1",
      publicUrl: `http://127.0.0.1:${port}`,
      gatewayUrl: gateway.url,
      gatewayNotificationSecret: GATEWAY_SECRET,
      adminToken: ADMIN_TOKEN,
      logLevel: "silent",
      dataDir,
    },
  );
  service = await startService(config, { db: await testDb("pglite") });
  await writeCredentials(dataDir, await seedDemoMerchant(service.app, config, undefined));
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await service?.close();
  await gateway?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it("the example shop creates a transaction and a newcomer pays with the mobile wallet", async () => {
  const page = await browser.context.newPage();
  const violations: string[] = [];
  page.on("console", (m) => violations.push(m.text()));
  await page.goto(`${service.url}/example/`);
  const forms = await page
    .locator("[data-form-of-payment]")
    .evaluateAll((els) => els.map((e) => e.getAttribute("data-form-of-payment")));
  expect(forms.sort()).toEqual(["redirect", "svc_pg", "wallet_a_pay", "wallet_b_pay"]);
  const wallet = page.locator('[data-form-of-payment="wallet_b_pay"]');
  await wallet.locator("input[name=mobile_number]").fill("96551234567");
  await wallet.getByRole("button", { name: "Send code" }).click();
  await wallet.locator("input[name=otp]").fill("123456");
  await wallet.getByRole("button", { name: "Pay", exact: true }).click();
  await page.waitForFunction(() =>
    document.getElementById("result")?.textContent?.startsWith("successCallback"),
  );
  const shown = JSON.parse((await page.locator("#result").textContent())!.replace("successCallback\n", ""));
  expect(shown).toMatchObject({
    status: "success",
    form_of_payment: "wallet_b_pay",
    message: "Payment successful",
  });
  expect(violations).toEqual([]);
  await page.close();
});

it("the Arabic example is right-to-left with the transaction's texts in Arabic", async () => {
  const page = await browser.context.newPage();
  await page.goto(`${service.url}/example/?lang=ar`);
  expect(await page.locator("html").getAttribute("dir")).toBe("rtl");
  const title = await page.locator('[data-form-of-payment="wallet_b_pay"] h3').textContent();
  expect(title).toMatch(/[\u0600-\u06ff]/);
  await page.close();
});
