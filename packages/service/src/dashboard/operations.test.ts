/**
 * Dashboard operations, webhook settings and the delivery log over real HTTP on both stores,
 * with a real webhook receiver: the refund's webhook carries the user as initiator and verifies.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type DashboardClient, signedIn } from "../../../../test/support/dashboard.js";
import { api, apiKey, bearer, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { expectedPayloadSignature, verifyWithStandardWebhooks } from "../../../../test/support/webhooks.js";

async function waitUntil<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.each(STORES)("dashboard operations and webhooks on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  let client: DashboardClient;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
    receiver = await startReceiver();
    client = await signedIn(stack, m.admin);
    await client.get("/dashboard/webhooks");
    const saved = await client.post("/dashboard/webhooks/config", {
      enabled: "on",
      operations_webhook_url: `${receiver.url}/ops`,
      notify_api_initiated: "on",
      timeout_seconds: "5",
      retry_schedule_seconds: "",
    });
    expect(saved.status).toBe(303);
  });
  beforeEach(() => {
    receiver.respond = () => ({ status: 200, body: "ok" });
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.close();
  });

  const status = (sessionId: string) =>
    api(stack, "GET", `/v1/payments/${sessionId}`, { auth: apiKey(m.privateKey) }).then((r) => r.json);

  it("refunds part of a paid payment: child shown, webhook with the user as initiator verifies, log shows the attempt", async () => {
    const parent = await paidParent(stack, m, "sandbox", { amount: "10.000", order_no: `R-${Date.now()}` });
    const page = await client.get(`/dashboard/payments/${parent.session_id}`);
    expect(page.text).toContain('action="/dashboard/payments/' + parent.session_id + '/refund"');
    expect(page.text).not.toContain("/capture");
    const before = receiver.requests.length;
    const done = await client.post(`/dashboard/payments/${parent.session_id}/refund`, {
      amount: "2.500",
      confirm: "yes",
    });
    expect(done.status).toBe(303);
    const shown = await client.get(done.location!);
    expect(shown.text).toMatch(/Refund of 2\.500 KWD \(reference ref_[a-z2-7]+\) succeeded\./);
    expect(shown.text).toContain(">Refunded</span>");
    const after = await status(parent.session_id);
    expect(after.refunded_amount).toBe("2.500");
    expect(after.transactions).toHaveLength(1);

    const [request] = (await receiver.waitFor(before + 1, { path: "/ops" })).slice(before);
    const payload = request!.json;
    expect(payload).toMatchObject({
      operation: "refund",
      amount: "2.500",
      result: "success",
      source: "input",
      session_id: parent.session_id,
      initiator: { username: m.admin.username, first_name: "Ada", last_name: "Admin" },
    });
    expect(typeof payload.initiator.id).toBe("number");
    expect(payload.signature).toBe(expectedPayloadSignature(payload, m.webhookSecret));
    expect(verifyWithStandardWebhooks(request!, m.webhookSecret)).toMatchObject({
      reference_number: payload.reference_number,
    });

    const log = await waitUntil(async () => {
      const r = await client.get(`/dashboard/deliveries?session_id=${parent.session_id}`);
      return r.text.includes(">delivered</span>") && r.text.includes(" ms</bdi></td>") ? r.text : undefined;
    });
    expect(log).toContain(`${receiver.url}/ops`);
    expect(log).toMatch(
      /<td data-label="Status">200<\/td><td data-label="Latency" class="num"><bdi dir="ltr">\d+ ms<\/bdi><\/td><td data-label="Response or error"><pre dir="ltr">ok<\/pre>/,
    );
    expect(log).toContain(m.admin.username);
  });

  it("a refund needs its confirmation: the first POST repeats amount, currency and effect and moves nothing", async () => {
    const parent = await paidParent(stack, m, "sandbox", {
      amount: "10.000",
      customer_first_name: "Layla",
      customer_last_name: "Al-Sabah",
    });
    const page = await client.get(`/dashboard/payments/${parent.session_id}`);
    // No amount is filled in for the merchant.
    expect(page.text).toMatch(/id="f-refund-amount" name="amount" value(="")?[ />]/);
    const key = /name="idempotency_key" value="(dash_[0-9a-f]{32})"/.exec(page.text)![1]!;
    const asked = await client.post(`/dashboard/payments/${parent.session_id}/refund`, {
      amount: "2.5",
      idempotency_key: key,
    });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain("Confirm the refund");
    expect(asked.text).toContain("<strong>Refund 2.500 KWD</strong>");
    expect(asked.text).toContain("of Layla Al-Sabah");
    expect(asked.text).toContain("refundable amount goes from 10.000 KWD to 7.500 KWD");
    expect(asked.text).toContain('name="amount" value="2.500"');
    expect((await status(parent.session_id)).transactions).toHaveLength(0);
    const done = await client.post(`/dashboard/payments/${parent.session_id}/refund`, {
      amount: "2.500",
      idempotency_key: key,
      confirm: "yes",
      reason: "Customer returned one item (ticket 881)",
    });
    expect(done.status).toBe(303);
    const after = await status(parent.session_id);
    expect(after.refunded_amount).toBe("2.500");
    const rows = await stack.db.query<{ reason: string }>(
      "select reason from operations where parent_session_id = $1",
      [parent.session_id],
    );
    expect(rows.map((r) => r.reason)).toEqual(["Customer returned one item (ticket 881)"]);
    // The payment tells its story: who paid, what it is now, and what happened, in order.
    await receiver.waitFor(1, { path: "/ops" });
    const story = await waitUntil(async () => {
      const r = await client.get(`/dashboard/payments/${parent.session_id}`);
      return r.text.includes("Webhook operation (success): delivered to 1 destination") ? r.text : undefined;
    });
    expect(story).toContain("<dd>Layla Al-Sabah</dd>");
    expect(story).toContain('data-state="partially_refunded">Partially refunded</span>');
    expect(story).toContain("Wallet A (device wallet)");
    const timeline = story.slice(story.indexOf('<ol class="timeline">'));
    const order = [
      "Purchase of 10.000 KWD created through the API",
      "The customer chose Wallet A (device wallet)",
      '<p class="what">Paid</p>',
      "Refund of 2.500 KWD: refunded",
      "by Ada Admin in the dashboard",
      "Reason: <bdi>Customer returned one item (ticket 881)</bdi>",
      "Webhook operation (success): delivered to 1 destination",
    ].map((text) => timeline.indexOf(text));
    expect(
      order.every((at) => at >= 0),
      timeline,
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // The children table says where the refund was made; the timeline says who made it.
    expect(story).toMatch(/<th scope="col">Made through<\/th>/);
    expect(story).toContain(`<td data-label="Made through">svc (dashboard or API)</td>`);
    // In Arabic, the webhook's result is an Arabic word; its event type stays the API's code.
    const arabic = await client.get(`/dashboard/payments/${parent.session_id}?lang=ar`);
    await client.get(`/dashboard/payments/${parent.session_id}?lang=en`);
    expect(arabic.text).toContain("ويب هوك \u2066operation\u2069 (نجحت)");
    expect(arabic.text).not.toContain("(success)");
  });

  it.each([
    ["12.5005", "KWD has 3 decimals: 12.5005 has 4."],
    ["", "Enter an amount in KWD, such as 12.500."],
    ["twelve", "Enter the amount in digits, such as 12.500."],
  ])("a refund of %j is refused in the merchant's words before any confirmation", async (amount, message) => {
    const parent = await paidParent(stack, m, "sandbox", { amount: "20.000" });
    await client.get(`/dashboard/payments/${parent.session_id}`);
    const r = await client.post(`/dashboard/payments/${parent.session_id}/refund`, { amount });
    expect(r.status).toBe(422);
    expect(r.text).toContain(message);
    expect(r.text).not.toContain("Confirm the refund");
  });

  it("a refund form submitted twice (a double click, a resubmission) refunds once", async () => {
    const parent = await paidParent(stack, m, "sandbox", { amount: "10.000" });
    const page = await client.get(`/dashboard/payments/${parent.session_id}`);
    const key = /name="idempotency_key" value="(dash_[0-9a-f]{32})"/.exec(page.text)?.[1];
    expect(key).toBeDefined();
    const form = { amount: "1.000", idempotency_key: key!, confirm: "yes" };
    const [one, two] = await Promise.all([
      client.post(`/dashboard/payments/${parent.session_id}/refund`, form),
      client.post(`/dashboard/payments/${parent.session_id}/refund`, form),
    ]);
    expect([one.status, two.status]).toEqual([303, 303]);
    const again = await client.post(`/dashboard/payments/${parent.session_id}/refund`, form);
    expect(again.status).toBe(303);
    const shown = await client.get(again.location!);
    expect(shown.text).toContain("This refund was already submitted, so it was not done again.");
    const after = await status(parent.session_id);
    expect(after.refunded_amount).toBe("1.000");
    expect(after.transactions).toHaveLength(1);
    // Each render gives the form a new key: the next refund is a new one.
    const nextKey = /name="idempotency_key" value="(dash_[0-9a-f]{32})"/.exec(shown.text)?.[1];
    expect(nextKey).not.toBe(key);
  });

  it("the delivery log says how long a message is kept: 90 days by default, for ever with 0", async () => {
    expect((await client.get("/dashboard/deliveries")).text).toContain(
      "A message is kept 90 days after its last delivery, then deleted.",
    );
    const keeping = await startStack(store, { db: stack.db, config: { webhookRetentionDays: 0 } });
    try {
      const text = (await (await signedIn(keeping, m.admin)).get("/dashboard/deliveries")).text;
      expect(text).toContain("Every message is kept.");
      expect(text).not.toContain("then deleted");
    } finally {
      await keeping.close();
    }
  });

  it("a gateway answering after the timeout: the form keeps its key, and submitting it again gets that refund", async () => {
    const slow = await startStack(store, {
      db: stack.db,
      operationAnswerDelayMs: 1_200,
      config: { gatewayTimeoutMs: 300 },
    });
    try {
      const slowClient = await signedIn(slow, m.admin);
      const parent = await paidParent(slow, m, "sandbox", { amount: "10.000" });
      const page = await slowClient.get(`/dashboard/payments/${parent.session_id}`);
      const key = /name="idempotency_key" value="(dash_[0-9a-f]{32})"/.exec(page.text)![1]!;
      const first = await slowClient.post(`/dashboard/payments/${parent.session_id}/refund`, {
        amount: "1.000",
        idempotency_key: key,
        confirm: "yes",
      });
      expect(first.status).toBe(504);
      expect(first.text).toContain("Submit the form again to get its outcome: it will not be done twice.");
      expect(first.text).toContain(`name="idempotency_key" value="${key}"`);
      const second = await slowClient.post(`/dashboard/payments/${parent.session_id}/refund`, {
        amount: "1.000",
        idempotency_key: key,
        confirm: "yes",
      });
      expect(second.status).toBe(303);
      expect((await slowClient.get(second.location!)).text).toMatch(/Refund of 1\.000 KWD .* succeeded\./);
      const after = await api(slow, "GET", `/v1/payments/${parent.session_id}`, {
        auth: apiKey(m.privateKey),
      });
      expect(after.json.refunded_amount).toBe("1.000");
      expect(after.json.transactions).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });

  it("explains a gateway decline and a rule violation, and stores nothing", async () => {
    const parent = await paidParent(stack, m, "sandbox", { amount: "5.000" });
    const declined = await client.post(`/dashboard/payments/${parent.session_id}/refund`, {
      amount: "1.013",
      confirm: "yes",
    });
    expect(declined.status).toBe(402);
    expect(declined.text).toContain("The gateway declined the refund");
    expect(declined.text).toContain("Nothing was refunded and no webhook was sent.");
    expect(declined.text).toMatch(/value="1\.013"[^>]*aria-invalid="true"/);
    const tooMuch = await client.post(`/dashboard/payments/${parent.session_id}/refund`, {
      amount: "9.000",
      confirm: "yes",
    });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.text).toContain("That is more than can be refunded now: at most 5.000 KWD.");
    expect((await status(parent.session_id)).transactions).toHaveLength(0);
  });

  it("captures part of an authorised payment and voids another", async () => {
    const a = await paidParent(stack, m, "authorize", { amount: "8.000" });
    const page = await client.get(`/dashboard/payments/${a.session_id}`);
    expect(page.text).toContain(`/dashboard/payments/${a.session_id}/capture`);
    expect(page.text).toContain(`/dashboard/payments/${a.session_id}/void`);
    expect(page.text).not.toContain(`/dashboard/payments/${a.session_id}/refund"`);
    const captured = await client.post(`/dashboard/payments/${a.session_id}/capture`, {
      amount: "3.000",
      confirm: "yes",
    });
    expect(captured.status).toBe(303);
    expect((await status(a.session_id)).captured_amount).toBe("3.000");
    // With money captured, void is no longer offered, and a forged void is refused by the rules.
    const afterCapture = await client.get(`/dashboard/payments/${a.session_id}`);
    expect(afterCapture.text).not.toContain(`/dashboard/payments/${a.session_id}/void`);
    // The sandbox keeps the rest capturable: nothing is released.
    expect(afterCapture.text).toMatch(/<dt>Still capturable<\/dt><dd><bdi[^>]*>5\.000 KWD<\/bdi><\/dd>/);
    expect(afterCapture.text).not.toContain("Released by the gateway");

    const b = await paidParent(stack, m, "authorize", { amount: "4.000" });
    await client.get(`/dashboard/payments/${b.session_id}`);
    const voided = await client.post(`/dashboard/payments/${b.session_id}/void`, { confirm: "yes" });
    expect(voided.status).toBe(303);
    const shown = await client.get(voided.location!);
    expect(shown.text).toContain("Void of 4.000 KWD");
    expect((await status(b.session_id)).voided_amount).toBe("4.000");
    // The list says what each is now, as their pages do (not the stored "authorized").
    for (const [p, state, text] of [
      [a, "partially_captured", "Partially captured"],
      [b, "voided", "Voided"],
    ] as const) {
      const list = await client.get(`/dashboard/payments?q=${p.session_id}`);
      expect(list.text).toContain(`data-state="${state}">${text}</span>`);
    }
  });

  it("shows a queued refund as queued until the gateway's final result", async () => {
    const parent = await paidParent(stack, m, "queued", { amount: "6.000" });
    const done = await client.post(`/dashboard/payments/${parent.session_id}/refund`, {
      amount: "1.000",
      confirm: "yes",
    });
    expect(done.status).toBe(303);
    const shown = await client.get(done.location!);
    expect(shown.text).toContain("is queued at the gateway");
    expect(shown.text).toMatch(/Refund queued at the gateway<\/span>|Refund in progress<\/span>/);
    expect(shown.text).toContain("data-pending");
    const final = await waitUntil(async () => {
      const r = await client.get(`/dashboard/payments/${parent.session_id}/transactions`);
      return r.text.includes("data-pending") ? undefined : r.text;
    });
    expect(final).toContain(">Refunded</span>");
  });

  it("refuses a forged refund from a user without payment.refund, who sees no refund form", async () => {
    const viewer = { username: `viewer${Date.now()}`, password: "viewer-password-1" };
    await api(stack, "POST", `/v1/admin/merchants/${m.id}/users`, {
      auth: bearer,
      body: { ...viewer, email: "v@example.com", permissions: ["payment.view"] },
    });
    const parent = await paidParent(stack, m, "sandbox");
    const vc = await signedIn(stack, viewer);
    const page = await vc.get(`/dashboard/payments/${parent.session_id}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain("/refund");
    const forged = await vc.post(`/dashboard/payments/${parent.session_id}/refund`, { amount: "1.000" });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain("payment.refund");
    expect((await status(parent.session_id)).transactions).toHaveLength(0);
  });

  it("applies changed settings to the next operation: notifications for API payments off, then on", async () => {
    await client.get("/dashboard/webhooks");
    await client.post("/dashboard/webhooks/config", {
      enabled: "on",
      operations_webhook_url: `${receiver.url}/ops2`,
      timeout_seconds: "5",
      retry_schedule_seconds: "",
    });
    const parent = await paidParent(stack, m, "sandbox", { amount: "3.000" });
    await client.get(`/dashboard/payments/${parent.session_id}`);
    await client.post(`/dashboard/payments/${parent.session_id}/refund`, { amount: "1.000", confirm: "yes" });
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.requests.filter((r) => r.path === "/ops2")).toHaveLength(0);
    await client.get("/dashboard/webhooks");
    const saved = await client.post("/dashboard/webhooks/config", {
      enabled: "on",
      operations_webhook_url: `${receiver.url}/ops2`,
      notify_api_initiated: "on",
      timeout_seconds: "5",
      retry_schedule_seconds: "",
    });
    expect(saved.status).toBe(303);
    const settings = await client.get("/dashboard/webhooks");
    expect(settings.text).toMatch(/name="notify_api_initiated" value="on" checked/);
    await client.post(`/dashboard/payments/${parent.session_id}/refund`, { amount: "1.000", confirm: "yes" });
    const [got] = await receiver.waitFor(1, { path: "/ops2" });
    expect(got!.json).toMatchObject({ operation: "refund", amount: "1.000" });
  });

  it("rejects invalid settings with field errors", async () => {
    await client.get("/dashboard/webhooks");
    const r = await client.post("/dashboard/webhooks/config", {
      operations_webhook_url: "ftp://x",
      timeout_seconds: "99",
      retry_schedule_seconds: "5, soon",
    });
    expect(r.status).toBe(422);
    expect(r.text).toContain("Timeout: enter a whole number of seconds from 1 to 30.");
    expect(r.text).toContain("Retries: enter whole numbers");
    const plugin = await client.post("/dashboard/webhooks/plugins/e_commerce", {
      e_commerce_webhook_url: "not a url",
      e_commerce_enabled: "on",
    });
    expect(plugin.status).toBe(422);
    expect(plugin.text).toContain("E-commerce webhook URL: must be an absolute URL");
  });

  it("reveals and rotates the signing secret; sends a test webhook that verifies; replays from the log", async () => {
    await client.get("/dashboard/webhooks");
    const revealed = await client.post("/dashboard/webhooks/secret/reveal");
    expect(revealed.text).toContain(m.webhookSecret);
    await client.post("/dashboard/webhooks/config", {
      enabled: "on",
      operations_webhook_url: `${receiver.url}/test`,
      notify_api_initiated: "on",
      timeout_seconds: "5",
      retry_schedule_seconds: "",
    });
    const sent = await client.post("/dashboard/webhooks/test");
    // Straight to the test message in the log, where its attempts are.
    expect(sent.location).toMatch(/^\/dashboard\/deliveries\?session_id=sess_[a-z2-7]+$/);
    const landed = await client.get(sent.location!);
    expect(landed.text).toContain("Its attempts are below.");
    expect(landed.text).toContain("Test webhook");
    expect(landed.text).not.toContain("<dt>Payment</dt>");
    const [test] = await receiver.waitFor(1, { path: "/test" });
    expect(test!.json).toMatchObject({
      order_no: "svc-test-webhook",
      initiator: { username: m.admin.username },
    });
    expect(test!.json.signature).toBe(expectedPayloadSignature(test!.json, m.webhookSecret));
    verifyWithStandardWebhooks(test!, m.webhookSecret);

    const messageId = String(test!.headers["webhook-id"]);
    const log = await waitUntil(async () => {
      const r = await client.get("/dashboard/deliveries?status=succeeded");
      return r.text.includes(`/dashboard/deliveries/${messageId}/replay`) ? r.text : undefined;
    });
    expect(log).toContain("svc-test-webhook");
    const replay = await client.post(`/dashboard/deliveries/${messageId}/replay`);
    expect(replay.status).toBe(303);
    const again = await receiver.waitFor(2, { path: "/test" });
    expect(again[1]!.headers["webhook-id"]).toBe(messageId);

    const asked = await client.post("/dashboard/webhooks/secret/rotate");
    expect(asked.text).toContain("Rotate the signing secret?");
    expect(asked.text).not.toContain('id="secret"');
    const rotated = await client.post("/dashboard/webhooks/secret/rotate", { confirm: "yes" });
    const fresh = /id="secret"[^>]*>(whsec_[^<]+)</.exec(rotated.text)?.[1];
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(m.webhookSecret);
    m.webhookSecret = fresh!;
  });

  it("an old message can be sent to the URL configured now; the log says where a replay goes", async () => {
    await client.get("/dashboard/webhooks");
    await client.post("/dashboard/webhooks/config", {
      enabled: "on",
      operations_webhook_url: `${receiver.url}/old`,
      notify_api_initiated: "on",
      timeout_seconds: "5",
      retry_schedule_seconds: "",
    });
    const parent = await paidParent(stack, m, "sandbox", { amount: "3.000" });
    await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
    });
    const [old] = await receiver.waitFor(1, { path: "/old" });
    const messageId = String(old!.headers["webhook-id"]);
    // Delivered, not only received: a delivery still waiting would follow the new URL.
    await waitUntil(async () => {
      const r = await api(stack, "GET", `/v1/webhooks/messages/${messageId}`, { auth: apiKey(m.privateKey) });
      return r.json.status === "succeeded" || undefined;
    });
    await client.post("/dashboard/webhooks/config", {
      enabled: "on",
      operations_webhook_url: `${receiver.url}/new`,
      notify_api_initiated: "on",
      timeout_seconds: "5",
      retry_schedule_seconds: "",
    });
    const log = await waitUntil(async () => {
      const r = await client.get(`/dashboard/deliveries?session_id=${parent.session_id}`);
      return r.text.includes("Replay to") ? r.text : undefined;
    });
    expect(log).toContain("Refund of 1.000 KWD succeeded");
    expect(log).toContain(`Replay to ${receiver.url}/old`);
    expect(log).toContain(`Send to ${receiver.url}/new`);
    expect(log).toContain("1 attempt");
    expect(log).toContain("&quot;operation&quot;: &quot;refund&quot;");
    const sent = await client.post(`/dashboard/deliveries/${messageId}/send`, { url: `${receiver.url}/new` });
    expect(sent.status).toBe(303);
    const [moved] = await receiver.waitFor(1, { path: "/new" });
    expect(moved!.headers["webhook-id"]).toBe(messageId);
    expect(moved!.body).toBe(old!.body);
    // Only the URLs configured now: any other is refused, nothing sent.
    await client.get("/dashboard/deliveries");
    const forged = await client.post(`/dashboard/deliveries/${messageId}/send`, {
      url: "http://127.0.0.1:9/x",
    });
    expect((await client.get(forged.location!)).text).toContain("is not one of your current webhook URLs");
  });

  it("replays all failed deliveries in a date range", async () => {
    await client.get("/dashboard/webhooks");
    await client.post("/dashboard/webhooks/config", {
      enabled: "on",
      operations_webhook_url: `${receiver.url}/flaky`,
      notify_api_initiated: "on",
      timeout_seconds: "5",
      retry_schedule_seconds: "",
    });
    receiver.respond = () => ({ status: 500, body: "down for maintenance" });
    await client.post("/dashboard/webhooks/test");
    await receiver.waitFor(1, { path: "/flaky" });
    const failed = await waitUntil(async () => {
      const r = await client.get("/dashboard/deliveries?status=failed");
      return r.text.includes("down for maintenance") ? r.text : undefined;
    });
    expect(failed).toContain('<td data-label="Status">500</td>');
    receiver.respond = () => ({ status: 204 });
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 24 * 3600 * 1000).toISOString().slice(0, 10);
    // A range that ends before today's failure replays nothing.
    await client.post("/dashboard/deliveries/replay", { failed_since: yesterday, failed_until: yesterday });
    expect((await client.get("/dashboard/deliveries")).text).toContain(
      "There are no failed deliveries to replay.",
    );
    expect((await client.get(`/dashboard/deliveries?status=failed&until=${yesterday}`)).text).toContain(
      "No webhook messages match",
    );
    const replayed = await client.post("/dashboard/deliveries/replay", {
      failed_since: today,
      failed_until: today,
    });
    expect(replayed.status).toBe(303);
    expect((await client.get("/dashboard/deliveries")).text).toMatch(
      /\d+ failed deliver(y is|ies are) queued again/,
    );
    await receiver.waitFor(2, { path: "/flaky" });
    await waitUntil(async () => {
      const r = await client.get("/dashboard/deliveries?status=failed");
      return r.text.includes("No webhook messages match") ? true : undefined;
    });
  });
});
