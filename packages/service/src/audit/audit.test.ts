/**
 * The audit log over real HTTP on both stores: sign-ins (good and bad), money operations from the
 * dashboard (only once confirmed) and the API, settings, endpoints, keys and the secret are each
 * one event with who, what, on what and from where; reads and refused actions are not; the list
 * is the same at GET /v1/audit-events and on the dashboard page, newest first, paged.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient, signedIn } from "../../../../test/support/dashboard.js";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";

describe.each(STORES)("audit log on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack.close();
  });
  const events = async (query = "") =>
    (await api(stack, "GET", `/v1/audit-events${query}`, { auth: apiKey(m.privateKey) })).json;

  it("records who did what, on what, from where — and nothing for reads, refusals or unconfirmed forms", async () => {
    const wrong = new DashboardClient(stack);
    await wrong.signIn(m.admin.username, "not-the-password");
    const client = await signedIn(stack, m.admin);
    const parent = await paidParent(stack, m, "sandbox", { amount: "10.000" });
    await client.get(`/dashboard/payments/${parent.session_id}`);
    const asked = await client.post(`/dashboard/payments/${parent.session_id}/refund`, { amount: "1" });
    expect(asked.text).toContain("Confirm the refund");
    await client.post(`/dashboard/payments/${parent.session_id}/refund`, {
      amount: "1.000",
      confirm: "yes",
      reason: "Damaged in transit",
    });
    // Refused by the rules: nothing done, nothing recorded.
    await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: parent.session_id, amount: "99.000" },
    });
    await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: parent.session_id, amount: "2.000" },
    });
    await api(stack, "GET", `/v1/payments/${parent.session_id}`, { auth: apiKey(m.privateKey) });
    await api(stack, "POST", "/v1/webhooks/endpoints", {
      auth: apiKey(m.privateKey),
      body: { url: "https://crm.example/hooks", enabled: false },
    });
    await client.get("/dashboard/webhooks");
    await client.post("/dashboard/webhooks/secret/rotate", { confirm: "yes" });
    // Written in batches a moment after the answers.
    await expect.poll(async () => (await events()).data.length, { timeout: 5_000 }).toBe(6);
    const got = await events();
    const actions = got.data.map((e: { action: string }) => e.action);
    expect(actions).toEqual([
      "webhooks.secret_rotated",
      "webhooks.endpoint_created",
      "operation.refund",
      "operation.refund",
      "user.signed_in",
      "user.sign_in_failed",
    ]);
    const [rotated, endpoint, apiRefund, dashRefund, signIn] = got.data;
    expect(rotated).toMatchObject({ actor_kind: "user", actor: m.admin.username });
    expect(endpoint).toMatchObject({ actor_kind: "api_key", detail: { url: "https://crm.example/hooks" } });
    expect(endpoint.actor).toMatch(/^sk_…/);
    expect(apiRefund.detail).toMatchObject({ session_id: parent.session_id, amount: "2.000" });
    expect(dashRefund).toMatchObject({
      actor: m.admin.username,
      target: parent.session_id,
      detail: { amount: "1.000", reason: "Damaged in transit" },
    });
    expect(signIn.ip).toBe("127.0.0.1");
    // The dashboard page lists the same, in words.
    const page = await client.get("/dashboard/audit");
    expect(page.text).toContain("Rotated the signing secret");
    expect(page.text).toContain("Failed to sign in");
    expect(page.text).toContain("Amount: <bdi>1.000</bdi>; Reason: <bdi>Damaged in transit</bdi>");
    expect(page.text).toContain("URL: <bdi>https://crm.example/hooks</bdi>; Enabled: <bdi>no</bdi>");
    // In Arabic, the details' names are Arabic too, joined with the Arabic semicolon.
    const arabic = await client.get("/dashboard/audit?lang=ar");
    await client.get("/dashboard/audit?lang=en");
    expect(arabic.text).toContain("المبلغ: <bdi>1.000</bdi>؛ السبب: <bdi>Damaged in transit</bdi>");
  });

  it("records a change once; a refusal, even one answered with a redirect and a notice, is not recorded", async () => {
    const other = await createMerchant(stack);
    const auth = apiKey(other.privateKey);
    const mine = async () =>
      (await api(stack, "GET", "/v1/audit-events", { auth })).json.data as {
        action: string;
        target: string | null;
        detail: Record<string, unknown>;
      }[];
    const client = await signedIn(stack, other.admin);
    const parent = await paidParent(stack, other, "sandbox", { amount: "30.000" });
    await client.get(`/dashboard/payments/${parent.session_id}`);
    const key = /name="idempotency_key" value="(dash_[0-9a-f]{32})"/.exec(
      (await client.post(`/dashboard/payments/${parent.session_id}/refund`, { amount: "12.5" })).text,
    )![1]!;
    const confirmation = { amount: "12.500", confirm: "yes", idempotency_key: key };
    const refunded = await client.post(`/dashboard/payments/${parent.session_id}/refund`, confirmation);
    expect(refunded.status).toBe(303);
    // The confirmation page posted again (back, then submit): refused with a notice, not done again.
    const again = await client.post(`/dashboard/payments/${parent.session_id}/refund`, confirmation);
    expect(again.status).toBe(303);
    expect((await client.get(again.location!)).text).toContain("already submitted");
    // A bulk replay with a date that is not one: refused.
    await client.get("/dashboard/deliveries");
    const replay = await client.post("/dashboard/deliveries/replay", { failed_since: "garbage" });
    expect(replay.status).toBe(303);
    // A test webhook with nowhere to send it: refused.
    await client.get("/dashboard/webhooks");
    const test = await client.post("/dashboard/webhooks/test");
    expect(test.status).toBe(303);
    expect((await client.get(test.location!)).text).toContain("notice error");
    // A disabled endpoint can be neither tested nor replayed to: refused.
    const endpoint = await api(stack, "POST", "/v1/webhooks/endpoints", {
      auth,
      body: { url: "https://crm.example/off", enabled: false },
    });
    const id = endpoint.json.id as string;
    await client.get(`/dashboard/webhooks/endpoints/${id}`);
    for (const action of ["test", "replay"]) {
      const refused = await client.post(`/dashboard/webhooks/endpoints/${id}/${action}`);
      expect(refused.status).toBe(303);
      expect((await client.get(refused.location!)).text).toContain("is disabled");
    }
    // The same API request sent again with its Idempotency-Key gets the stored answer: done once.
    for (let i = 0; i < 2; i++) {
      const r = await api(stack, "POST", "/v1/operations", {
        auth,
        headers: { "idempotency-key": "audit-once-1" },
        body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
      });
      expect(r.status).toBe(200);
    }
    // Something recorded after all of it, so the log has been written when it shows.
    await client.get("/dashboard/sdk");
    await client.post("/dashboard/sdk", { is_enabled: "on" });
    await expect.poll(async () => (await mine())[0]?.action, { timeout: 5_000 }).toBe("sdk.settings_changed");
    const actions = (await mine()).map((e) => e.action);
    expect(actions).toEqual([
      "sdk.settings_changed",
      "operation.refund",
      "webhooks.endpoint_created",
      "operation.refund",
      "user.signed_in",
    ]);
    expect((await mine())[3]).toMatchObject({ target: parent.session_id, detail: { amount: "12.500" } });
  });

  it("records an unchecked box as no: webhooks turned off, an endpoint disabled, SDK reporting off", async () => {
    const other = await createMerchant(stack);
    const auth = apiKey(other.privateKey);
    const client = await signedIn(stack, other.admin);
    await client.get("/dashboard/webhooks");
    // Every box unchecked: the browser sends none of them.
    await client.post("/dashboard/webhooks/config", {
      operations_webhook_url: "https://shop.example/ops",
      timeout_seconds: "10",
      retry_schedule_seconds: "5, 60",
    });
    const endpoint = await api(stack, "POST", "/v1/webhooks/endpoints", {
      auth,
      body: { url: "https://crm.example/on" },
    });
    const id = endpoint.json.id as string;
    await client.get(`/dashboard/webhooks/endpoints/${id}`);
    const disabled = await client.post(`/dashboard/webhooks/endpoints/${id}`, {
      url: "https://crm.example/on",
      event_all: "on",
    });
    expect(disabled.status).toBe(303);
    await client.get("/dashboard/sdk");
    await client.post("/dashboard/sdk", {});
    const events = async () =>
      (await api(stack, "GET", "/v1/audit-events", { auth })).json.data as {
        action: string;
        detail: Record<string, unknown>;
      }[];
    await expect
      .poll(async () => (await events())[0]?.action, { timeout: 5_000 })
      .toBe("sdk.settings_changed");
    const [sdk, changed, , config] = await events();
    expect(sdk!.detail).toEqual({ is_enabled: false });
    expect(changed).toMatchObject({
      action: "webhooks.endpoint_changed",
      detail: { url: "https://crm.example/on", enabled: false, include_metadata: false },
    });
    expect(config).toMatchObject({
      action: "webhooks.config_changed",
      detail: { enabled: false, notify_api_initiated: false, timeout_seconds: "10" },
    });
    const page = (await client.get("/dashboard/audit")).text;
    expect(page).toContain("Error reporting: <bdi>no</bdi>");
    expect(page).toContain("URL: <bdi>https://crm.example/on</bdi>; Enabled: <bdi>no</bdi>");
    const settings = page.slice(page.indexOf("Changed the webhook settings"));
    expect(settings.slice(0, settings.indexOf("</td>"))).toMatch(
      /Enabled: <bdi>no<\/bdi>.*Webhooks for API operations: <bdi>no<\/bdi>/,
    );
  });

  it("pages newest first with next_before", async () => {
    const first = await events("?limit=2");
    expect(first.data).toHaveLength(2);
    expect(first.next_before).toBe(first.data[1].id);
    const second = await events(`?limit=2&before=${first.next_before}`);
    expect(second.data[0].id).toBeLessThan(first.data[1].id);
  });
});
