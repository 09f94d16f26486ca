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

  it("pages newest first with next_before", async () => {
    const first = await events("?limit=2");
    expect(first.data).toHaveLength(2);
    expect(first.next_before).toBe(first.data[1].id);
    const second = await events(`?limit=2&before=${first.next_before}`);
    expect(second.data[0].id).toBeLessThan(first.data[1].id);
  });
});
