/** `/metrics` behind SVC_METRICS_TOKEN: without the setting it is open; with it, only the bearer reads it. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { loadConfig } from "../config.js";

const TOKEN = "metrics-token-0123456789abcdef";

describe("/metrics with SVC_METRICS_TOKEN", () => {
  let open: Stack;
  let guarded: Stack;
  beforeAll(async () => {
    open = await startStack("pglite");
    guarded = await startStack("pglite", { db: open.db, config: { metricsToken: TOKEN } });
  });
  afterAll(async () => {
    await guarded?.close();
    await open?.close();
  });

  it("reads the token from SVC_METRICS_TOKEN (empty by default)", () => {
    expect(loadConfig({}).metricsToken).toBe("");
    expect(loadConfig({ SVC_METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
  });

  it("is open without the setting", async () => {
    const r = await fetch(`${open.url}/metrics`);
    expect(r.status).toBe(200);
    expect(await r.text()).toContain("svc_webhook_queue_depth");
  });

  it("refuses a missing, wrong or differently sized token, and answers the right one", async () => {
    for (const authorization of [undefined, "Bearer wrong", `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, TOKEN]) {
      const r = await fetch(`${guarded.url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(r.status, String(authorization)).toBe(401);
      expect((await r.json()).code).toBe("unauthenticated");
    }
    const ok = await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("svc_gateway_discrepancies_open");
  });
});
