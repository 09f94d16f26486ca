/** The SSRF guard: address classes, DNS answers at connect time, and a real refused delivery. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
import { attemptDelivery, createDeliveryAgent } from "./deliver.js";
import { blockedReason, checkLiteralHost } from "./ssrf.js";

describe("blockedReason", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.20.0.1", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "CGNAT"],
    ["224.0.0.1", "multicast"],
    ["0.0.0.0", "unspecified"],
    ["::1", "loopback"],
    ["fd00::1", "unique-local"],
    ["fe80::1", "link-local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
  ])("%s is refused (%s)", (address, reason) => {
    expect(blockedReason(address)).toBe(reason);
  });
  it.each(["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])(
    "%s is allowed",
    (address) => {
      expect(blockedReason(address)).toBeUndefined();
    },
  );
  it("checks IP-literal hosts, bracketed IPv6 included", () => {
    expect(checkLiteralHost("[::1]")?.message).toContain("loopback");
    expect(checkLiteralHost("example.com")).toBeUndefined();
  });
});

describe("guarded connections", () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver.close());

  it("a hostname resolving to loopback is refused at connect time, nothing is sent", async () => {
    const agent = createDeliveryAgent({ allowPrivate: false });
    const port = new URL(receiver.url).port;
    const outcome = await attemptDelivery(agent, {
      url: `http://localhost:${port}/hook`,
      messageId: "msg_test",
      body: "{}",
      secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
      timeoutMs: 2000,
      allowPrivate: false,
    });
    await agent.close();
    expect(outcome.ok).toBe(false);
    expect(outcome.error).toMatch(
      /refused to connect to localhost \(.+\): loopback addresses are not allowed/,
    );
    expect(receiver.requests).toHaveLength(0);
  });

  it("allowed when the operator allows private addresses", async () => {
    const agent = createDeliveryAgent({ allowPrivate: true });
    const port = new URL(receiver.url).port;
    const outcome = await attemptDelivery(agent, {
      url: `http://localhost:${port}/hook`,
      messageId: "msg_test",
      body: "{}",
      secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
      timeoutMs: 2000,
      allowPrivate: true,
    });
    await agent.close();
    expect(outcome).toMatchObject({ ok: true, statusCode: 200 });
  });
});

describe("a service with SVC_WEBHOOK_ALLOW_PRIVATE off", () => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    stack = await startStack("pglite", { config: { webhookAllowPrivate: false } });
    m = await createMerchant(stack);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });

  it("records a clear error on the attempt for a loopback destination", async () => {
    await configureWebhooks(stack, m, {
      operations_webhook_url: `${receiver.url}/hook`,
      notify_api_initiated: true,
      retry_schedule_seconds: [3600],
    });
    const parent = await paidParent(stack, m);
    const r = await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: parent.session_id },
    });
    expect(r.status).toBe(200);
    const deadline = Date.now() + 5000;
    let attempt: { error: string; status_code: number | null } | undefined;
    while (!attempt && Date.now() < deadline) {
      const listed = await api(stack, "GET", `/v1/webhooks/messages?session_id=${parent.session_id}`, {
        auth: apiKey(m.privateKey),
      });
      attempt = listed.json.messages[0]?.deliveries[0]?.attempts[0];
      if (!attempt) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(attempt?.status_code).toBeNull();
    expect(attempt?.error).toContain(
      "refused to connect to 127.0.0.1 (127.0.0.1): loopback addresses are not allowed",
    );
    expect(attempt?.error).toContain("SVC_WEBHOOK_ALLOW_PRIVATE=true");
    expect(receiver.requests).toHaveLength(0);
  });
});
