/**
 * A new general URL (`operations_webhook_url`) or plugin URL takes the deliveries still waiting for
 * the old one, as an endpoint's new URL does (docs/webhooks.md, "A new URL"): at once, in order,
 * numbered anew there, their earlier attempts keeping the URL they went to; and none that the old
 * URL may still be owed by another seed destination. Real refunds and payments over HTTP, both
 * stores.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent, refundedParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { type ApiDelivery, configurePlugin, configureWebhooks } from "../../../../test/support/webhooks.js";

interface Message {
  id: string;
  event_type: string;
  deliveries: ApiDelivery[];
}

describe.each(STORES)("a seed destination's new URL on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    [stack, receiver] = await Promise.all([startStack(store), startReceiver()]);
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.close();
  });
  beforeEach(async () => {
    m = await createMerchant(stack);
    receiver.requests.length = 0;
    // Only the new URLs answer; a long retry step, so without a move the next try is ten minutes away.
    receiver.respond = (r) => (r.path.endsWith("-new") ? { status: 200 } : { status: 500 });
    await configureWebhooks(stack, m, {
      enabled: true,
      notify_api_initiated: true,
      timeout_seconds: 2,
      retry_schedule_seconds: [600, 600],
    });
  });

  const auth = () => apiKey(m.privateKey);
  /** Two refunds of one paid payment; returns its session id. */
  const twoRefunds = () => refundedParent(stack, m, ["1.000", "2.000"]);
  /** The payment's messages, oldest first, once each one's deliveries are in `statuses`. */
  async function messagesOnce(sessionId: string, statuses: string[][]): Promise<Message[]> {
    let messages: Message[] = [];
    await expect
      .poll(
        async () => {
          const r = await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, {
            auth: auth(),
          });
          messages = (r.json.messages as Message[]).reverse();
          return messages.map((message) => message.deliveries.map((d) => d.status));
        },
        { timeout: 20_000, interval: 100 },
      )
      .toEqual(statuses);
    return messages;
  }

  it("a new general URL takes the operation webhooks still waiting for the old one, in order, numbered anew", async () => {
    const old = `${receiver.url}/general`;
    await configureWebhooks(stack, m, { operations_webhook_url: old });
    const sessionId = await twoRefunds();
    // The first was refused and retries in ten minutes; the second waits behind it.
    await messagesOnce(sessionId, [["retrying"], ["pending"]]);

    const changed = await api(stack, "PUT", "/v1/webhooks/config", {
      auth: auth(),
      body: { operations_webhook_url: `${receiver.url}/general-new` },
    });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ operations_webhook_url: `${receiver.url}/general-new`, moved: 2 });
    const [first, second] = await messagesOnce(sessionId, [["succeeded"], ["succeeded"]]);
    expect(first!.deliveries[0]!.attempts.map((t) => [t.url, t.status_code])).toEqual([
      [old, 500],
      [`${receiver.url}/general-new`, 200],
    ]);
    expect(second!.deliveries[0]!.attempts.map((t) => [t.url, t.status_code])).toEqual([
      [`${receiver.url}/general-new`, 200],
    ]);
    const atNew = receiver.requests.filter((r) => r.path === "/general-new");
    expect(atNew.map((r) => [r.headers["webhook-id"], r.headers["svc-sequence"]])).toEqual([
      [first!.id, "1"],
      [second!.id, "2"],
    ]);
    // A change that keeps the URL moves nothing and says nothing about it; nor does a read.
    const kept = await api(stack, "PUT", "/v1/webhooks/config", {
      auth: auth(),
      body: { timeout_seconds: 3 },
    });
    expect(kept.json).not.toHaveProperty("moved");
    expect((await api(stack, "GET", "/v1/webhooks/config", { auth: auth() })).json).not.toHaveProperty(
      "moved",
    );
  });

  it("an old general URL that is also an enabled plugin's keeps what waits for it", async () => {
    const shared = `${receiver.url}/shared`;
    await configureWebhooks(stack, m, { operations_webhook_url: shared });
    await configurePlugin(stack, m, "e_commerce", { webhook_url: shared, enabled: true });
    const parent = await paidParent(stack, m);
    await api(stack, "POST", "/v1/operations", {
      auth: auth(),
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
    });
    // The payment's webhook and the refund's, both at the shared URL (the plugin's, the general's).
    await messagesOnce(parent.session_id, [["retrying"], ["pending"]]);
    const changed = await api(stack, "PUT", "/v1/webhooks/config", {
      auth: auth(),
      body: { operations_webhook_url: `${receiver.url}/shared-new` },
    });
    expect(changed.json.moved).toBe(0);
    const messages = await messagesOnce(parent.session_id, [["retrying"], ["pending"]]);
    expect(messages.map((message) => message.deliveries[0]!.url)).toEqual([shared, shared]);
    expect(receiver.requests.filter((r) => r.path === "/shared-new")).toEqual([]);
  });

  it("a delivery whose message is at the new URL already is ended there: the new URL gets each message once", async () => {
    await configureWebhooks(stack, m, { operations_webhook_url: `${receiver.url}/both-new` });
    const parent = await paidParent(stack, m);
    // Set after the payment, so no payment webhook goes there: the refund's message has two deliveries.
    await configurePlugin(stack, m, "e_commerce", {
      webhook_url: `${receiver.url}/both-plugin`,
      enabled: true,
    });
    await api(stack, "POST", "/v1/operations", {
      auth: auth(),
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
    });
    await messagesOnce(parent.session_id, [["succeeded", "retrying"]]);
    const changed = await api(stack, "PUT", "/v1/webhooks/plugins/e_commerce", {
      auth: auth(),
      body: { webhook_url: `${receiver.url}/both-new` },
    });
    expect(changed.json.moved).toBe(0);
    // The plugin's delivery is not sent again, to its old URL or to the new one.
    const [message] = await messagesOnce(parent.session_id, [["succeeded", "failed"]]);
    expect(message!.deliveries.map((d) => [d.url, d.status, d.last_error])).toEqual([
      [`${receiver.url}/both-new`, "succeeded", null],
      [
        `${receiver.url}/both-plugin`,
        "failed",
        `not sent: its message has another delivery to ${receiver.url}/both-new`,
      ],
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.filter((r) => r.path === "/both-new")).toHaveLength(1);
    expect(receiver.requests.filter((r) => r.path === "/both-plugin")).toHaveLength(1);
  });

  it("a new plugin URL takes its payments' webhooks still waiting, but not one the payment addressed itself", async () => {
    const old = `${receiver.url}/plugin`;
    await configurePlugin(stack, m, "e_commerce", { webhook_url: old, enabled: true });
    // The payment's own webhook_url is the plugin's URL too: asked for by the payment, it stays.
    const own = await paidParent(stack, m, "sandbox", { webhook_url: old });
    const sessionId = await twoRefunds();
    // The payment webhook, then the two refunds', at the plugin's URL.
    await messagesOnce(sessionId, [["retrying"], ["pending"], ["pending"]]);
    await messagesOnce(own.session_id, [["retrying"]]);

    const changed = await api(stack, "PUT", "/v1/webhooks/plugins/e_commerce", {
      auth: auth(),
      body: { webhook_url: `${receiver.url}/plugin-new` },
    });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ webhook_url: `${receiver.url}/plugin-new`, moved: 3 });
    const messages = await messagesOnce(sessionId, [["succeeded"], ["succeeded"], ["succeeded"]]);
    expect(messages.map((message) => message.event_type)).toEqual(["payment.paid", "operation", "operation"]);
    const atNew = receiver.requests.filter((r) => r.path === "/plugin-new");
    expect(atNew.map((r) => [r.headers["webhook-id"], r.headers["svc-sequence"]])).toEqual(
      messages.map((message, i) => [message.id, String(i + 1)]),
    );
    const [stayed] = await messagesOnce(own.session_id, [["retrying"]]);
    expect(stayed!.deliveries[0]!.url).toBe(old);
  });
});
