/** Webhook settings API: defaults, validation, plugins, permission, and secret rotation end to end. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  apiKey,
  basic,
  bearer,
  createMerchant,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { expectedPayloadSignature, verifyWithStandardWebhooks } from "../../../../test/support/webhooks.js";

describe.each(STORES)("webhook settings on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });
  const auth = () => apiKey(m.privateKey);

  it("has the documented defaults", async () => {
    const r = await api(stack, "GET", "/v1/webhooks/config", { auth: auth() });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      enabled: true,
      operations_webhook_url: null,
      notify_api_initiated: false,
      timeout_seconds: 15,
      retry_schedule_seconds: [5, 300, 1800, 7200, 18000, 36000, 36000],
    });
    const plugin = await api(stack, "GET", "/v1/webhooks/plugins/payment_request", { auth: auth() });
    expect(plugin.json).toEqual({ type: "payment_request", webhook_url: null, enabled: true });
  });

  it("validates URLs, the timeout and the retry schedule with clear messages; PUT changes only what is sent", async () => {
    const bad = await api(stack, "PUT", "/v1/webhooks/config", {
      auth: auth(),
      body: { operations_webhook_url: "ftp://x.example.com/hook", retry_schedule_seconds: [0] },
    });
    expect(bad.status).toBe(422);
    expect(bad.json.errors.operations_webhook_url[0]).toBe("must start with https:// or http://");
    expect(bad.json.errors.retry_schedule_seconds[0]).toContain("whole number of seconds");
    const relative = await api(stack, "PUT", "/v1/webhooks/config", {
      auth: auth(),
      body: { operations_webhook_url: "/hook" },
    });
    expect(relative.json.errors.operations_webhook_url[0]).toContain("absolute URL");
    const timeout = await api(stack, "PUT", "/v1/webhooks/config", {
      auth: auth(),
      body: { timeout_seconds: 31 },
    });
    expect(timeout.status).toBe(422);
    const ok = await api(stack, "PUT", "/v1/webhooks/config", {
      auth: auth(),
      body: { operations_webhook_url: "https://shop.example.com/hooks", timeout_seconds: 10 },
    });
    expect(ok.json).toMatchObject({
      operations_webhook_url: "https://shop.example.com/hooks",
      timeout_seconds: 10,
    });
    const partial = await api(stack, "PUT", "/v1/webhooks/config", {
      auth: auth(),
      body: { notify_api_initiated: true },
    });
    expect(partial.json).toMatchObject({
      operations_webhook_url: "https://shop.example.com/hooks",
      notify_api_initiated: true,
    });
    const wrongType = await api(stack, "PUT", "/v1/webhooks/plugins/shop", { auth: auth(), body: {} });
    expect(wrongType.status).toBe(422);
    const other = await createMerchant(stack);
    const untouched = await api(stack, "GET", "/v1/webhooks/config", { auth: apiKey(other.privateKey) });
    expect(untouched.json.operations_webhook_url).toBeNull();
  });

  it("needs webhooks.manage for a dashboard user and a private key otherwise", async () => {
    const user = { username: `viewer-${Date.now()}`, password: "viewer-password-long" };
    const created = await api(stack, "POST", `/v1/admin/merchants/${m.id}/users`, {
      auth: bearer,
      body: { ...user, email: `${user.username}@example.com`, permissions: ["payment.view"] },
    });
    expect(created.status).toBe(201);
    const denied = await api(stack, "GET", "/v1/webhooks/config", { auth: basic(user) });
    expect(denied.status).toBe(403);
    const publicKey = await api(stack, "GET", "/v1/webhooks/config", { auth: apiKey(m.publicKey) });
    expect(publicKey.status).toBe(403);
    expect((await api(stack, "GET", "/v1/webhooks/config", { auth: basic(m.admin) })).status).toBe(200);
  });

  it("rotation: both secrets sign for 24 h; the payload signature uses the new one", async () => {
    await api(stack, "PUT", "/v1/webhooks/config", {
      auth: auth(),
      body: { operations_webhook_url: `${receiver.url}/rot`, notify_api_initiated: true },
    });
    const rotated = await api(stack, "POST", "/v1/webhooks/secret/rotate", { auth: auth() });
    expect(rotated.status).toBe(200);
    expect(rotated.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const overlapMs = new Date(rotated.json.previous_secret_expires_at).getTime() - Date.now();
    expect(overlapMs).toBeGreaterThan(23.9 * 3600_000);
    expect(overlapMs).toBeLessThanOrEqual(24 * 3600_000);
    const parent = await paidParent(stack, m);
    await api(stack, "POST", "/v1/operations", {
      auth: auth(),
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
    });
    const [delivered] = await receiver.waitFor(1, { path: "/rot" });
    expect(String(delivered!.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    verifyWithStandardWebhooks(delivered!, rotated.json.secret);
    verifyWithStandardWebhooks(delivered!, m.webhookSecret);
    expect(delivered!.json.signature).toBe(expectedPayloadSignature(delivered!.json, rotated.json.secret));
  });

  it("the previous secret signs until 24 h after the rotation, not after (the service's clock moved back, no waiting)", async () => {
    const DAY_MS = 24 * 3600_000;
    const MINUTE_MS = 60_000;
    /** A merchant whose secret was rotated `agoMs` ago, and the delivery of a refund made now. */
    async function rotatedAgo(agoMs: number, path: string) {
      const merchant = await createMerchant(stack);
      const merchantAuth = apiKey(merchant.privateKey);
      await api(stack, "PUT", "/v1/webhooks/config", {
        auth: merchantAuth,
        body: { operations_webhook_url: `${receiver.url}${path}`, notify_api_initiated: true },
      });
      stack.advance(-agoMs);
      let rotated;
      try {
        rotated = await api(stack, "POST", "/v1/webhooks/secret/rotate", { auth: merchantAuth });
      } finally {
        stack.advance(agoMs);
      }
      expect(rotated.status).toBe(200);
      const parent = await paidParent(stack, merchant);
      const refunded = await api(stack, "POST", "/v1/operations", {
        auth: merchantAuth,
        body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
      });
      expect(refunded.status).toBe(200);
      const [delivered] = await receiver.waitFor(1, { path });
      return {
        previous: merchant.webhookSecret,
        current: rotated.json.secret as string,
        delivered: delivered!,
      };
    }

    const inside = await rotatedAgo(DAY_MS - MINUTE_MS, "/inside");
    expect(String(inside.delivered.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    verifyWithStandardWebhooks(inside.delivered, inside.current);
    verifyWithStandardWebhooks(inside.delivered, inside.previous);

    const after = await rotatedAgo(DAY_MS + MINUTE_MS, "/after");
    expect(String(after.delivered.headers["webhook-signature"]).split(" ")).toHaveLength(1);
    verifyWithStandardWebhooks(after.delivered, after.current);
    expect(() => verifyWithStandardWebhooks(after.delivered, after.previous)).toThrow();
    expect(after.delivered.json.signature).toBe(
      expectedPayloadSignature(after.delivered.json, after.current),
    );
  });
});
