/**
 * Acceptance: each trigger produces exactly the payload of the contract, delivered signed to
 * the configured destinations, through the real service, sandbox gateway and a loopback receiver.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { api, apiKey, basic, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import {
  configurePlugin,
  configureWebhooks,
  expectedPayloadSignature,
  verifyWithStandardWebhooks,
} from "../../../../test/support/webhooks.js";

const TIMESTAMP_UTC = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const PAYLOAD_KEYS = [
  "amount",
  "is_sandbox",
  "operation",
  "pg_code",
  "pg_response",
  "reference_number",
  "result",
  "session_id",
  "signature",
  "source",
  "success",
  "timestamp_utc",
  "txn",
];

describe.each(STORES)("operation webhook on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    stack = await startStack(store, { queuedDelayMs: 150 });
    m = await createMerchant(stack);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });
  beforeEach(async () => {
    receiver.requests.length = 0;
    receiver.respond = () => ({ status: 200, body: "ok" });
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: `${receiver.url}/general`,
      notify_api_initiated: true,
    });
    await configurePlugin(stack, m, "e_commerce", { webhook_url: null });
  });

  const operate = (body: Record<string, unknown>, auth = apiKey(m.privateKey)) =>
    api(stack, "POST", "/v1/operations", { auth, body });

  async function adminUser() {
    const rows = await stack.db.query<{
      id: number;
      username: string;
      email: string;
      first_name: string;
      last_name: string;
      phone: string | null;
    }>("select id, username, email, first_name, last_name, phone from users where username = $1", [
      m.admin.username,
    ]);
    return rows[0]!;
  }

  function checkCommon(
    // biome-ignore lint/suspicious/noExplicitAny: a received payload is read field by field
    payload: Record<string, any>,
    parent: { session_id: string; order_no: string | null },
  ) {
    expect(payload.signature).toBe(expectedPayloadSignature(payload, m.webhookSecret));
    expect(payload.timestamp_utc).toMatch(TIMESTAMP_UTC);
    expect(payload.session_id).toBe(parent.session_id);
    expect(payload.is_sandbox).toBe(true);
    expect(typeof payload.pg_response).toBe("object");
    expect(payload.reference_number).toMatch(/^ref_/);
    expect(Object.keys(payload.txn).sort()).toEqual([
      "amount",
      "currency_code",
      "order_no",
      "session_id",
      "state",
    ]);
    expect(payload.txn.session_id).not.toBe(parent.session_id);
  }

  it("API with a private key: the payload of the contract, no initiator, verified by standardwebhooks", async () => {
    const parent = await paidParent(stack, m, "sandbox", { order_no: `key-${Date.now()}` });
    const r = await operate({ operation: "refund", session_id: parent.session_id, amount: "2.500" });
    expect(r.status).toBe(200);
    const [delivered] = await receiver.waitFor(1);
    expect(delivered!.path).toBe("/general");
    expect(delivered!.json).toEqual(r.json);
    const payload = delivered!.json;
    expect(Object.keys(payload).sort()).toEqual([...PAYLOAD_KEYS, "order_no"].sort());
    expect(payload).toMatchObject({
      amount: "2.500",
      operation: "refund",
      order_no: parent.order_no,
      pg_code: m.pg.sandbox,
      result: "success",
      success: true,
      source: "input",
      txn: { amount: "2.500", currency_code: "KWD", order_no: parent.order_no, state: "refunded" },
    });
    expect(payload).not.toHaveProperty("initiator");
    checkCommon(payload, parent);
    expect(verifyWithStandardWebhooks(delivered!, m.webhookSecret)).toEqual(payload);
    expect(delivered!.headers["webhook-id"]).toMatch(/^msg_/);
    expect(delivered!.headers["content-type"]).toBe("application/json");
  });

  it("API with Basic auth: the user is the initiator; order_no is omitted when the parent has none", async () => {
    const parent = await paidParent(stack, m);
    const r = await operate(
      { operation: "refund", session_id: parent.session_id, amount: "1.000" },
      basic(m.admin),
    );
    expect(r.status).toBe(200);
    const [delivered] = await receiver.waitFor(1);
    const payload = delivered!.json;
    const user = await adminUser();
    expect(payload.initiator).toEqual({
      id: Number(user.id),
      first_name: "Ada",
      last_name: "Admin",
      username: user.username,
      email: user.email,
    });
    expect(payload).not.toHaveProperty("order_no");
    expect(payload.txn.order_no).toBe(payload.reference_number);
    expect(payload.source).toBe("input");
    checkCommon(payload, parent);
    verifyWithStandardWebhooks(delivered!, m.webhookSecret);
  });

  it("dashboard service: source input with the user as initiator", async () => {
    const parent = await paidParent(stack, m, "authorize", { order_no: `dash-${Date.now()}` });
    const user = await adminUser();
    const result = await stack.service.app.services.operations.perform({
      merchantId: m.id,
      via: "dashboard",
      initiator: user,
      operation: "capture",
      sessionId: parent.session_id,
      amount: "4.000",
    });
    expect(result.status).toBe(200);
    const [delivered] = await receiver.waitFor(1);
    const payload = delivered!.json;
    expect(payload).toEqual(result.payload);
    expect(payload).toMatchObject({
      operation: "capture",
      result: "success",
      source: "input",
      initiator: { id: Number(user.id), username: user.username, email: user.email },
      txn: { state: "paid", amount: "4.000" },
    });
    checkCommon(payload, parent);
  });

  it("gateway relay: an operation on the gateway's own dashboard arrives with source pg and no initiator", async () => {
    const parent = await paidParent(stack, m, "sandbox", { order_no: `pg-${Date.now()}` });
    const [row] = await stack.db.query<{ pg_reference: string }>(
      "select pg_reference from transactions where session_id = $1",
      [parent.session_id],
    );
    const done = await fetch(`${stack.gatewayUrl}/dashboard/operations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pg_reference: row!.pg_reference, operation: "refund", amount: "3.000" }),
    });
    expect(done.status).toBe(200);
    const [delivered] = await receiver.waitFor(1);
    const payload = delivered!.json;
    expect(payload).toMatchObject({
      amount: "3.000",
      operation: "refund",
      order_no: parent.order_no,
      result: "success",
      success: true,
      source: "pg",
      txn: { state: "refunded", order_no: parent.order_no },
    });
    expect(payload).not.toHaveProperty("initiator");
    checkCommon(payload, parent);
    const status = await api(stack, "GET", `/v1/payments/${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    expect(status.json.transactions).toMatchObject([{ source: "pg", state: "refunded", amount: "3.000" }]);
  });

  it("queued: queued then success, in that order, at the same URL with the same reference_number", async () => {
    const parent = await paidParent(stack, m, "queued");
    const r = await operate(
      { operation: "refund", session_id: parent.session_id, amount: "2.000" },
      basic(m.admin),
    );
    expect(r.status).toBe(202);
    const [first, second] = await receiver.waitFor(2);
    expect(first!.json).toMatchObject({ result: "queued", success: false, txn: { state: "refund_queued" } });
    expect(second!.json).toMatchObject({ result: "success", success: true, txn: { state: "refunded" } });
    expect(first!.path).toBe(second!.path);
    expect(second!.json.reference_number).toBe(first!.json.reference_number);
    expect(second!.json.txn.session_id).toBe(first!.json.txn.session_id);
    // The final result keeps the queued one's source and initiator.
    expect(second!.json.initiator).toEqual(first!.json.initiator);
    expect(second!.json.source).toBe("input");
    checkCommon(second!.json, parent);
  });

  it("queued with the decline amount: queued then rejected", async () => {
    const parent = await paidParent(stack, m, "queued");
    const r = await operate({ operation: "refund", session_id: parent.session_id, amount: "1.013" });
    expect(r.status).toBe(202);
    const [first, second] = await receiver.waitFor(2);
    expect(first!.json.result).toBe("queued");
    expect(second!.json).toMatchObject({
      result: "rejected",
      success: false,
      txn: { state: "refund_rejected" },
    });
    expect(second!.json.reference_number).toBe(first!.json.reference_number);
    const status = await api(stack, "GET", `/v1/payments/${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    expect(status.json.refundable_amount).toBe("10.500");
  });

  it("a declined operation sends nothing", async () => {
    const parent = await paidParent(stack, m);
    const r = await operate({ operation: "refund", session_id: parent.session_id, amount: "1.013" });
    expect(r.status).toBe(402);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests).toHaveLength(0);
    const listed = await api(stack, "GET", `/v1/webhooks/messages?session_id=${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    expect(listed.json.messages).toEqual([]);
  });

  it("the gate: notify_api_initiated off → API parents and API operations send nothing; dashboard ones still do", async () => {
    await configureWebhooks(stack, m, { notify_api_initiated: false });
    const apiParent = await paidParent(stack, m);
    expect(
      (await operate({ operation: "refund", session_id: apiParent.session_id, amount: "1.000" })).status,
    ).toBe(200);
    const user = await adminUser();
    // A dashboard operation on an API-created parent is gated too.
    await stack.service.app.services.operations.perform({
      merchantId: m.id,
      via: "dashboard",
      initiator: user,
      operation: "refund",
      sessionId: apiParent.session_id,
      amount: "1.000",
    });
    const dashParent = await dashboardParent();
    // An operations-API operation on a dashboard parent is gated.
    expect((await operate({ operation: "refund", session_id: dashParent, amount: "1.000" })).status).toBe(
      200,
    );
    const dash = await stack.service.app.services.operations.perform({
      merchantId: m.id,
      via: "dashboard",
      initiator: user,
      operation: "refund",
      sessionId: dashParent,
      amount: "2.000",
    });
    const delivered = await receiver.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests).toHaveLength(1);
    expect(delivered[0]!.json.reference_number).toBe(dash.payload.reference_number);
  });

  it("both destinations get one delivery each; the same URL twice gets one; enabled off sends nothing", async () => {
    const parent = await paidParent(stack, m);
    // Set after the payment: the plugin URL also receives the payment webhook.
    await configurePlugin(stack, m, "e_commerce", { webhook_url: `${receiver.url}/plugin` });
    await operate({ operation: "refund", session_id: parent.session_id, amount: "1.000" });
    const both = await receiver.waitFor(2);
    expect(both.map((r) => r.path).sort()).toEqual(["/general", "/plugin"]);
    expect(both[0]!.headers["webhook-id"]).toBe(both[1]!.headers["webhook-id"]);
    expect(both[0]!.body).toBe(both[1]!.body);

    receiver.requests.length = 0;
    await configurePlugin(stack, m, "e_commerce", { webhook_url: `${receiver.url}/general` });
    await operate({ operation: "refund", session_id: parent.session_id, amount: "1.000" });
    await receiver.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests).toHaveLength(1);

    receiver.requests.length = 0;
    await configureWebhooks(stack, m, { enabled: false });
    await operate({ operation: "refund", session_id: parent.session_id, amount: "1.000" });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests).toHaveLength(0);
  });

  /** A parent created by the dashboard (created_via "dashboard"), paid with wallet A. */
  async function dashboardParent(): Promise<string> {
    const created = await stack.service.app.services.checkout.create(
      m.id,
      { type: "e_commerce", pg_codes: [m.pg.sandbox], amount: "10.500", currency_code: "KWD" },
      "dashboard",
    );
    const r = await api(stack, "POST", `/v1/checkout/${created.session_id}/payments`, {
      auth: apiKey(m.publicKey),
      body: { form_of_payment: "wallet_a_pay", pg_code: m.pg.sandbox, payment_token: "tok" },
    });
    expect(r.status).toBe(200);
    return created.session_id;
  }
});
