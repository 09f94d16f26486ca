/**
 * The SSRF guard: address classes, DNS answers at connect time, refused attempts of the delivery
 * worker (no socket for a refused IP literal; a refused DNS answer never connected), and a real
 * refused delivery through the service.
 */
import type dns from "node:dns";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EgressTripwire, installEgressTripwire } from "../../../../test/support/egress.js";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES, testDb } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
import type { Db } from "../db/client.js";
import { createMetrics } from "../metrics/metrics.js";
import { attemptDelivery, createDeliveryAgent } from "./deliver.js";
import { enqueue } from "./outbox.js";
import { blockedReason, checkLiteralHost, type ResolveAll } from "./ssrf.js";
import { DeliveryWorker } from "./worker.js";
import { seedOutboxMerchant } from "../../../../test/support/outbox-merchant.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

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
  // Every IPv6 spelling that carries an IPv4 address is judged as the IPv4 inside.
  it.each([
    ["::127.0.0.1", "loopback", "IPv4-compatible, dotted"],
    ["::7f00:1", "loopback", "IPv4-compatible, hex (what URL parsing makes of [::127.0.0.1])"],
    ["::10.0.0.1", "private", "IPv4-compatible"],
    ["::a9fe:a9fe", "link-local", "IPv4-compatible, hex 169.254.169.254"],
    ["::ffff:169.254.169.254", "link-local", "IPv4-mapped"],
    ["0:0:0:0:0:ffff:7f00:0001", "loopback", "IPv4-mapped, uncompressed"],
    ["::ffff:0:127.0.0.1", "loopback", "IPv4-translated (SIIT)"],
    ["::ffff:0:c0a8:101", "private", "IPv4-translated, hex 192.168.1.1"],
    ["64:ff9b::127.0.0.1", "loopback", "NAT64 well-known prefix"],
    ["64:ff9b::a00:1", "private", "NAT64, hex 10.0.0.1"],
    ["64:ff9b:1::8.8.8.8", "local-use NAT64", "local-use NAT64: the IPv4's place is not fixed"],
    ["2002:7f00:1::", "loopback", "6to4 of 127.0.0.1"],
    ["2002:a9fe:a9fe::1", "link-local", "6to4 of 169.254.169.254"],
    ["2002:c0a8:0101:1::1", "private", "6to4 of 192.168.1.1"],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback", "Teredo, client 127.0.0.1 (inverted)"],
    ["2001:0:a00:1:8000:63bf:f7f7:f7f7", "private", "Teredo, server 10.0.0.1"],
    ["2001:0:4136:e378::f5ff:fffe", "private", "Teredo, client 10.0.0.1 (inverted)"],
    ["fec0::1", "site-local", "deprecated site-local"],
    ["fe80::1%eth0", "link-local", "a zone index"],
  ])("%s is refused as %s (%s)", (address, reason) => {
    expect(blockedReason(address)).toBe(reason);
  });
  it.each([
    ["::8.8.8.8", "IPv4-compatible public"],
    ["64:ff9b::8.8.8.8", "NAT64 of a public address"],
    ["2002:808:808::1", "6to4 of 8.8.8.8"],
    ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", "Teredo of public addresses"],
  ])("%s is allowed (%s)", (address) => {
    expect(blockedReason(address)).toBeUndefined();
  });
  it.each([
    "http://[::127.0.0.1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:0:127.0.0.1]/",
    "http://[64:ff9b::127.0.0.1]/",
    "http://[2002:7f00:1::]/",
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
    "http://[0:0:0:0:0:0:7f00:1]/",
  ])("the URL %s is refused as its host is written after URL parsing", (url) => {
    const hostname = new URL(url).hostname;
    expect(checkLiteralHost(hostname)?.message, hostname).toContain("loopback");
  });

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
      eventType: "operation",
      sequence: 1,
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
      eventType: "operation",
      sequence: 1,
      body: "{}",
      secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"],
      timeoutMs: 2000,
      allowPrivate: true,
    });
    await agent.close();
    expect(outcome).toMatchObject({ ok: true, statusCode: 200 });
  });
});

/** Names resolved without DNS: internal.test is a private address; nothing else exists. */
const fakeDns: ResolveAll = (hostname, _options, callback) => {
  const answers: Record<string, dns.LookupAddress[]> = {
    "internal.test": [{ address: "10.1.2.3", family: 4 }],
  };
  const found = answers[hostname];
  if (found) callback(null, found);
  else callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), []);
};

