/**
 * The overview on seeded data, on both stores: the API's figures are what the seeded payments,
 * refunds and webhooks make them, and the dashboard's overview page shows the same numbers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedIn } from "../../../../test/support/dashboard.js";
import {
  api,
  apiKey,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { paidParent, payByRedirect } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
import { rangeOf } from "./overview.js";

describe.each(STORES)("overview on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    [stack, receiver] = await Promise.all([startStack(store), startReceiver()]);
    m = await createMerchant(stack);
    receiver.respond = (req) =>
      req.path === "/down" ? { status: 500, body: "down" } : { status: 200, body: "ok" };
    await configureWebhooks(stack, m, {
      enabled: true,
      notify_api_initiated: true,
      operations_webhook_url: `${receiver.url}/ops`,
      retry_schedule_seconds: [3600],
      timeout_seconds: 2,
    });
    await api(stack, "POST", "/v1/webhooks/endpoints", {
      auth: apiKey(m.privateKey),
      body: { url: `${receiver.url}/down`, event_types: ["operation"] },
    });
    // Seeded: three paid payments of 10.000 KWD, one declined, one refund of 2.000 KWD.
    const paid = [];
    for (let i = 0; i < 3; i++) paid.push(await paidParent(stack, m, "sandbox", { amount: "10.000" }));
    const declined = await createTransaction(stack, m, { pg_codes: [m.pg.queued], amount: "4.000" });
    await payByRedirect(stack, m, declined.json.session_id, m.pg.queued, "decline");
    const refund = await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: paid[0]!.session_id, amount: "2.000" },
    });
    expect(refund.status).toBe(200);
    await receiver.waitFor(1, { path: "/ops" });
    await receiver.waitFor(1, { path: "/down" });
    // Let the worker record both attempts.
    for (let i = 0; i < 100; i++) {
      const r = await api(stack, "GET", "/v1/reports/overview?range=today", { auth: apiKey(m.privateKey) });
      if (r.json.webhooks.attempts >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });

  it("the API reports what the seeded data makes", async () => {
    const r = await api(stack, "GET", "/v1/reports/overview?range=today", { auth: apiKey(m.privateKey) });
    expect(r.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(r.json).toMatchObject({
      range: "today",
      successful: 3,
      unsuccessful: 1,
      success_rate: 0.75,
      currencies: [
        {
          currency_code: "KWD",
          volume: "30.000",
          count: 3,
          refunds: "2.000",
          refund_count: 1,
          captures: "0.000",
          net: "28.000",
          days: [{ day: today, volume: "30.000", count: 3 }],
        },
      ],
      webhooks: { attempts: 2, succeeded: 1, success_rate: 0.5 },
    });
    expect(r.json.webhooks.p95_latency_ms).toBeGreaterThanOrEqual(0);
    expect(r.json.webhooks.failing).toEqual([
      expect.objectContaining({
        url: `${receiver.url}/down`,
        failed: 0,
        retrying: 1,
        last_error: "HTTP 500",
      }),
    ]);
    const week = await api(stack, "GET", "/v1/reports/overview?range=7d", { auth: apiKey(m.privateKey) });
    expect(week.json.currencies[0].days).toHaveLength(7);
    expect(week.json.currencies[0].days.at(-1)).toEqual({ day: today, volume: "30.000", count: 3 });
    expect(week.json.currencies[0].days[0]).toMatchObject({ volume: "0.000", count: 0 });
    const bad = await api(stack, "GET", "/v1/reports/overview?range=year", { auth: apiKey(m.privateKey) });
    expect(bad.status).toBe(422);
  });

  it("the overview page shows the same figures, with the chart's numbers as text, in English and Arabic", async () => {
    const client = await signedIn(stack, m.admin);
    const page = await client.get("/dashboard/overview?range=today");
    expect(page.status).toBe(200);
    for (const text of [
      "75.0%",
      "30.000 KWD",
      "2.000 KWD",
      "28.000 KWD",
      "Payments: 3",
      "1 of 2 attempts got a 2xx answer",
    ])
      expect(page.text).toContain(text);
    expect(page.text).toContain('role="img"');
    expect(page.text).toContain(`<code class="url">${receiver.url}/down</code>`);
    const arabic = await client.get("/dashboard/overview?range=today&lang=ar");
    expect(arabic.text).toContain('<html lang="ar" dir="rtl">');
    for (const text of [
      "نسبة النجاح",
      "المدفوعات: 3",
      "تلقّت 1 من أصل 2 محاولة",
      '<bdi dir="ltr">30.000 KWD</bdi>',
    ])
      expect(arabic.text).toContain(text);
    expect(page.text).toMatch(
      /<td data-label="Payments" class="num">3<\/td><td data-label="Volume" class="num"><bdi dir="ltr">30\.000<\/bdi><\/td>/,
    );
  });

  it("ranges are whole UTC days ending today", () => {
    const now = new Date("2026-11-24T13:00:00Z");
    expect(rangeOf("today", now)).toEqual({
      since: new Date("2026-11-24T00:00:00Z"),
      until: new Date("2026-11-25T00:00:00Z"),
      days: ["2026-11-24"],
    });
    const month = rangeOf("30d", now);
    expect(month.days[0]).toBe("2026-10-26");
    expect(month.days).toHaveLength(30);
  });
});
