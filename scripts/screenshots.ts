/**
 * Screenshots of the real dashboard for the README: starts a real stack (sandbox gateway,
 * service on PGlite, a webhook receiver), seeds the `svc dev` demo merchant, makes a paid
 * payment with a partial refund and a delivered webhook, and a week of earlier payments, signs in
 * with Chromium and writes docs/images/dashboard-overview.png, dashboard-payment.png,
 * dashboard-deliveries.png (1280 px, light), dashboard-phone.png (the payment at 360 px, dark), and
 * in Arabic dashboard-overview-ar.png (1280 px, dark) and dashboard-payment-ar.png (1280 px, light).
 *
 *   npx tsx scripts/screenshots.ts
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launchBrowser } from "../test/support/browser.js";
import { seedDemo, signedIn } from "../test/support/dashboard.js";
import { paidParent } from "../test/support/payments.js";
import { startReceiver } from "../test/support/receiver.js";
import { startStack } from "../test/support/stack.js";

const OUT_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "docs", "images");
const VIEWPORT = { width: 1280, height: 1000 };

async function main() {
  const stack = await startStack("pglite");
  const receiver = await startReceiver();
  const browser = await launchBrowser({ colorScheme: "light" });
  try {
    const { merchant: demo } = await seedDemo(stack);
    // Settings and the refund go through the dashboard itself, as a merchant would do them.
    const http = await signedIn(stack, demo.admin);
    await http.get("/dashboard/webhooks");
    await http.post("/dashboard/webhooks/config", {
      enabled: "on",
      operations_webhook_url: `${receiver.url}/webhooks/svc`,
      notify_api_initiated: "on",
      timeout_seconds: "15",
      retry_schedule_seconds: "5, 300, 1800, 7200, 18000, 36000, 36000",
    });
    const parent = await paidParent(stack, demo, "sandbox", {
      amount: "86.000",
      order_no: "ORD-1042",
      customer_first_name: "Sara",
      customer_last_name: "Ali",
      customer_email: "sara@example.com",
    });
    // A week of earlier payments for the overview's chart (the service's clock moved back a day at a time).
    for (let d = 6; d >= 1; d--) {
      stack.advance(-d * 86_400_000);
      for (let i = 0; i < (d % 3) + 1; i++)
        await paidParent(stack, demo, "sandbox", { amount: `${d * 9 + 12}.500` });
      stack.advance(d * 86_400_000);
    }
    await http.get(`/dashboard/payments/${parent.session_id}`);
    const refund = await http.post(`/dashboard/payments/${parent.session_id}/refund`, {
      amount: "20.000",
      confirm: "yes",
      reason: "Returned one of two items",
    });
    if (refund.status !== 303) throw new Error(`refund: ${refund.status}`);
    await receiver.waitFor(1);
    // Let the worker record the attempt before the log is photographed.
    await new Promise((r) => setTimeout(r, 500));

    const page = await browser.context.newPage();
    await page.setViewportSize(VIEWPORT);
    await page.goto(`${stack.url}/dashboard/sign-in`);
    await page.getByLabel("Username").fill(demo.admin.username);
    await page.getByLabel("Password").fill(demo.admin.password);
    await Promise.all([page.waitForURL(/\/dashboard\/overview$/), page.keyboard.press("Enter")]);
    mkdirSync(OUT_DIR, { recursive: true });
    await page.screenshot({ path: path.join(OUT_DIR, "dashboard-overview.png"), fullPage: true });
    await page.goto(`${stack.url}/dashboard/payments/${parent.session_id}`);
    await page.screenshot({ path: path.join(OUT_DIR, "dashboard-payment.png"), fullPage: true });
    await page.goto(`${stack.url}/dashboard/deliveries`);
    await page.screenshot({ path: path.join(OUT_DIR, "dashboard-deliveries.png"), fullPage: true });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(`${stack.url}/dashboard/payments/${parent.session_id}`);
    await page.screenshot({ path: path.join(OUT_DIR, "dashboard-phone.png"), fullPage: false });
    await page.setViewportSize(VIEWPORT);
    await page.goto(`${stack.url}/dashboard/overview?lang=ar`);
    await page.screenshot({ path: path.join(OUT_DIR, "dashboard-overview-ar.png"), fullPage: true });
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto(`${stack.url}/dashboard/payments/${parent.session_id}`);
    await page.screenshot({ path: path.join(OUT_DIR, "dashboard-payment-ar.png"), fullPage: true });
    console.log(
      `wrote dashboard-{overview,payment,deliveries,phone,overview-ar,payment-ar}.png in ${OUT_DIR}`,
    );
  } finally {
    await browser.close();
    await receiver.close();
    await stack.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
