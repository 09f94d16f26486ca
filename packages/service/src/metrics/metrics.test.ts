/**
 * `GET /metrics` after known outcomes, on a service of its own (the counters are per process, the
 * queue gauges per database): one delivery succeeded, one failed after its last try (a retry
 * first), one in flight behind a receiver holding its answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
import { LATENCY_BUCKETS_SECONDS } from "./metrics.js";

/** Samples of a Prometheus text exposition: `name{labels}` → value, in the order written. */
function samples(text: string): [string, number][] {
  return text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const at = line.lastIndexOf(" ");
      return [line.slice(0, at), Number(line.slice(at + 1))];
    });
}

describe.each(STORES)("/metrics on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  async function scrape() {
    const r = await fetch(`${stack.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/plain");
    const all = samples(await r.text());
    const value = (name: string) => {
      const found = all.find(([n]) => n === name);
      if (!found) throw new Error(`no sample ${name}`);
      return found[1];
    };
    const buckets = all.filter(([n]) => n.startsWith("svc_webhook_attempt_duration_seconds_bucket{"));
    return { value, buckets };
  }
  async function refund(sessionId: string) {
    const r = await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: sessionId, amount: "1.000" },
    });
    expect(r.status).toBe(200);
  }
  async function statusOf(sessionId: string, want: string) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const r = await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, {
        auth: apiKey(m.privateKey),
      });
      const status = r.json.messages[0]?.status as string | undefined;
      if (status === want) return;
      if (Date.now() > deadline) throw new Error(`message of ${sessionId} is ${status}, expected ${want}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  /** The latencies of every attempt recorded in the database, in ms. */
  async function recordedLatencies(): Promise<number[]> {
    const rows = await stack.db.query<{ latency_ms: number }>(
      `select a.latency_ms from webhook_delivery_attempts a join webhook_deliveries d on d.id = a.delivery_id
        where d.merchant_id = $1`,
      [m.id],
    );
    return rows.map((r) => Number(r.latency_ms));
  }
  /** Buckets ascend by `le`, are cumulative, agree with the recorded attempts, and +Inf is the count. */
  function expectHistogram(scraped: Awaited<ReturnType<typeof scrape>>, latencies: number[]): void {
    const les = scraped.buckets.map(([n]) => /le="([^"]+)"/.exec(n)![1]!);
    expect(les).toEqual([...LATENCY_BUCKETS_SECONDS.map(String), "+Inf"]);
    const counts = scraped.buckets.map(([, v]) => v);
    for (let i = 1; i < counts.length; i++) expect(counts[i]).toBeGreaterThanOrEqual(counts[i - 1]!);
    LATENCY_BUCKETS_SECONDS.forEach((le, i) =>
      expect(counts[i]).toBe(latencies.filter((ms) => ms / 1000 <= le).length),
    );
    expect(counts.at(-1)).toBe(latencies.length);
    expect(scraped.value("svc_webhook_attempt_duration_seconds_count")).toBe(latencies.length);
    expect(scraped.value("svc_webhook_attempt_duration_seconds_sum")).toBeCloseTo(
      latencies.reduce((a, b) => a + b, 0) / 1000,
      6,
    );
  }

  it("counts attempts by outcome exactly, and reports the queue while a delivery is pending", async () => {
    await configureWebhooks(stack, m, {
      operations_webhook_url: `${receiver.url}/metrics-hook`,
      notify_api_initiated: true,
      retry_schedule_seconds: [1],
      timeout_seconds: 30,
    });
    const [ok, failing, held] = [
      (await paidParent(stack, m)).session_id,
      (await paidParent(stack, m)).session_id,
      (await paidParent(stack, m)).session_id,
    ];
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    receiver.respond = (r) => {
      if (r.json.session_id === failing) return { status: 500 };
      if (r.json.session_id === held) return { status: 200, until: released };
      return { status: 200 };
    };

    await refund(ok);
    await statusOf(ok, "succeeded");
    await refund(failing);
    await statusOf(failing, "failed");
    await refund(held);
    // Its attempt is out, the answer held: pending, not yet counted.
    for (let i = 0; i < 300 && !receiver.requests.some((r) => r.json.session_id === held); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(receiver.requests.some((r) => r.json.session_id === held)).toBe(true);

    const during = await scrape();
    expect(during.value('svc_webhook_deliveries_total{outcome="succeeded"}')).toBe(1);
    expect(during.value('svc_webhook_deliveries_total{outcome="retrying"}')).toBe(1);
    expect(during.value('svc_webhook_deliveries_total{outcome="failed"}')).toBe(1);
    expectHistogram(during, await recordedLatencies());
    expect(during.value("svc_webhook_attempt_duration_seconds_count")).toBe(3);
    expect(during.value("svc_webhook_queue_depth")).toBe(1);
    expect(during.value("svc_webhook_oldest_pending_age_seconds")).toBeGreaterThan(0);

    release();
    await statusOf(held, "succeeded");
    const after = await scrape();
    expect(after.value('svc_webhook_deliveries_total{outcome="succeeded"}')).toBe(2);
    expect(after.value('svc_webhook_deliveries_total{outcome="retrying"}')).toBe(1);
    expect(after.value('svc_webhook_deliveries_total{outcome="failed"}')).toBe(1);
    expectHistogram(after, await recordedLatencies());
    expect(after.value("svc_webhook_attempt_duration_seconds_count")).toBe(4);
    expect(after.value("svc_webhook_queue_depth")).toBe(0);
    expect(after.value("svc_webhook_oldest_pending_age_seconds")).toBe(0);
  });
});
