/**
 * Merchant metadata: given at checkout, returned by the Payment Status API and the payments list,
 * carried by the payment webhook (verified and parsed by @svc/webhooks); every limit a clear 422
 * that names what to change, and nothing stored on a refusal.
 */
import { verifyWebhook } from "@svc/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  apiKey,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";

describe.each(STORES)("metadata on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  let secret: string;
  beforeAll(async () => {
    [stack, receiver] = await Promise.all([startStack(store), startReceiver()]);
    m = await createMerchant(stack);
    await configureWebhooks(stack, m, { enabled: true });
    secret = m.webhookSecret;
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });

  const metadata = { cart_id: "c-42", channel: "instagram", "note with spaces": "مرحبا" };

  it("round-trips: checkout → Payment Status API and list → payment webhook", async () => {
    const parent = await paidParent(stack, m, "sandbox", {
      metadata,
      webhook_url: `${receiver.url}/payments`,
    });
    const status = await api(stack, "GET", `/v1/payments/${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    expect(status.json.metadata).toEqual(metadata);
    await expect
      .poll(() => receiver.requests.filter((r) => r.json?.session_id === parent.session_id).length, {
        timeout: 10_000,
      })
      .toBe(1);
    const request = receiver.requests.find((r) => r.json?.session_id === parent.session_id)!;
    const event = await verifyWebhook(request.body, request.headers as Record<string, string>, secret);
    expect(event.type).toBe("payment");
    expect(event.type === "payment" && event.payload.metadata).toEqual(metadata);
    const list = await stack.service.app.services.payments.list(m.id, {}, { limit: 50, offset: 0 });
    expect(list.items.find((i) => i.session_id === parent.session_id)?.metadata).toEqual(metadata);
  });

  it("without metadata: {} in the status, no key in the payment webhook", async () => {
    const parent = await paidParent(stack, m, "sandbox", { webhook_url: `${receiver.url}/plain` });
    const status = await api(stack, "GET", `/v1/payments/${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    expect(status.json.metadata).toEqual({});
    await expect
      .poll(() => receiver.requests.filter((r) => r.json?.session_id === parent.session_id).length, {
        timeout: 10_000,
      })
      .toBe(1);
    expect(receiver.requests.find((r) => r.json?.session_id === parent.session_id)!.json).not.toHaveProperty(
      "metadata",
    );
  });

  it.each([
    [
      "51 keys",
      Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])),
      "has 51 keys: keep at most 50",
    ],
    ["a 41-character key", { ["k".repeat(41)]: "v" }, `key "${"k".repeat(41)}" must be 1 to 40 characters`],
    [
      "a 501-character value",
      { big: "x".repeat(501) },
      'value of "big" has 501 characters: keep at most 500',
    ],
    [
      "a number",
      { count: 3 },
      'value of "count" must be a string (send numbers and flags as text, e.g. "42")',
    ],
    ["an empty key", { "": "v" }, 'key "" must be 1 to 40 characters'],
  ])("refuses %s with a 422 naming it, and stores nothing", async (_, bad, message) => {
    const orderNo = `meta-bad-${store}-${Math.random().toString(36).slice(2)}`;
    const r = await createTransaction(stack, m, { metadata: bad, order_no: orderNo });
    expect(r.status).toBe(422);
    expect(r.json.errors.metadata).toContain(message);
    const found = await api(stack, "GET", `/v1/payments?order_no=${orderNo}`, { auth: apiKey(m.privateKey) });
    expect(found.status).toBe(404);
  });

  it("metadata that is not an object is refused by the schema", async () => {
    const r = await createTransaction(stack, m, { metadata: ["a"] });
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.json)).toContain("metadata");
  });
});