describe.each(STORES)("the delivery worker with the guard on (%s)", (store) => {
  let db: Db;
  let receiver: Receiver;
  let tripwire: EgressTripwire;
  let worker: DeliveryWorker;
  let merchantId: string;
  beforeAll(async () => {
    db = await testDb(store);
    receiver = await startReceiver();
    merchantId = await seedOutboxMerchant(db, "mer_ssrf", SECRET);
    tripwire = installEgressTripwire();
    worker = new DeliveryWorker(db, { allowPrivate: false, metrics: createMetrics(), resolve: fakeDns });
    await worker.start();
  });
  afterAll(async () => {
    await worker?.stop();
    tripwire?.restore();
    await receiver?.close();
  });

  /** Enqueues one message to `url` (a parent of its own), wakes the worker, returns its first attempt. */
  async function attemptTo(url: string) {
    const parent = `sess_ssrf_${Math.random().toString(36).slice(2)}`;
    const messageId = await db.tx((q) =>
      enqueue(
        q,
        { merchantId, kind: "operation", eventType: "operation", parentSessionId: parent, body: "{}" },
        [url],
        {
          timeout_seconds: 2,
          retry_schedule_seconds: [3600],
        },
      ),
    );
    worker.wake();
    const deadline = Date.now() + 10_000;
    for (;;) {
      const rows = await db.query<{
        status: string;
        tries: number;
        error: string;
        status_code: number | null;
      }>(
        `select d.status, d.tries, a.error, a.status_code
           from webhook_deliveries d join webhook_delivery_attempts a on a.delivery_id = d.id
          where d.message_id = $1`,
        [messageId],
      );
      if (rows.length > 0 && rows[0]!.status !== "pending") return rows;
      if (Date.now() > deadline) throw new Error(`no attempt recorded for ${url}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const port = () => new URL(receiver.url).port;
  it.each([
    ["http://10.0.0.1/hook", "10.0.0.1", "10.0.0.1", "private"],
    ["http://169.254.169.254/latest/meta-data/", "169.254.169.254", "169.254.169.254", "link-local"],
    ["http://[::1]:{port}/hook", "::1", "::1", "loopback"],
    // The URL parser writes it in hex; the receiver listens on 127.0.0.1, so a pass would reach it.
    ["http://[::ffff:127.0.0.1]:{port}/hook", "::ffff:7f00:1", "::ffff:7f00:1", "loopback"],
    ["http://[::127.0.0.1]:{port}/hook", "::7f00:1", "::7f00:1", "loopback"],
    ["http://[2002:7f00:1::]:{port}/hook", "2002:7f00:1::", "2002:7f00:1::", "loopback"],
  ])("%s: refused before any socket is opened", async (template, host, address, reason) => {
    const rows = await attemptTo(template.replace("{port}", port()));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "retrying", tries: 1, status_code: null });
    expect(rows[0]!.error).toBe(
      `ERR_SVC_BLOCKED_ADDRESS: refused to connect to ${host} (${address}): ${reason} addresses are not allowed as webhook destinations (operators can set SVC_WEBHOOK_ALLOW_PRIVATE=true for development)`,
    );
    // The literal was checked before undici was asked: no socket ever tried this host.
    expect(tripwire.connects).not.toContain(host);
    expect(tripwire.violations).toEqual([]);
    expect(receiver.requests).toHaveLength(0);
  });

  it("a name that resolves to a private address is refused at connect time, before the connect", async () => {
    const rows = await attemptTo("http://internal.test/hook");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "retrying", tries: 1, status_code: null });
    expect(rows[0]!.error).toContain(
      "refused to connect to internal.test (10.1.2.3): private addresses are not allowed as webhook destinations",
    );
    // A socket was made for the name and resolved through the guard, which refused the answer:
    // the address never reached the connect.
    expect(tripwire.connects).toContain("internal.test");
    expect(tripwire.violations).toEqual([]);
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

  it("refuses a private address written in a URL when it is saved, with what to do instead", async () => {
    const auth = apiKey(m.privateKey);
    const refused = [
      [
        "PUT",
        "/v1/webhooks/config",
        "operations_webhook_url",
        `${receiver.url}/hook`,
        "127.0.0.1, a loopback",
      ],
      ["PUT", "/v1/webhooks/plugins/e_commerce", "webhook_url", "http://[::1]:8080/hook", "::1, a loopback"],
      ["POST", "/v1/webhooks/endpoints", "url", "https://10.1.2.3/hook", "10.1.2.3, a private"],
      ["POST", "/v1/webhooks/endpoints", "url", "http://localhost:3000/hook", "localhost, a loopback"],
      ["POST", "/v1/webhooks/endpoints", "url", "http://localhost.:3000/hook", "localhost., a loopback"],
      ["POST", "/v1/webhooks/endpoints", "url", "http://shop.localhost./hook", "shop.localhost., a loopback"],
      [
        "POST",
        "/v1/webhooks/endpoints",
        "url",
        "http://169.254.169.254/latest",
        "169.254.169.254, a link-local",
      ],
    ] as const;
    for (const [method, path, field, url, named] of refused) {
      const r = await api(stack, method, path, { auth, body: { [field]: url } });
      expect(r.status, `${method} ${path} ${url}`).toBe(422);
      expect(JSON.stringify(r.json)).toContain(`points to ${named} address`);
      expect(JSON.stringify(r.json)).toContain("svc listen");
    }
    // A public address and a name (judged by the guard at connect time, when DNS answers) are saved.
    const ok = await api(stack, "POST", "/v1/webhooks/endpoints", {
      auth,
      body: { url: "https://93.184.215.14/hook" },
    });
    expect(ok.status).toBe(201);
    const named = await api(stack, "POST", "/v1/webhooks/endpoints", {
      auth,
      body: { url: "https://hooks.example.com/svc" },
    });
    expect(named.status).toBe(201);
    for (const e of [ok.json, named.json])
      expect((await api(stack, "DELETE", `/v1/webhooks/endpoints/${e.id}`, { auth })).status).toBe(204);
  });

  it("records a clear error on the attempt for a loopback destination", async () => {
    // Saved while the operator allowed private addresses, then turned them off: refused at connect time.
    await configureWebhooks(stack, m, { notify_api_initiated: true, retry_schedule_seconds: [3600] });
    await stack.db.query("update webhook_configs set operations_webhook_url = $2 where merchant_id = $1", [
      m.id,
      `${receiver.url}/hook`,
    ]);
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
