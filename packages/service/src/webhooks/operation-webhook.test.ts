/**
 * Acceptance: each trigger produces exactly the payload of the contract, delivered signed to
 * the configured destinations, through the real service, sandbox gateway and a loopback receiver.
 * Every expected value comes from the test's side: what it asked for, the users it created, the
 * sandbox gateway's own ledger (reference numbers, gateway operation ids) and the stored child.
 */
import { verifyWebhook } from "@svc/webhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { signedIn } from "../../../../test/support/dashboard.js";
import {
  api,
  apiKey,
  basic,
  bearer,
  createMerchant,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import {
  checkOperationDelivery,
  type ExpectedOperation,
} from "../../../../test/support/operation-payload.js";
import { paidParent, sandboxLedger } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configurePlugin, configureWebhooks } from "../../../../test/support/webhooks.js";

/** The sandbox's reason for an amount ending in 13 (sandbox.md's decline test value). */
const DECLINE_REASON = "amount ends in 13 (sandbox test value for a decline)";

describe.each(STORES)("operation webhook on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  /** A sandbox-queued gateway setting in authorize mode (queued capture and void). */
  let queuedAuthorize: string;
  /** A Basic-auth user with a phone and a first name only. */
  const clerk = {
    username: `clerk-${Date.now()}`,
    password: "clerk-password-long-enough",
    first_name: "Bo",
    phone: "+965 5000 1234",
  };
  beforeAll(async () => {
    stack = await startStack(store, { queuedDelayMs: 150 });
    m = await createMerchant(stack);
    receiver = await startReceiver();
    queuedAuthorize = `queued-auth-${Date.now()}`;
    const gateway = await api(stack, "POST", `/v1/admin/merchants/${m.id}/gateways`, {
      auth: bearer,
      body: { pg_code: queuedAuthorize, kind: "sandbox-queued", operation: "authorize", currencies: ["KWD"] },
    });
    expect(gateway.status).toBe(201);
    const user = await api(stack, "POST", `/v1/admin/merchants/${m.id}/users`, {
      auth: bearer,
      body: {
        ...clerk,
        email: `${clerk.username}@example.com`,
        permissions: ["payment.refund", "payment.capture", "payment.void"],
      },
    });
    expect(user.status).toBe(201);
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
    await configurePlugin(stack, m, "e_commerce", { webhook_url: null, enabled: true });
  });

  const operate = (body: Record<string, unknown>, auth = apiKey(m.privateKey)) =>
    api(stack, "POST", "/v1/operations", { auth, body });

  async function userId(username: string): Promise<number> {
    const rows = await stack.db.query<{ id: number }>("select id from users where username = $1", [username]);
    return Number(rows[0]!.id);
  }
  /** The initiator of an operation by the merchant's admin (first and last name, no phone). */
  const adminInitiator = async () => ({
    id: await userId(m.admin.username),
    first_name: "Ada",
    last_name: "Admin",
    username: m.admin.username,
    email: `${m.admin.username}@example.com`,
  });
  /** The initiator of an operation by the clerk (no last name, a phone). */
  const clerkInitiator = async () => ({
    id: await userId(clerk.username),
    first_name: clerk.first_name,
    username: clerk.username,
    email: `${clerk.username}@example.com`,
    phone: clerk.phone,
  });
  /** The stored child of an operation the sandbox recorded (by reference or gateway operation id). */
  async function child(by: { reference?: string; gatewayOperationId?: string }) {
    const rows = await stack.db.query<{ session_id: string; reference_number: string }>(
      by.reference
        ? "select session_id, reference_number from operations where reference_number = $1"
        : "select session_id, reference_number from operations where gateway_operation_id = $1",
      [by.reference ?? by.gatewayOperationId],
    );
    expect(rows).toHaveLength(1);
    return rows[0]!;
  }
  /** The one operation the sandbox recorded on the parent, and svc's child of it. */
  async function onlyOperation(parentSessionId: string) {
    const ledger = await sandboxLedger(stack, parentSessionId);
    expect(ledger).toHaveLength(1);
    const op = ledger[0]!;
    const stored = await child(
      op.reference_number
        ? { reference: op.reference_number }
        : { gatewayOperationId: op.gateway_operation_id },
    );
    if (op.reference_number) expect(stored.reference_number).toBe(op.reference_number);
    return { op, referenceNumber: stored.reference_number, childSessionId: stored.session_id };
  }
  const sandboxResponse = (gatewayOperationId: string, result: "SUCCESS" | "QUEUED") => ({
    result,
    gateway_operation_id: gatewayOperationId,
    is_sandbox: true,
  });

  it("API with a private key: the payload of the contract, no initiator, verified by standardwebhooks", async () => {
    const parent = await paidParent(stack, m, "sandbox", { order_no: `key-${Date.now()}` });
    const fromMs = Date.now();
    const r = await operate({ operation: "refund", session_id: parent.session_id, amount: "2.500" });
    const toMs = Date.now();
    expect(r.status).toBe(200);
    const [delivered] = await receiver.waitFor(1);
    expect(delivered!.path).toBe("/general");
    const { op, referenceNumber, childSessionId } = await onlyOperation(parent.session_id);
    expect(op).toMatchObject({ operation: "refund", amount: "2.500", source: "api", status: "success" });
    checkOperationDelivery(
      delivered!,
      {
        parent,
        operation: "refund",
        amount: "2.500",
        result: "success",
        state: "refunded",
        source: "input",
        pgCode: m.pg.sandbox,
        referenceNumber,
        childSessionId,
        pgResponse: sandboxResponse(op.gateway_operation_id, "SUCCESS"),
      },
      m.webhookSecret,
      { fromMs, toMs },
    );
    // The API's answer is the payload the webhook carries.
    expect(r.json).toStrictEqual(delivered!.json);
    const parsed = await verifyWebhook(
      delivered!.body,
      delivered!.headers as Record<string, string>,
      m.webhookSecret,
    );
    expect(parsed).toMatchObject({ type: "operation", payload: { reference_number: referenceNumber } });
  });

  it("API with Basic auth: the user is the initiator (first name and phone, no last name); order_no is omitted when the parent has none", async () => {
    const parent = await paidParent(stack, m);
    expect(parent.order_no).toBeNull();
    const fromMs = Date.now();
    const r = await operate(
      { operation: "refund", session_id: parent.session_id, amount: "1.000" },
      basic(clerk),
    );
    const toMs = Date.now();
    expect(r.status).toBe(200);
    const [delivered] = await receiver.waitFor(1);
    expect(delivered!.path).toBe("/general");
    const { op, referenceNumber, childSessionId } = await onlyOperation(parent.session_id);
    checkOperationDelivery(
      delivered!,
      {
        parent,
        operation: "refund",
        amount: "1.000",
        result: "success",
        state: "refunded",
        source: "input",
        pgCode: m.pg.sandbox,
        initiator: await clerkInitiator(),
        referenceNumber,
        childSessionId,
        pgResponse: sandboxResponse(op.gateway_operation_id, "SUCCESS"),
      },
      m.webhookSecret,
      { fromMs, toMs },
    );
    expect(r.json).toStrictEqual(delivered!.json);
  });

  it("a user whose name is 32 emoji (the limit, in characters): the refund answers 200 and its webhook carries the name whole", async () => {
    const emoji = {
      username: `emoji-${Date.now()}`,
      password: "emoji-password-long-enough",
      first_name: `a${"😀".repeat(31)}`, // 32 characters, 63 UTF-16 units
      last_name: "🙂".repeat(32),
    };
    const created = await api(stack, "POST", `/v1/admin/merchants/${m.id}/users`, {
      auth: bearer,
      body: { ...emoji, email: `${emoji.username}@example.com`, permissions: ["payment.refund"] },
    });
    expect(created.status).toBe(201);
    const parent = await paidParent(stack, m);
    const r = await operate(
      { operation: "refund", session_id: parent.session_id, amount: "1.000" },
      basic(emoji),
    );
    // It once answered 500 "nothing was changed" after the gateway had refunded: cut to 32 UTF-16
    // units, the name ended in half an emoji, which no JSON signature can take.
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const [delivered] = await receiver.waitFor(1);
    const event = await verifyWebhook(
      delivered!.body,
      delivered!.headers as Record<string, string>,
      m.webhookSecret,
    );
    expect(event.type === "operation" && event.payload.initiator).toMatchObject({
      first_name: emoji.first_name,
      last_name: emoji.last_name,
    });
    expect(r.json.initiator).toMatchObject({ first_name: emoji.first_name });
  });

  it("dashboard (its capture form over HTTP): source input with the signed-in user as initiator", async () => {
    const parent = await paidParent(stack, m, "authorize", { order_no: `dash-${Date.now()}` });
    const client = await signedIn(stack, m.admin);
    await client.get(`/dashboard/payments/${parent.session_id}`);
    const fromMs = Date.now();
    const done = await client.post(`/dashboard/payments/${parent.session_id}/capture`, {
      amount: "4.000",
      confirm: "yes",
    });
    const toMs = Date.now();
    expect(done.status).toBe(303);
    const [delivered] = await receiver.waitFor(1);
    expect(delivered!.path).toBe("/general");
    const { op, referenceNumber, childSessionId } = await onlyOperation(parent.session_id);
    expect(op).toMatchObject({ operation: "capture", amount: "4.000", status: "success" });
    checkOperationDelivery(
      delivered!,
      {
        parent,
        operation: "capture",
        amount: "4.000",
        result: "success",
        state: "paid",
        source: "input",
        pgCode: m.pg.authorize,
        initiator: await adminInitiator(),
        referenceNumber,
        childSessionId,
        pgResponse: sandboxResponse(op.gateway_operation_id, "SUCCESS"),
      },
      m.webhookSecret,
      { fromMs, toMs },
    );
  });

  it("gateway relay: an operation on the gateway's own dashboard arrives with source pg and no initiator", async () => {
    const parent = await paidParent(stack, m);
    const [row] = await stack.db.query<{ pg_reference: string }>(
      "select pg_reference from transactions where session_id = $1",
      [parent.session_id],
    );
    const fromMs = Date.now();
    const done = await fetch(`${stack.gatewayUrl}/dashboard/operations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pg_reference: row!.pg_reference, operation: "refund", amount: "3.000" }),
    });
    expect(done.status).toBe(200);
    const answer = (await done.json()) as { gateway_operation_id: string };
    const [delivered] = await receiver.waitFor(1);
    const toMs = Date.now();
    expect(delivered!.path).toBe("/general");
    const { op, referenceNumber, childSessionId } = await onlyOperation(parent.session_id);
    expect(op).toMatchObject({ gateway_operation_id: answer.gateway_operation_id, source: "dashboard" });
    checkOperationDelivery(
      delivered!,
      {
        parent,
        operation: "refund",
        amount: "3.000",
        result: "success",
        state: "refunded",
        source: "pg",
        pgCode: m.pg.sandbox,
        referenceNumber,
        childSessionId,
        pgResponse: sandboxResponse(answer.gateway_operation_id, "SUCCESS"),
      },
      m.webhookSecret,
      { fromMs, toMs },
    );
    const status = await api(stack, "GET", `/v1/payments/${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    expect(status.json.transactions).toMatchObject([{ source: "pg", state: "refunded", amount: "3.000" }]);
  });

  describe("queued operations: the queued notice, then the final result at the same URL", () => {
    const CASES = [
      // remaining: what the merchant can still act on afterwards (a rejection gives the amount back).
      {
        operation: "refund",
        amount: "2.000",
        final: "success",
        state: "refunded",
        by: "clerk",
        remaining: "8.500",
      },
      {
        operation: "refund",
        amount: "1.013",
        final: "rejected",
        state: "refund_rejected",
        by: "key",
        remaining: "10.500",
      },
      {
        operation: "capture",
        amount: "4.000",
        final: "success",
        state: "paid",
        by: "key",
        remaining: "10.500",
      },
      {
        operation: "capture",
        amount: "1.013",
        final: "rejected",
        state: "capture_rejected",
        by: "clerk",
        remaining: "10.500",
      },
      // A void always takes the whole authorization: the parent's amount decides the outcome.
      {
        operation: "void",
        amount: "10.500",
        final: "success",
        state: "voided",
        by: "clerk",
        remaining: "0.000",
      },
      {
        operation: "void",
        amount: "10.013",
        final: "rejected",
        state: "void_rejected",
        by: "key",
        remaining: "10.013",
      },
    ] as const;

    it.each(CASES)("$operation of $amount → queued, then $final ($state), by $by", async (c) => {
      const authorize = c.operation !== "refund";
      const withOrderNo = c.by === "key";
      const parent = await paidParent(stack, m, "queued", {
        ...(authorize ? { pg_codes: [queuedAuthorize] } : {}),
        ...(c.operation === "void" ? { amount: c.amount } : {}),
        ...(withOrderNo ? { order_no: `q-${c.operation}-${Date.now()}` } : {}),
      });
      const fromMs = Date.now();
      const r = await operate(
        {
          operation: c.operation,
          session_id: parent.session_id,
          ...(c.operation === "void" ? {} : { amount: c.amount }),
        },
        c.by === "clerk" ? basic(clerk) : apiKey(m.privateKey),
      );
      const answeredMs = Date.now();
      expect(r.status).toBe(202);
      const [queued, final] = await receiver.waitFor(2);
      const toMs = Date.now();
      expect([queued!.path, final!.path]).toEqual(["/general", "/general"]);
      const { op, referenceNumber, childSessionId } = await onlyOperation(parent.session_id);
      expect(op).toMatchObject({ operation: c.operation, amount: c.amount, status: c.final });
      const common: Omit<ExpectedOperation, "result" | "state" | "pgResponse"> = {
        parent,
        operation: c.operation,
        amount: c.amount,
        source: "input",
        pgCode: authorize ? queuedAuthorize : m.pg.queued,
        initiator: c.by === "clerk" ? await clerkInitiator() : undefined,
        referenceNumber,
        childSessionId,
      };
      checkOperationDelivery(
        queued!,
        {
          ...common,
          result: "queued",
          state: `${c.operation}_queued`,
          pgResponse: sandboxResponse(op.gateway_operation_id, "QUEUED"),
        },
        m.webhookSecret,
        { fromMs, toMs: answeredMs },
      );
      expect(r.json).toStrictEqual(queued!.json);
      // The final result keeps the queued one's source and initiator; its time is the result's.
      checkOperationDelivery(
        final!,
        {
          ...common,
          result: c.final,
          state: c.state,
          pgResponse:
            c.final === "success"
              ? sandboxResponse(op.gateway_operation_id, "SUCCESS")
              : {
                  result: "DECLINED",
                  reason: DECLINE_REASON,
                  gateway_operation_id: op.gateway_operation_id,
                  is_sandbox: true,
                },
        },
        m.webhookSecret,
        { fromMs, toMs },
      );
      expect(final!.json.timestamp_utc >= queued!.json.timestamp_utc).toBe(true);
      expect(final!.headers["webhook-id"]).not.toBe(queued!.headers["webhook-id"]);
      const status = await api(stack, "GET", `/v1/payments/${parent.session_id}`, {
        auth: apiKey(m.privateKey),
      });
      expect(status.json.transactions).toMatchObject([{ session_id: childSessionId, state: c.state }]);
      expect(status.json.remaining_amount).toBe(c.remaining);
    });
  });

  it("a declined operation sends nothing", async () => {
    const parent = await paidParent(stack, m);
    const r = await operate({ operation: "refund", session_id: parent.session_id, amount: "1.013" });
    expect(r.status).toBe(402);
    // What was stored is what will ever be sent.
    expect(await storedMessages(parent.session_id)).toEqual([]);
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
    expect(delivered[0]!.json.reference_number).toBe(dash.payload.reference_number);
    expect(await storedMessages(apiParent.session_id)).toEqual([]);
    expect((await storedMessages(dashParent)).map((x) => x.reference_number)).toEqual([
      dash.payload.reference_number,
    ]);
  });

  it("both destinations get one delivery each; the same URL twice gets one; enabled off sends nothing", async () => {
    const parent = await paidParent(stack, m);
    // Set after the payment, so no payment webhook goes there: only operation webhooks follow.
    await configurePlugin(stack, m, "e_commerce", { webhook_url: `${receiver.url}/plugin` });
    await operate({ operation: "refund", session_id: parent.session_id, amount: "1.000" });
    const both = await receiver.waitFor(2);
    expect(both.map((r) => r.path).sort()).toEqual(["/general", "/plugin"]);
    expect(both[0]!.headers["webhook-id"]).toBe(both[1]!.headers["webhook-id"]);
    expect(both[0]!.body).toBe(both[1]!.body);

    receiver.requests.length = 0;
    await configurePlugin(stack, m, "e_commerce", { webhook_url: `${receiver.url}/general` });
    const same = await operate({ operation: "refund", session_id: parent.session_id, amount: "1.000" });
    await receiver.waitFor(1);
    const [sameMessage] = await storedMessages(parent.session_id);
    expect(sameMessage!.reference_number).toBe(same.json.reference_number);
    expect(sameMessage!.deliveries.map((d) => d.url)).toEqual([`${receiver.url}/general`]);

    await configureWebhooks(stack, m, { enabled: false });
    const off = await operate({ operation: "refund", session_id: parent.session_id, amount: "1.000" });
    expect(off.status).toBe(200);
    const references = (await storedMessages(parent.session_id)).map((x) => x.reference_number);
    expect(references).toHaveLength(2); // the two refunds above
    expect(references).not.toContain(off.json.reference_number);
  });

  it("a disabled plugin's webhook_url gets no operation webhook (nor the payment webhook); enabling it adds it back", async () => {
    await configurePlugin(stack, m, "e_commerce", { webhook_url: `${receiver.url}/plugin`, enabled: false });
    const parent = await paidParent(stack, m);
    await operate({ operation: "refund", session_id: parent.session_id, amount: "1.000" });
    const [delivered] = await receiver.waitFor(1);
    expect(delivered!.path).toBe("/general");
    // What was stored is what will ever be sent: one message, one delivery, to the general URL.
    const stored = await storedMessages(parent.session_id);
    expect(stored.map((x) => x.kind)).toEqual(["operation"]);
    expect(stored[0]!.deliveries.map((d) => d.url)).toEqual([`${receiver.url}/general`]);

    await configurePlugin(stack, m, "e_commerce", { enabled: true });
    await operate({ operation: "refund", session_id: parent.session_id, amount: "1.000" });
    const both = (await receiver.waitFor(3)).slice(1);
    expect(both.map((r) => r.path).sort()).toEqual(["/general", "/plugin"]);
  });

  /** The parent's messages as stored (newest first): what will ever be sent, and where. */
  async function storedMessages(sessionId: string) {
    const r = await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, {
      auth: apiKey(m.privateKey),
    });
    expect(r.status).toBe(200);
    return r.json.messages as {
      kind: string;
      reference_number: string | null;
      deliveries: { url: string }[];
    }[];
  }

  /** The admin as the dashboard's session holds it (the service's initiator input). */
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
