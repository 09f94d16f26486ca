/**
 * Webhook endpoints over real HTTP on both stores: the API and its validation, routing (each event
 * type reaches exactly the endpoints subscribed to it, with their custom headers and version; a
 * disabled endpoint gets nothing; the seed's destinations are unchanged), operation metadata for
 * endpoints that opt in, and disabling an endpoint that fails for the configured period (the
 * others are told, the metric counts it, re-enabling offers the replay of what it missed).
 */
import { verifyWebhook } from "@svc/webhooks";
import { parseEndpointDisabledWebhook } from "@svc/webhooks/notices";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
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

describe.each(STORES)("webhook endpoints on %s", (store) => {
  let stack: Stack;
  let receiver: Receiver;
  beforeAll(async () => {
    [stack, receiver] = await Promise.all([
      // A shortened period: an endpoint failing for 2 s is disabled.
      startStack(store, { config: { webhookDisableAfterSeconds: 2 } }),
      startReceiver(),
    ]);
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });
  beforeEach(() => {
    receiver.respond = () => ({ status: 200, body: "ok" });
  });

  /** A merchant of its own per test: endpoints, settings and sequence counters never mix. */
  async function merchant(): Promise<TestMerchant> {
    const m = await createMerchant(stack);
    await configureWebhooks(stack, m, {
      enabled: true,
      notify_api_initiated: true,
      retry_schedule_seconds: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
      timeout_seconds: 2,
    });
    return m;
  }
  const call = (m: TestMerchant, method: string, path: string, body?: unknown) =>
    api(stack, method, path, { auth: apiKey(m.privateKey), ...(body === undefined ? {} : { body }) });
  const path = (name: string) => `/${store}/${name}/${Math.random().toString(36).slice(2, 8)}`;
  const at = (p: string) => receiver.requests.filter((r) => r.path === p);
  const refund = (m: TestMerchant, sessionId: string) =>
    call(m, "POST", "/v1/operations", { operation: "refund", session_id: sessionId, amount: "1.000" });

  it("creates, lists with the seed's destinations, reads, changes and deletes endpoints", async () => {
    const m = await merchant();
    await configureWebhooks(stack, m, { operations_webhook_url: `${receiver.url}/general` });
    const created = await call(m, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}/crm`,
      description: "CRM",
      event_types: ["payment.paid", "operation"],
      headers: { "X-Shop": "north" },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      kind: "endpoint",
      url: `${receiver.url}/crm`,
      event_types: ["payment.paid", "operation"],
      headers: { "X-Shop": "••••" },
      enabled: true,
      payload_version: "2026-11-24",
      include_metadata: false,
      editable: true,
      failing_since: null,
    });
    expect(created.json.id).toMatch(/^we_/);
    const list = await call(m, "GET", "/v1/webhooks/endpoints");
    expect(list.json.endpoints.map((e: { id: string; kind: string }) => [e.id, e.kind])).toEqual([
      ["general", "general"],
      [created.json.id, "endpoint"],
    ]);
    expect(list.json.endpoints[0]).toMatchObject({ url: `${receiver.url}/general`, editable: false });
    const changed = await call(m, "PATCH", `/v1/webhooks/endpoints/${created.json.id}`, {
      event_types: ["*"],
      description: "CRM, all events",
    });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({
      event_types: ["*"],
      description: "CRM, all events",
      url: created.json.url,
    });
    expect((await call(m, "GET", `/v1/webhooks/endpoints/${created.json.id}`)).json.event_types).toEqual([
      "*",
    ]);
    const seed = await call(m, "PATCH", "/v1/webhooks/endpoints/general", { enabled: false });
    expect(seed.status).toBe(409);
    expect(seed.json.code).toBe("read_only");
    expect(seed.json.detail).toContain("PUT /v1/webhooks/config");
    expect((await call(m, "DELETE", `/v1/webhooks/endpoints/${created.json.id}`)).status).toBe(204);
    expect((await call(m, "GET", `/v1/webhooks/endpoints/${created.json.id}`)).status).toBe(404);
    // Another merchant's endpoint does not exist for this one.
    const other = await merchant();
    const theirs = await call(other, "POST", "/v1/webhooks/endpoints", { url: `${receiver.url}/theirs` });
    expect((await call(m, "GET", `/v1/webhooks/endpoints/${theirs.json.id}`)).status).toBe(404);
  });

  it("custom header values are never shown whole; a masked value sent back keeps the value behind it", async () => {
    const m = await merchant();
    const token = "tok_live_9f8e7d6c5b4a";
    const created = await call(m, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}/masked`,
      event_types: ["operation"],
      headers: { Authorization: `Bearer ${token}`, "X-Shop": "north" },
    });
    expect(created.status, created.text).toBe(201);
    // The last 4 characters of a value of 12 or more, nothing of a shorter one.
    expect(created.json.headers).toEqual({ Authorization: "••••5b4a", "X-Shop": "••••" });
    const read = await call(m, "GET", `/v1/webhooks/endpoints/${created.json.id}`);
    expect(read.text).not.toContain(token);
    expect(read.text).not.toContain("north");
    // What was read, sent back with one header changed and one added (any case of a name).
    const changed = await call(m, "PATCH", `/v1/webhooks/endpoints/${created.json.id}`, {
      headers: { authorization: read.json.headers.Authorization, "X-Shop": "south", "X-Extra": "1" },
    });
    expect(changed.status, changed.text).toBe(200);
    const stored = await stack.db.query<{ headers: Record<string, string> }>(
      "select headers from webhook_endpoints where id = $1",
      [created.json.id],
    );
    expect(stored[0]!.headers).toEqual({
      authorization: `Bearer ${token}`,
      "X-Shop": "south",
      "X-Extra": "1",
    });
    // A masked value that stands for nothing stored under that name is refused, naming the header.
    const wrong = await call(m, "PATCH", `/v1/webhooks/endpoints/${created.json.id}`, {
      headers: { "X-Other": "••••5b4a" },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.json.errors["headers.X-Other"][0]).toContain("masked value");
    const fresh = await call(m, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}/masked-2`,
      headers: { "X-Shop": "••••" },
    });
    expect(fresh.status).toBe(422);
    expect(fresh.json.errors["headers.X-Shop"][0]).toContain("send the value itself");
  });

  it("refuses bad input with one 422 naming every field, and stores nothing", async () => {
    const m = await merchant();
    const r = await call(m, "POST", "/v1/webhooks/endpoints", {
      url: "ftp://shop.example/hook",
      event_types: ["payment.paid", "payment.refunded"],
      headers: { "webhook-signature": "v1,x", "X-Fine": "ok\r\nX-Evil: 1", "bad name": "v" },
      payload_version: "2030-01-01",
    });
    expect(r.status).toBe(422);
    expect(r.json.errors.url).toEqual(["must start with https:// or http://"]);
    expect(r.json.errors.event_types[0]).toContain('unknown event type "payment.refunded"');
    expect(r.json.errors["headers.webhook-signature"][0]).toContain("is set by svc");
    expect(r.json.errors["headers.X-Fine"][0]).toContain("without line breaks");
    expect(r.json.errors["headers.bad name"][0]).toContain("header name");
    // Every content-* header describes the body svc signs, and trace context is svc's own.
    const reserved = await call(m, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}/reserved`,
      headers: { "Content-Language": "en", "content-md5": "x", traceparent: "00-x", TraceState: "a=b" },
    });
    expect(reserved.status).toBe(422);
    for (const name of ["Content-Language", "content-md5", "traceparent", "TraceState"])
      expect(reserved.json.errors[`headers.${name}`]?.[0], name).toContain("is set by svc");
    expect(r.json.errors.payload_version[0]).toContain('unknown version "2030-01-01"');
    expect((await call(m, "POST", "/v1/webhooks/endpoints", {})).json.errors).toBeDefined();
    expect(
      (await call(m, "POST", "/v1/webhooks/endpoints", { url: `${receiver.url}/x`, event_types: [] })).status,
    ).toBe(422);
    expect((await call(m, "GET", "/v1/webhooks/endpoints")).json.endpoints).toEqual([]);
    const first = await call(m, "POST", "/v1/webhooks/endpoints", { url: `${receiver.url}/dup` });
    expect(first.status).toBe(201);
    const again = await call(m, "POST", "/v1/webhooks/endpoints", { url: `${receiver.url}/dup` });
    expect(again.status).toBe(409);
    expect(again.json.detail).toContain("exists already");
  });

  it("each event type reaches exactly the endpoints subscribed to it, with their headers and version", async () => {
    const m = await merchant();
    const ops = path("ops");
    const paid = path("paid");
    const all = path("all");
    const off = path("off");
    await configureWebhooks(stack, m, { operations_webhook_url: `${receiver.url}${path("general")}` });
    const general = (await call(m, "GET", "/v1/webhooks/endpoints")).json.endpoints[0].url as string;
    for (const [p, types] of [
      [ops, ["operation"]],
      [paid, ["payment.paid"]],
      [all, ["*"]],
      [off, ["*"]],
    ] as const) {
      const r = await call(m, "POST", "/v1/webhooks/endpoints", {
        url: `${receiver.url}${p}`,
        event_types: types,
        headers: { "X-Endpoint": p },
      });
      expect(r.status).toBe(201);
      if (p === off) await call(m, "PATCH", `/v1/webhooks/endpoints/${r.json.id}`, { enabled: false });
    }
    const parent = await paidParent(stack, m);
    expect((await refund(m, parent.session_id)).status).toBe(200);
    await receiver.waitFor(1, { path: ops });
    await receiver.waitFor(1, { path: paid });
    await receiver.waitFor(2, { path: all });
    await receiver.waitFor(1, { path: new URL(general).pathname });
    // Let anything extra arrive before counting.
    await new Promise((r) => setTimeout(r, 500));
    expect(at(ops).map((r) => r.headers["svc-event-type"])).toEqual(["operation"]);
    expect(at(paid).map((r) => r.headers["svc-event-type"])).toEqual(["payment.paid"]);
    expect(
      at(all)
        .map((r) => r.headers["svc-event-type"])
        .sort(),
    ).toEqual(["operation", "payment.paid"]);
    expect(at(off)).toEqual([]);
    for (const p of [ops, paid, all]) {
      for (const r of at(p)) {
        expect(r.headers["x-endpoint"]).toBe(p);
        expect(r.headers["svc-webhook-version"]).toBe("2026-11-24");
        await verifyWebhook(r.body, r.headers as Record<string, string>, m.webhookSecret);
      }
    }
    // The seed's general URL still gets the operation webhook exactly: no custom header, no metadata.
    const seedRequest = at(new URL(general).pathname)[0]!;
    expect(seedRequest.headers["x-endpoint"]).toBeUndefined();
    expect(seedRequest.json.session_id).toBe(parent.session_id);
    expect(seedRequest.json).not.toHaveProperty("metadata");
    // A failed payment reaches only the endpoint for every event type.
    const failed = await createTransaction(stack, m, { pg_codes: [m.pg.queued] });
    expect(failed.status).toBe(201);
    await payByRedirect(stack, m, failed.json.session_id, m.pg.queued, "decline");
    // "*" gets the pending step (the gateway page) and the decline.
    const got = await receiver.waitFor(4, { path: all });
    expect(got.slice(2).map((r) => r.headers["svc-event-type"])).toEqual([
      "payment.pending",
      "payment.failed",
    ]);
    expect(at(paid).length).toBe(1);
    expect(at(ops).length).toBe(1);
  });

  it("payment.pending when the customer is sent to a gateway page, payment.expired when time runs out: to subscribers only", async () => {
    const m = await merchant();
    const sub = path("lifecycle");
    const other = path("paid-only");
    await call(m, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}${sub}`,
      event_types: ["payment.pending", "payment.expired"],
    });
    await call(m, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}${other}`,
      event_types: ["payment.paid"],
    });
    const waiting = await createTransaction(stack, m, {
      pg_codes: [m.pg.queued],
      webhook_url: `${receiver.url}${path("tx")}`,
    });
    const started = await api(stack, "POST", `/v1/checkout/${waiting.json.session_id}/payments`, {
      auth: apiKey(m.publicKey),
      body: { form_of_payment: "redirect", pg_code: m.pg.queued },
    });
    expect(started.status).toBe(200);
    const [pending] = await receiver.waitFor(1, { path: sub });
    expect(pending!.headers["svc-event-type"]).toBe("payment.pending");
    expect(pending!.json).toMatchObject({ session_id: waiting.json.session_id, state: "attempted" });
    const event = await verifyWebhook(
      pending!.body,
      pending!.headers as Record<string, string>,
      m.webhookSecret,
    );
    expect(event.type === "payment" && event.payload.state).toBe("attempted");
    const lapsing = await createTransaction(stack, m, { expiration_time: 120 });
    stack.advance(121_000);
    try {
      const status = await call(m, "GET", `/v1/payments/${lapsing.json.session_id}`);
      expect(status.json.state).toBe("expired");
    } finally {
      stack.advance(-121_000);
    }
    const got = await receiver.waitFor(2, { path: sub });
    expect(got[1]!.headers["svc-event-type"]).toBe("payment.expired");
    expect(got[1]!.json).toMatchObject({ session_id: lapsing.json.session_id, state: "expired" });
    // The contract's payment webhook (the transaction's webhook_url) gets neither; nor does a payment.paid endpoint.
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests.filter((r) => r.path.includes("/tx/"))).toEqual([]);
    expect(at(other)).toEqual([]);
  });

  it("POST /v1/webhooks/test reaches every destination; …/endpoints/{id}/test that endpoint only, whatever it subscribes to", async () => {
    const m = await merchant();
    const seed = path("seed");
    const picky = path("picky");
    const other = path("other");
    await configureWebhooks(stack, m, { operations_webhook_url: `${receiver.url}${seed}` });
    const p = await call(m, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}${picky}`,
      event_types: ["payment.paid"],
    });
    await call(m, "POST", "/v1/webhooks/endpoints", { url: `${receiver.url}${other}` });
    const all = await call(m, "POST", "/v1/webhooks/test");
    expect(all.status).toBe(202);
    expect(all.json.urls.sort()).toEqual([seed, picky, other].map((x) => `${receiver.url}${x}`).sort());
    for (const x of [seed, picky, other]) {
      const [r] = await receiver.waitFor(1, { path: x });
      expect(r!.headers["svc-event-type"]).toBe("webhook.test");
      expect(r!.json.order_no).toBe("svc-test-webhook");
      await verifyWebhook(r!.body, r!.headers as Record<string, string>, m.webhookSecret);
    }
    const one = await call(m, "POST", `/v1/webhooks/endpoints/${p.json.id}/test`);
    expect(one.status).toBe(202);
    expect(one.json.urls).toEqual([`${receiver.url}${picky}`]);
    await receiver.waitFor(2, { path: picky });
    expect(at(seed)).toHaveLength(1);
    const message = await call(m, "GET", `/v1/webhooks/messages/${one.json.message_id}`);
    expect(message.status).toBe(200);
    expect((await call(m, "POST", "/v1/webhooks/endpoints/we_nosuchendpoint/test")).status).toBe(404);
  });

  it("an endpoint that opts in gets the payment's metadata in operation webhooks; the seed's payload stays exact", async () => {
    const m = await merchant();
    const seed = path("seed");
    const withMeta = path("meta");
    await configureWebhooks(stack, m, { operations_webhook_url: `${receiver.url}${seed}` });
    await call(m, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}${withMeta}`,
      event_types: ["operation"],
      include_metadata: true,
    });
    const metadata = { cart_id: "c-9", channel: "app" };
    const parent = await paidParent(stack, m, "sandbox", { metadata });
    expect((await refund(m, parent.session_id)).status).toBe(200);
    const [meta] = await receiver.waitFor(1, { path: withMeta });
    const [plain] = await receiver.waitFor(1, { path: seed });
    expect(meta!.json.metadata).toEqual(metadata);
    expect(plain!.json).not.toHaveProperty("metadata");
    // Each is signed for what it carries, and is its own message.
    const event = await verifyWebhook(meta!.body, meta!.headers as Record<string, string>, m.webhookSecret);
    expect(event.type).toBe("operation");
    await verifyWebhook(plain!.body, plain!.headers as Record<string, string>, m.webhookSecret);
    expect(meta!.headers["webhook-id"]).not.toBe(plain!.headers["webhook-id"]);
  });

  it("an endpoint failing for the configured period is disabled; the others are told; re-enabling replays what it missed", async () => {
    const m = await merchant();
    const dead = path("dead");
    const watcher = path("watcher");
    receiver.respond = (req) =>
      req.path === dead ? { status: 500, body: "down" } : { status: 200, body: "ok" };
    // Subscribed to the notice too: it is not sent its own (it got a held delivery of it, sent
    // when it was enabled again and replayed).
    const d = await call(m, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}${dead}`,
      event_types: ["operation", "webhook.endpoint_disabled"],
    });
    await call(m, "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}${watcher}`,
      event_types: ["webhook.endpoint_disabled"],
    });
    const parent = await paidParent(stack, m);
    expect((await refund(m, parent.session_id)).status).toBe(200);
    await receiver.waitFor(1, { path: dead });
    await expect
      .poll(async () => (await call(m, "GET", `/v1/webhooks/endpoints/${d.json.id}`)).json.failing_since, {
        timeout: 10_000,
      })
      .not.toBeNull();
    expect((await call(m, "GET", `/v1/webhooks/endpoints/${d.json.id}`)).json.last_error).toContain("500");
    // Past the period (2 s) the sweep (every second here) disables it.
    await expect
      .poll(async () => (await call(m, "GET", `/v1/webhooks/endpoints/${d.json.id}`)).json.enabled, {
        timeout: 15_000,
        interval: 250,
      })
      .toBe(false);
    const disabled = (await call(m, "GET", `/v1/webhooks/endpoints/${d.json.id}`)).json;
    expect(disabled.disabled_reason).toBe("failing");
    const [told] = await receiver.waitFor(1, { path: watcher });
    expect(told!.headers["svc-event-type"]).toBe("webhook.endpoint_disabled");
    expect(told!.json).toMatchObject({
      event: "webhook.endpoint_disabled",
      endpoint: { id: d.json.id, url: `${receiver.url}${dead}` },
      reason: "failing",
    });
    // @svc/webhooks takes it (it refused it as an unknown event, and a receiver built on it
    // answered 400 until it was disabled too), and its notices entry types it.
    const verified = await verifyWebhook(
      told!.body,
      told!.headers as Record<string, string>,
      m.webhookSecret,
    );
    expect(verified).toMatchObject({ type: "other", event: "webhook.endpoint_disabled" });
    const notice = parseEndpointDisabledWebhook(verified.payload);
    expect(notice.endpoint).toEqual({ id: d.json.id, url: `${receiver.url}${dead}`, description: "" });
    expect(notice.last_error).toContain("500");
    expect(
      await stack.db.query(
        "select id from webhook_deliveries where endpoint_id = $1 and event_type = 'webhook.endpoint_disabled'",
        [d.json.id],
      ),
    ).toEqual([]);
    const metrics = await api(stack, "GET", "/metrics", {});
    expect(metrics.text).toMatch(/svc_webhook_endpoints\{state="disabled_failing"\} [1-9]/);
    // While disabled it gets nothing: the refund below is not sent to it.
    const triesBefore = at(dead).length;
    expect((await refund(m, parent.session_id)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(at(dead).length).toBe(triesBefore);
    // Fixed, re-enabled: it is told what it missed, and a replay sends it.
    receiver.respond = () => ({ status: 200, body: "ok" });
    const enabled = await call(m, "PATCH", `/v1/webhooks/endpoints/${d.json.id}`, { enabled: true });
    expect(enabled.status).toBe(200);
    expect(enabled.json.enabled).toBe(true);
    // One tried and given up when it was disabled, one held while it was.
    expect(enabled.json.missed).toMatchObject({ failed: 2 });
    // No body at all: it is optional (everything missed, as `{}` would say).
    const replay = await call(m, "POST", `/v1/webhooks/endpoints/${d.json.id}/replay`);
    expect(replay.status).toBe(200);
    expect(replay.json).toMatchObject({ replayed: 2 });
    await expect
      .poll(() => at(dead).filter((r) => r.headers["svc-event-type"] === "operation").length - triesBefore, {
        timeout: 10_000,
      })
      .toBeGreaterThanOrEqual(2);
    const since = at(dead).slice(triesBefore);
    // Both refunds arrive, numbered 1 and 2 for this parent at this URL (the held one kept its number).
    expect(new Set(since.map((r) => r.json.reference_number)).size).toBe(2);
    expect(since.map((r) => r.headers["svc-sequence"]).sort()).toEqual(["1", "2"]);
  });

  it("a replay leaves out what went to an endpoint disabled or deleted since, and says how many", async () => {
    const m = await merchant();
    const seed = path("seed");
    const off = path("off");
    const gone = path("gone");
    await configureWebhooks(stack, m, { operations_webhook_url: `${receiver.url}${seed}` });
    const disabled = await call(m, "POST", "/v1/webhooks/endpoints", { url: `${receiver.url}${off}` });
    const deleted = await call(m, "POST", "/v1/webhooks/endpoints", { url: `${receiver.url}${gone}` });
    const parent = await paidParent(stack, m);
    expect((await refund(m, parent.session_id)).status).toBe(200);
    const [first] = await receiver.waitFor(1, { path: seed });
    for (const x of [off, gone]) await receiver.waitFor(2, { path: x }); // payment.paid, operation
    const messageId = first!.headers["webhook-id"]!;
    const settled = () =>
      expect
        .poll(async () => (await call(m, "GET", `/v1/webhooks/messages/${messageId}`)).json.status, {
          timeout: 10_000,
        })
        .toBe("succeeded");
    // Every delivery done, then one endpoint disabled by hand and the other deleted.
    await settled();
    expect(
      (await call(m, "PATCH", `/v1/webhooks/endpoints/${disabled.json.id}`, { enabled: false })).status,
    ).toBe(200);
    expect((await call(m, "DELETE", `/v1/webhooks/endpoints/${deleted.json.id}`)).status).toBe(204);
    const counts = { off: at(off).length, gone: at(gone).length };

    const replay = await call(m, "POST", `/v1/webhooks/messages/${messageId}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.json).toEqual({ replayed: 1, skipped: 2 });
    await receiver.waitFor(2, { path: seed });
    // A bulk replay of everything that succeeded leaves them out too.
    const bulk = await call(m, "POST", "/v1/webhooks/replay", { status: "succeeded" });
    expect(bulk.json.skipped).toBeGreaterThanOrEqual(4);
    await new Promise((r) => setTimeout(r, 1_500));
    expect({ off: at(off).length, gone: at(gone).length }).toEqual(counts);
    const rows = await stack.db.query<{ status: string }>(
      "select status from webhook_deliveries where endpoint_id = any($1::text[])",
      [[disabled.json.id, deleted.json.id]],
    );
    expect(rows.map((r) => r.status)).not.toContain("pending");
    // Enabled again, the endpoint's deliveries replay as before (once the seed's replays are done).
    await settled();
    expect(
      (await call(m, "PATCH", `/v1/webhooks/endpoints/${disabled.json.id}`, { enabled: true })).status,
    ).toBe(200);
    const again = await call(m, "POST", `/v1/webhooks/messages/${messageId}/replay`);
    expect(again.json).toEqual({ replayed: 2, skipped: 1 });
    await receiver.waitFor(counts.off + 1, { path: off });
  });
});
