/**
 * Webhook endpoints in the dashboard over real HTTP on both stores: add one (errors in the
 * merchant's words, every bad field named, nothing saved), change it, the banner every page shows
 * while one is disabled for failing, the replay offered after enabling it again, and deleting
 * after a confirmation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DashboardClient, signedIn } from "../../../../test/support/dashboard.js";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";

describe.each(STORES)("dashboard webhook endpoints on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  let client: DashboardClient;
  beforeAll(async () => {
    [stack, receiver] = await Promise.all([
      startStack(store, { config: { webhookDisableAfterSeconds: 1 } }),
      startReceiver(),
    ]);
    m = await createMerchant(stack);
    client = await signedIn(stack, m.admin);
    await client.get("/dashboard/webhooks");
    await client.post("/dashboard/webhooks/config", {
      enabled: "on",
      notify_api_initiated: "on",
      timeout_seconds: "2",
      retry_schedule_seconds: "1, 1, 1, 1, 1, 1, 1, 1",
    });
  });
  afterAll(async () => {
    await receiver?.close();
    await stack?.close();
  });

  /**
   * Adds an endpoint at `path` on the receiver for operation webhooks, refunds a paid payment
   * and waits until the endpoint's request has arrived; returns the endpoint's id.
   */
  async function endpointWithARefundAt(path: string): Promise<string> {
    await client.get("/dashboard/webhooks/endpoints/new");
    const added = await client.post("/dashboard/webhooks/endpoints", {
      url: `${receiver.url}${path}`,
      event_operation: "on",
    });
    const parent = await paidParent(stack, m);
    await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
    });
    await receiver.waitFor(1, { path });
    return added.location!.split("/").pop()!;
  }

  it("adds an endpoint; bad fields are each named in the merchant's words and nothing is saved", async () => {
    await client.get("/dashboard/webhooks/endpoints/new");
    const bad = await client.post("/dashboard/webhooks/endpoints", {
      url: "shop.example/hook",
      headers: "X-Token: abc\nWebhook-Signature: forged",
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain("URL: must be an absolute URL");
    expect(bad.text).toContain("Events: must name at least one event type");
    expect(bad.text).toContain("Custom header Webhook-Signature: is set by svc");
    expect(bad.text).toContain('aria-invalid="true"');
    expect((await client.get("/dashboard/webhooks/endpoints")).text).toContain("No endpoints yet");
    const added = await client.post("/dashboard/webhooks/endpoints", {
      url: `${receiver.url}/dash`,
      description: "Warehouse",
      "event_payment.paid": "on",
      event_operation: "on",
      headers: "X-Token: abc",
    });
    expect(added.status).toBe(303);
    const page = await client.get(added.location!);
    expect(page.text).toContain("Endpoint added");
    // The value is not shown, only that there is one.
    expect(page.text).toContain("X-Token: ••••");
    expect(page.text).not.toContain("X-Token: abc");
    const list = await client.get("/dashboard/webhooks/endpoints");
    expect(list.text).toContain("Warehouse");
    expect(list.text).toContain("operation, payment.paid");
    // The API sees what the dashboard saved.
    const api1 = await api(stack, "GET", "/v1/webhooks/endpoints", { auth: apiKey(m.privateKey) });
    expect(api1.json.endpoints).toHaveLength(1);
    expect(api1.json.endpoints[0]).toMatchObject({
      headers: { "X-Token": "••••" },
      description: "Warehouse",
    });
    // The form saved again as shown keeps the value behind the mask.
    const id = api1.json.endpoints[0].id as string;
    const again = await client.post(`/dashboard/webhooks/endpoints/${id}`, {
      url: `${receiver.url}/dash`,
      description: "Warehouse, again",
      "event_payment.paid": "on",
      event_operation: "on",
      headers: "X-Token: ••••",
      enabled: "on",
    });
    expect(again.status, again.text).toBe(303);
    const [row] = await stack.db.query<{ headers: Record<string, string>; description: string }>(
      "select headers, description from webhook_endpoints where id = $1",
      [id],
    );
    expect(row).toEqual({ headers: { "X-Token": "abc" }, description: "Warehouse, again" });
  });

  it("a failing endpoint is disabled, every page shows a banner, enabling it again offers the replay", async () => {
    receiver.respond = (req) =>
      req.path === "/down" ? { status: 503, body: "maintenance" } : { status: 200 };
    const id = await endpointWithARefundAt("/down");
    await expect
      .poll(
        async () =>
          (await client.get("/dashboard/payments")).text.includes("A webhook endpoint was disabled"),
        {
          timeout: 15_000,
          interval: 250,
        },
      )
      .toBe(true);
    const edit = await client.get(`/dashboard/webhooks/endpoints/${id}`);
    expect(edit.text).toContain(`data-state="disabled_failing">Disabled (failing)</span>`);
    expect(edit.text).toContain("503");
    receiver.respond = () => ({ status: 200, body: "ok" });
    const enabled = await client.post(`/dashboard/webhooks/endpoints/${id}`, {
      url: `${receiver.url}/down`,
      event_operation: "on",
      enabled: "on",
    });
    expect(enabled.status).toBe(303);
    const after = await client.get(`/dashboard/webhooks/endpoints/${id}`);
    expect(after.text).toContain("Endpoint enabled. It missed 1 delivery since");
    expect(after.text).toContain(`Replay 1 missed delivery to ${receiver.url}/down`);
    expect(after.text).not.toContain("A webhook endpoint was disabled");
    const before = receiver.requests.filter((r) => r.path === "/down").length;
    const replayed = await client.post(`/dashboard/webhooks/endpoints/${id}/replay`);
    expect(replayed.status).toBe(303);
    expect((await client.get(replayed.location!)).text).toContain("1 delivery queued again");
    await receiver.waitFor(before + 1, { path: "/down" });
  });

  it("replaying what a re-enabled endpoint missed sends it to the URL it was moved to, as the button says", async () => {
    receiver.respond = () => ({ status: 200, body: "ok" });
    const other = await createMerchant(stack);
    const auth = apiKey(other.privateKey);
    const dashboard = await signedIn(stack, other.admin);
    await dashboard.get("/dashboard/webhooks/endpoints/new");
    const added = await dashboard.post("/dashboard/webhooks/endpoints", {
      url: `${receiver.url}/before`,
      event_operation: "on",
    });
    const id = added.location!.split("/").pop()!;
    await dashboard.get(added.location!);
    // Disabled (no "enabled" box sent), a refund is missed, then moved and enabled again.
    await dashboard.post(`/dashboard/webhooks/endpoints/${id}`, {
      url: `${receiver.url}/before`,
      event_operation: "on",
    });
    const parent = await paidParent(stack, other);
    await api(stack, "POST", "/v1/operations", {
      auth,
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
    });
    await dashboard.post(`/dashboard/webhooks/endpoints/${id}`, {
      url: `${receiver.url}/after`,
      event_operation: "on",
      headers: "X-Token: moved",
      enabled: "on",
    });
    const page = await dashboard.get(`/dashboard/webhooks/endpoints/${id}`);
    expect(page.text).toContain(`Replay 1 missed delivery to ${receiver.url}/after`);
    const replayed = await dashboard.post(`/dashboard/webhooks/endpoints/${id}/replay`);
    expect((await dashboard.get(replayed.location!)).text).toContain(
      `1 delivery queued again for ${receiver.url}/after`,
    );
    const [got] = await receiver.waitFor(1, { path: "/after" });
    expect(got!.headers["x-token"]).toBe("moved");
    expect(receiver.requests.filter((r) => r.path === "/before")).toHaveLength(0);
    // Moved once more: the delivery log's replay says where it goes now, and offers no second way
    // to send it there.
    await api(stack, "PATCH", `/v1/webhooks/endpoints/${id}`, {
      auth,
      body: { url: `${receiver.url}/later` },
    });
    const log = async () =>
      (await dashboard.get(`/dashboard/deliveries?session_id=${parent.session_id}`)).text;
    await expect.poll(async () => (await log()).includes("Replay to"), { timeout: 10_000 }).toBe(true);
    expect(await log()).toContain(`Replay to ${receiver.url}/later`);
    expect(await log()).not.toContain(`Send to ${receiver.url}/later`);
    // Replayed there: the log names where its earlier attempt went.
    const listed = await api(stack, "GET", `/v1/webhooks/messages?session_id=${parent.session_id}`, { auth });
    const sent = await dashboard.post(`/dashboard/deliveries/${listed.json.messages[0].id}/replay`);
    expect(sent.status).toBe(303);
    await receiver.waitFor(1, { path: "/later" });
    await expect
      .poll(async () => (await log()).includes("since a replay sent it there"), { timeout: 10_000 })
      .toBe(true);
    const moved = await log();
    expect(moved).toContain(`Attempts, oldest first: to ${receiver.url}/later since a replay sent it there`);
    expect(moved).toContain(`Sent to <span class="mono url">${receiver.url}/after</span>`);
    expect(moved).not.toContain(`Attempts to ${receiver.url}/later`);
  });

  it("a new URL saved while a delivery waits for the endpoint says that delivery goes there now", async () => {
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    receiver.respond = (r) => (r.path === "/held" ? { status: 200, until: held } : { status: 200 });
    // Its delivery is out to /held, unanswered: still waiting.
    const id = await endpointWithARefundAt("/held");
    await client.get(`/dashboard/webhooks/endpoints/${id}`);
    const saved = await client.post(`/dashboard/webhooks/endpoints/${id}`, {
      url: `${receiver.url}/held-new`,
      event_operation: "on",
      enabled: "on",
    });
    expect(saved.status, saved.text).toBe(303);
    expect((await client.get(saved.location!)).text).toContain(
      "Endpoint saved. 1 delivery still waiting for it goes to the new URL now.",
    );
    answer();
    receiver.respond = () => ({ status: 200 });
    await client.post(`/dashboard/webhooks/endpoints/${id}/delete`, { confirm: "yes" });
  });

  it("a new general or plugin URL saved while a delivery waits for the old one says that delivery goes there now", async () => {
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    receiver.respond = (r) => (r.path.startsWith("/seed-") ? { status: 200, until: held } : { status: 200 });
    const config = (url: string) =>
      client.post("/dashboard/webhooks/config", {
        enabled: "on",
        notify_api_initiated: "on",
        operations_webhook_url: url,
        timeout_seconds: "2",
        retry_schedule_seconds: "1, 1, 1, 1, 1, 1, 1, 1",
      });
    await client.get("/dashboard/webhooks");
    await config(`${receiver.url}/seed-general`);
    const parent = await paidParent(stack, m);
    await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
    });
    // The refund's webhook is out to the general URL, unanswered: still waiting.
    await receiver.waitFor(1, { path: "/seed-general" });
    const saved = await config(`${receiver.url}/seed-general-new`);
    expect(saved.status, saved.text).toBe(303);
    expect((await client.get(saved.location!)).text).toContain(
      "General webhook configuration saved. 1 delivery still waiting for the old URL goes to the new one now; the rest applies to the next operation.",
    );
    await config("");

    const plugin = (url: string) =>
      client.post("/dashboard/webhooks/plugins/e_commerce", {
        e_commerce_webhook_url: url,
        e_commerce_enabled: "on",
      });
    await plugin(`${receiver.url}/seed-plugin`);
    // The payment's own webhook goes to the plugin's URL.
    await paidParent(stack, m);
    await receiver.waitFor(1, { path: "/seed-plugin" });
    const pluginSaved = await plugin(`${receiver.url}/seed-plugin-new`);
    expect(pluginSaved.status, pluginSaved.text).toBe(303);
    expect((await client.get(pluginSaved.location!)).text).toMatch(
      /plugin saved\. 1 delivery still waiting for its old URL goes to the new one now\./,
    );
    await plugin("");
    answer();
    receiver.respond = () => ({ status: 200 });
  });

  it("deletes only after a confirmation", async () => {
    await client.get("/dashboard/webhooks/endpoints/new");
    const added = await client.post("/dashboard/webhooks/endpoints", {
      url: `${receiver.url}/gone`,
      event_all: "on",
    });
    const id = added.location!.split("/").pop()!;
    await client.get(`/dashboard/webhooks/endpoints/${id}`);
    const ask = await client.post(`/dashboard/webhooks/endpoints/${id}/delete`);
    expect(ask.status).toBe(200);
    expect(ask.text).toContain("Delete this endpoint?");
    expect((await client.get(`/dashboard/webhooks/endpoints/${id}`)).status).toBe(200);
    const done = await client.post(`/dashboard/webhooks/endpoints/${id}/delete`, { confirm: "yes" });
    expect(done.status).toBe(303);
    expect((await client.get(`/dashboard/webhooks/endpoints/${id}`)).status).toBe(404);
  });
  it("a svc listen endpoint is shown as what it is: no URL to edit, its other fields still change", async () => {
    const started = await api(stack, "POST", "/v1/webhooks/listen", {
      auth: apiKey(m.privateKey),
      body: {},
    });
    expect(started.status).toBe(201);
    const id = started.json.endpoint.id as string;
    const list = await client.get("/dashboard/webhooks/endpoints");
    expect(list.text).toContain("No URL: streamed to the CLI while it runs");
    expect(list.text).not.toContain("svc-cli://");
    const page = await client.get(`/dashboard/webhooks/endpoints/${id}`);
    expect(page.text).toContain("Opened by svc listen");
    expect(page.text).not.toContain('name="url"');
    // The form without a URL changes what it shows.
    const changed = await client.post(`/dashboard/webhooks/endpoints/${id}`, {
      description: "Ada laptop",
      event_all: "on",
      enabled: "on",
    });
    expect(changed.status).toBe(303);
    expect((await client.get(changed.location!)).text).toContain("Ada laptop");
    // Through the API a URL is refused, in words that say why.
    const patched = await api(stack, "PATCH", `/v1/webhooks/endpoints/${id}`, {
      auth: apiKey(m.privateKey),
      body: { url: "https://shop.example/hook" },
    });
    expect(patched.status).toBe(422);
    expect(JSON.stringify(patched.json)).toContain("belongs to svc listen");
    expect(
      (await api(stack, "DELETE", `/v1/webhooks/endpoints/${id}`, { auth: apiKey(m.privateKey) })).status,
    ).toBe(204);
  });

  it("replaying a message whose only endpoint is disabled now says so, and sends nothing", async () => {
    const other = await createMerchant(stack);
    const auth = apiKey(other.privateKey);
    await api(stack, "PUT", "/v1/webhooks/config", {
      auth,
      body: { enabled: true, notify_api_initiated: true },
    });
    const created = await api(stack, "POST", "/v1/webhooks/endpoints", {
      auth,
      body: { url: `${receiver.url}/shelved`, event_types: ["operation"] },
    });
    receiver.respond = () => ({ status: 200, body: "ok" });
    const parent = await paidParent(stack, other);
    await api(stack, "POST", "/v1/operations", {
      auth,
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
    });
    const [sent] = await receiver.waitFor(1, { path: "/shelved" });
    const messageId = sent!.headers["webhook-id"]!;
    await expect
      .poll(
        async () => (await api(stack, "GET", `/v1/webhooks/messages/${messageId}`, { auth })).json.status,
        {
          timeout: 10_000,
        },
      )
      .toBe("succeeded");
    await api(stack, "PATCH", `/v1/webhooks/endpoints/${created.json.id}`, {
      auth,
      body: { enabled: false },
    });
    const dashboard = await signedIn(stack, other.admin);
    await dashboard.get("/dashboard/deliveries");
    const replayed = await dashboard.post(`/dashboard/deliveries/${messageId}/replay`);
    expect(replayed.status).toBe(303);
    expect((await dashboard.get("/dashboard/deliveries")).text).toContain(
      "its endpoints are disabled or deleted now, or it goes to their URLs already",
    );
    // A refund while it is disabled is held for it (failed, not sent); replaying every failed
    // delivery leaves it out too, and says so.
    await api(stack, "POST", "/v1/operations", {
      auth,
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
    });
    await dashboard.post("/dashboard/deliveries/replay", {});
    expect((await dashboard.get("/dashboard/deliveries")).text).toContain(
      "No failed delivery is queued again: each of them (1) went to an endpoint that is disabled or deleted now, or its message goes to that URL already.",
    );
    await new Promise((r) => setTimeout(r, 1_000));
    expect(receiver.requests.filter((r) => r.path === "/shelved")).toHaveLength(1);
  });
});
