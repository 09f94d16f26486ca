/**
 * Gateway notifications: authenticated by the setting's secret, each applied once; the final
 * result of a queued operation goes where its queued notice went.
 *
 * The sandbox's own final result of a queued operation is set to come long after any test here
 * (QUEUED_NEVER_MS): each test sends the result it needs itself, signed as the sandbox signs, so
 * what happens between the queued answer and the result is in the test's hands.
 */
import { randomUUID } from "node:crypto";
import { newId } from "@svc/protocol";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import {
  postSandboxNotification,
  pgReferenceOf as referenceOf,
} from "../../../../test/support/gateway-notifications.js";
import { checkOperationDelivery } from "../../../../test/support/operation-payload.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { GATEWAY_SECRET, type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import {
  configurePlugin,
  configureWebhooks,
  expectedPayloadSignature,
  verifyWithStandardWebhooks,
} from "../../../../test/support/webhooks.js";
import { operationsRepo } from "../operations/operations.repo.js";
import { sandboxSettingSecret, signSandboxPayload } from "./sandbox/signature.js";

const QUEUED_NEVER_MS = 10 * 60_000;
const HOUR_MS = 3600_000;

describe.each(STORES)("gateway notifications on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    stack = await startStack(store, { queuedDelayMs: QUEUED_NEVER_MS });
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
      operations_webhook_url: `${receiver.url}/ops`,
      notify_api_initiated: true,
    });
    await configurePlugin(stack, m, "e_commerce", { webhook_url: null, enabled: true });
  });

  const pgReferenceOf = (sessionId: string) => referenceOf(stack.db, sessionId);
  /** Posts a notification with `signature` (none when undefined). */
  const notify = (pgCode: string, body: string, signature?: string) =>
    postSandboxNotification(stack, pgCode, body, signature ?? null);
  const signed = (pgCode: string, body: string) => postSandboxNotification(stack, pgCode, body);
  const children = async (sessionId: string, merchant = m) =>
    (await api(stack, "GET", `/v1/payments/${sessionId}`, { auth: apiKey(merchant.privateKey) })).json
      .transactions;
  const messagesOf = async (sessionId: string, merchant = m) =>
    (
      await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, {
        auth: apiKey(merchant.privateKey),
      })
    ).json.messages as { result: string; deliveries: { url: string }[] }[];

  /** A queued refund through the operations API (202); the sandbox's own result never comes. */
  async function queuedRefund(merchant = m, amount = "1.000") {
    const parent = await paidParent(stack, merchant, "queued");
    const r = await api(stack, "POST", "/v1/operations", {
      auth: apiKey(merchant.privateKey),
      body: { operation: "refund", session_id: parent.session_id, amount },
    });
    expect(r.status).toBe(202);
    return { parent, queued: r.json };
  }
  /** The body of an operation_result notification, as the sandbox writes one. */
  async function resultBody(
    parentSessionId: string,
    referenceNumber: string,
    status: "success" | "rejected",
    notificationId = `ntf_test_${randomUUID()}`,
  ) {
    return JSON.stringify({
      type: "operation_result",
      notification_id: notificationId,
      created_at: new Date().toISOString(),
      is_sandbox: true,
      reference_number: referenceNumber,
      pg_reference: await pgReferenceOf(parentSessionId),
      operation: "refund",
      status,
      pg_response: { result: status === "success" ? "SUCCESS" : "DECLINED", is_sandbox: true },
    });
  }

  it("a gateway-dashboard operation delivered twice is applied once and sends one webhook", async () => {
    const parent = await paidParent(stack, m);
    const body = JSON.stringify({
      type: "operation",
      notification_id: `ntf_test_${Date.now()}`,
      created_at: new Date().toISOString(),
      is_sandbox: true,
      operation: "refund",
      pg_reference: await pgReferenceOf(parent.session_id),
      gateway_operation_id: `op_test_${Date.now()}`,
      amount: "2.000",
      currency: "KWD",
      pg_response: { result: "SUCCESS" },
    });
    const first = await signed(m.pg.sandbox, body);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true, outcome: "applied" });
    const again = await signed(m.pg.sandbox, body);
    expect(await again.json()).toEqual({ received: true, outcome: "duplicate" });
    // The same gateway operation under a new notification id is still one child.
    const renamed = body.replace(/ntf_test_\d+/, "ntf_other");
    const third = await signed(m.pg.sandbox, renamed);
    expect(await third.json()).toEqual({ received: true, outcome: "duplicate" });
    expect(await children(parent.session_id)).toHaveLength(1);
    await receiver.waitFor(1);
    expect(await messagesOf(parent.session_id)).toHaveLength(1);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.json).toMatchObject({ source: "pg", amount: "2.000" });
  });

  it("a signed notification that reports nonsense (unknown currency, a NUL) is 422 naming the field, and changes nothing", async () => {
    const parent = await paidParent(stack, m);
    const pgReference = await pgReferenceOf(parent.session_id);
    const body = (fields: Record<string, string>) =>
      JSON.stringify({
        type: "operation",
        notification_id: `ntf_nonsense_${randomUUID()}`,
        created_at: new Date().toISOString(),
        operation: "refund",
        pg_reference: pgReference,
        gateway_operation_id: `op_nonsense_${randomUUID()}`,
        amount: "1.000",
        currency: "KWD",
        pg_response: {},
        ...fields,
      });
    // Each was a 500 (a currency svc has no exponent for; a NUL PostgreSQL refuses).
    for (const [fields, named] of [
      [{ currency: "XXX" }, "currency"],
      [{ currency: "kwd" }, "currency"],
      [{ currency: "__proto__" }, "currency"],
      [{ pg_reference: `${pgReference}\u0000` }, "pg_reference"],
      [{ gateway_operation_id: "op\u0000x" }, "gateway_operation_id"],
    ] as const) {
      const r = await signed(m.pg.sandbox, body(fields));
      const answer = await r.json();
      expect([r.status, answer.code], JSON.stringify(fields)).toEqual([422, "validation_failed"]);
      expect(answer.detail).toContain(named);
    }
    expect(await children(parent.session_id)).toEqual([]);
  });

  it("an unauthenticated or wrongly signed notification is 401 and changes nothing", async () => {
    const parent = await paidParent(stack, m);
    const body = JSON.stringify({
      type: "operation",
      notification_id: `ntf_forged_${Date.now()}`,
      created_at: new Date().toISOString(),
      is_sandbox: true,
      operation: "refund",
      pg_reference: await pgReferenceOf(parent.session_id),
      gateway_operation_id: `op_forged_${Date.now()}`,
      amount: "2.000",
      currency: "KWD",
      pg_response: {},
    });
    const unsigned = await notify(m.pg.sandbox, body);
    expect(unsigned.status).toBe(401);
    const forged = await notify(m.pg.sandbox, body, signSandboxPayload("not-the-secret", body));
    expect(forged.status).toBe(401);
    expect((await forged.json()).code).toBe("invalid_signature");
    // Each setting has its own secret: neither another setting's nor the sandbox's master verifies.
    for (const secret of [sandboxSettingSecret(GATEWAY_SECRET, m.pg.authorize), GATEWAY_SECRET]) {
      const otherSetting = await notify(m.pg.sandbox, body, signSandboxPayload(secret, body));
      expect(otherSetting.status).toBe(401);
    }
    const tampered = await notify(
      m.pg.sandbox,
      body.replace('"2.000"', '"9.000"'),
      signSandboxPayload(sandboxSettingSecret(GATEWAY_SECRET, m.pg.sandbox), body),
    );
    expect(tampered.status).toBe(401);
    expect(await children(parent.session_id)).toEqual([]);
    const unknown = await notify("no-such-pg", body, signSandboxPayload(GATEWAY_SECRET, body));
    expect(unknown.status).toBe(404);
    expect(await messagesOf(parent.session_id)).toEqual([]);
  });

  it("a late, contradicting final result does not change a finished child: it is a discrepancy for an operator", async () => {
    const { parent, queued } = await queuedRefund();
    const done = await signed(
      m.pg.queued,
      await resultBody(parent.session_id, queued.reference_number, "success"),
    );
    expect(await done.json()).toEqual({ received: true, outcome: "applied" });
    await receiver.waitFor(2);
    const late = await signed(
      m.pg.queued,
      await resultBody(parent.session_id, queued.reference_number, "rejected"),
    );
    expect(await late.json()).toEqual({ received: true, outcome: "discrepancy" });
    expect(await children(parent.session_id)).toMatchObject([{ state: "refunded" }]);
    const listed = await api(stack, "GET", `/v1/discrepancies?session_id=${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    expect(listed.json.discrepancies).toMatchObject([
      { rule: "operation_failed_after_success", status: "open" },
    ]);
    expect((await messagesOf(parent.session_id)).map((x) => x.result)).toEqual(["success", "queued"]);
  });

  it("the same final result delivered twice: one effect, one webhook, dated when the result came", async () => {
    const { parent, queued } = await queuedRefund(m, "2.000");
    const [notice] = await receiver.waitFor(1);
    expect(notice!.json.result).toBe("queued");
    const body = await resultBody(parent.session_id, queued.reference_number, "success");
    // The service's clock moves an hour on: the final result's timestamp_utc is its own time.
    stack.advance(HOUR_MS);
    let fromMs = 0;
    let toMs = 0;
    try {
      fromMs = Date.now() + HOUR_MS;
      const first = await signed(m.pg.queued, body);
      expect(await first.json()).toEqual({ received: true, outcome: "applied" });
      toMs = Date.now() + HOUR_MS;
      const again = await signed(m.pg.queued, body);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual({ received: true, outcome: "duplicate" });
    } finally {
      stack.advance(-HOUR_MS);
    }
    const [, final] = await receiver.waitFor(2);
    checkOperationDelivery(
      final!,
      {
        parent,
        operation: "refund",
        amount: "2.000",
        result: "success",
        state: "refunded",
        source: "input",
        pgCode: m.pg.queued,
        referenceNumber: queued.reference_number,
        childSessionId: queued.txn.session_id,
        pgResponse: { result: "SUCCESS", is_sandbox: true },
      },
      m.webhookSecret,
      { fromMs, toMs },
    );
    expect(await children(parent.session_id)).toMatchObject([{ state: "refunded", amount: "2.000" }]);
    const status = await api(stack, "GET", `/v1/payments/${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    expect(status.json.refunded_amount).toBe("2.000");
    // Stored messages are all that will ever be sent: the queued notice and one final result.
    expect((await messagesOf(parent.session_id)).map((x) => x.result)).toEqual(["success", "queued"]);
  });

  it("a final result for a child still being recorded (_pending) is 409 and changes nothing; the gateway's retry is applied", async () => {
    // A reservation as perform writes it before the gateway call, on a queued gateway's payment.
    const parent = await paidParent(stack, m, "queued");
    const reservation = (await operationsRepo.insert(stack.db, {
      session_id: newId("sess"),
      parent_session_id: parent.session_id,
      merchant_id: m.id,
      operation: "refund",
      amount_minor: 1_500,
      currency_code: "KWD",
      state: "refund_pending",
      reference_number: newId("ref"),
      source: "input",
      via: "api",
      initiator: null,
      pg_code: m.pg.queued,
      pg_response: {},
      gateway_operation_id: null,
    }))!;
    const body = await resultBody(parent.session_id, reservation.reference_number, "success");
    const early = await signed(m.pg.queued, body);
    expect(early.status).toBe(409);
    expect((await early.json()).code).toBe("conflict");
    const stateOf = async () =>
      (
        await stack.db.query<{ state: string }>("select state from operations where session_id = $1", [
          reservation.session_id,
        ])
      )[0]!.state;
    expect(await stateOf()).toBe("refund_pending");
    // The notification was not recorded as seen: the retry must not be taken for a duplicate.
    const seen = await stack.db.query("select 1 from gateway_notifications where notification_id = $1", [
      JSON.parse(body).notification_id,
    ]);
    expect(seen).toEqual([]);
    expect(await messagesOf(parent.session_id)).toEqual([]);

    // The request that made the reservation finishes it (here: the sweep, as after a crash).
    await stack.db.query(
      "update operations set updated_at = now() - interval '1 day' where session_id = $1",
      [reservation.session_id],
    );
    await stack.service.app.services.operations.sweepReservations();
    expect(await stateOf()).toBe("refund_queued");
    const retried = await signed(m.pg.queued, body);
    expect(await retried.json()).toEqual({ received: true, outcome: "applied" });
    expect(await stateOf()).toBe("refunded");
    const [first, second] = await receiver.waitFor(2);
    expect([first!.json.result, second!.json.result]).toEqual(["queued", "success"]);
    expect(second!.json.reference_number).toBe(reservation.reference_number);
  });

  it.each([
    { operation: "capture", amount: "3.000", state: "paid" },
    { operation: "void", amount: "10.500", state: "voided" },
  ] as const)(
    "$operation on the gateway's own dashboard (its HTTP API) reaches the merchant with source pg",
    async (c) => {
      const parent = await paidParent(stack, m, "authorize", { order_no: `pg-${c.operation}-${Date.now()}` });
      const fromMs = Date.now();
      const done = await fetch(`${stack.gatewayUrl}/dashboard/operations`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          pg_reference: await pgReferenceOf(parent.session_id),
          operation: c.operation,
          amount: c.amount,
        }),
      });
      expect(done.status).toBe(200);
      const answer = (await done.json()) as { gateway_operation_id: string };
      const [delivered] = await receiver.waitFor(1);
      const toMs = Date.now();
      const [stored] = await stack.db.query<{ session_id: string; reference_number: string }>(
        "select session_id, reference_number from operations where gateway_operation_id = $1",
        [answer.gateway_operation_id],
      );
      checkOperationDelivery(
        delivered!,
        {
          parent,
          operation: c.operation,
          amount: c.amount,
          result: "success",
          state: c.state,
          source: "pg",
          pgCode: m.pg.authorize,
          referenceNumber: stored!.reference_number,
          childSessionId: stored!.session_id,
          pgResponse: {
            result: "SUCCESS",
            gateway_operation_id: answer.gateway_operation_id,
            is_sandbox: true,
          },
        },
        m.webhookSecret,
        { fromMs, toMs },
      );
      const status = await api(stack, "GET", `/v1/payments/${parent.session_id}`, {
        auth: apiKey(m.privateKey),
      });
      expect(status.json.transactions).toMatchObject([{ source: "pg", state: c.state, amount: c.amount }]);
      expect(status.json[c.operation === "capture" ? "captured_amount" : "voided_amount"]).toBe(c.amount);
    },
  );

  describe("the final result of a queued operation goes where its queued notice went", () => {
    it("after the destination and the secret changed: where the notice waits now, after it, signed with the new secret", async () => {
      const merchant = await createMerchant(stack);
      await configureWebhooks(stack, merchant, {
        operations_webhook_url: `${receiver.url}/old`,
        notify_api_initiated: true,
      });
      // The notice's answers are held until the final result is recorded: it must still come second.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      receiver.respond = (r) =>
        r.json?.result === "queued" ? { status: 200, until: held } : { status: 200 };
      const { parent, queued } = await queuedRefund(merchant);
      const [notice] = await receiver.waitFor(1);
      expect(notice!.path).toBe("/old");

      // The general URL changes while the notice is out: the notice, still waiting, goes to the new
      // URL at once (docs/webhooks.md, "A new general or plugin URL"), and the final result follows
      // it there. A plugin URL set now is not where the notice went: the final result skips it.
      await configureWebhooks(stack, merchant, { operations_webhook_url: `${receiver.url}/new` });
      await configurePlugin(stack, merchant, "e_commerce", { webhook_url: `${receiver.url}/plugin` });
      const [moved] = await receiver.waitFor(1, { path: "/new" });
      expect(moved!.headers["webhook-id"]).toBe(notice!.headers["webhook-id"]);
      const rotated = await api(stack, "POST", "/v1/webhooks/secret/rotate", {
        auth: apiKey(merchant.privateKey),
      });
      expect(rotated.status).toBe(200);
      const done = await signed(
        merchant.pg.queued,
        await resultBody(parent.session_id, queued.reference_number, "success"),
      );
      expect(await done.json()).toEqual({ received: true, outcome: "applied" });
      release();
      const [, final] = await receiver.waitFor(2, { path: "/new" });
      expect(final!.json).toMatchObject({ result: "success", reference_number: queued.reference_number });
      expect(final!.startedAt).toBeGreaterThanOrEqual(moved!.finishedAt!);
      expect(final!.json.signature).toBe(expectedPayloadSignature(final!.json, rotated.json.secret));
      verifyWithStandardWebhooks(final!, rotated.json.secret);
      // Stored: the final result's only delivery is the new URL (nothing for /old or /plugin).
      const [finalMessage] = await messagesOf(parent.session_id, merchant);
      expect(finalMessage!.result).toBe("success");
      expect(finalMessage!.deliveries.map((d) => d.url)).toEqual([`${receiver.url}/new`]);
      expect(receiver.requests.filter((r) => r.path === "/plugin")).toEqual([]);
      // A new operation follows the new settings.
      const later = await queuedRefund(merchant);
      const [, , next] = await receiver.waitFor(3, { path: "/new" });
      expect(next!.json).toMatchObject({ result: "queued", reference_number: later.queued.reference_number });
    });

    it("no notice (the gate was closed then) → no final result, even with the gate open now", async () => {
      const merchant = await createMerchant(stack);
      await configureWebhooks(stack, merchant, {
        operations_webhook_url: `${receiver.url}/gated`,
        notify_api_initiated: false,
      });
      const { parent, queued } = await queuedRefund(merchant);
      await configureWebhooks(stack, merchant, { notify_api_initiated: true });
      const done = await signed(
        merchant.pg.queued,
        await resultBody(parent.session_id, queued.reference_number, "rejected"),
      );
      expect(await done.json()).toEqual({ received: true, outcome: "applied" });
      expect(await children(parent.session_id, merchant)).toMatchObject([{ state: "refund_rejected" }]);
      expect(await messagesOf(parent.session_id, merchant)).toEqual([]);
    });

    it("a notice sent with the gate open → the final result follows it after the gate closed; enabled off stops it", async () => {
      const merchant = await createMerchant(stack);
      await configureWebhooks(stack, merchant, {
        operations_webhook_url: `${receiver.url}/open`,
        notify_api_initiated: true,
      });
      const first = await queuedRefund(merchant);
      const second = await queuedRefund(merchant);
      await receiver.waitFor(2, { path: "/open" });
      await configureWebhooks(stack, merchant, { notify_api_initiated: false });
      await signed(
        merchant.pg.queued,
        await resultBody(first.parent.session_id, first.queued.reference_number, "success"),
      );
      const followed = await receiver.waitFor(3, { path: "/open" });
      expect(followed[2]!.json).toMatchObject({
        result: "success",
        reference_number: first.queued.reference_number,
      });

      await configureWebhooks(stack, merchant, { enabled: false });
      const off = await signed(
        merchant.pg.queued,
        await resultBody(second.parent.session_id, second.queued.reference_number, "success"),
      );
      expect(await off.json()).toEqual({ received: true, outcome: "applied" });
      expect((await messagesOf(second.parent.session_id, merchant)).map((x) => x.result)).toEqual(["queued"]);
    });
  });
});
