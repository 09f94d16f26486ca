import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../../test/support/free-port.js";
import {
  api,
  apiKey,
  basic,
  bearer,
  createMerchant,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { paidParent, sandboxLedger } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";

describe.each(STORES)("operations API on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
    receiver = await startReceiver();
    // Every operation here would be sent: a stored message is the proof that one was.
    await configureWebhooks(stack, m, {
      operations_webhook_url: `${receiver.url}/ops`,
      notify_api_initiated: true,
    });
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });

  const operate = (body: Record<string, unknown>, auth = apiKey(m.privateKey)) =>
    api(stack, "POST", "/v1/operations", { auth, body });
  const status = async (sessionId: string) =>
    (await api(stack, "GET", `/v1/payments/${sessionId}`, { auth: apiKey(m.privateKey) })).json;

  it("partial and multiple refunds up to the paid amount; the parent's state never changes", async () => {
    const parent = await paidParent(stack, m, "sandbox", { order_no: `ord-${Date.now()}` });
    const first = await operate({ operation: "refund", session_id: parent.session_id, amount: "4.000" });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      amount: "4.000",
      operation: "refund",
      result: "success",
      success: true,
      source: "input",
      session_id: parent.session_id,
      order_no: parent.order_no,
      txn: { amount: "4.000", currency_code: "KWD", order_no: parent.order_no, state: "refunded" },
    });
    expect(first.json.initiator).toBeUndefined();
    expect(first.json.txn.session_id).not.toBe(parent.session_id);
    const second = await operate({ operation: "refund", order_no: parent.order_no, amount: "6.500" });
    expect(second.status).toBe(200);
    const third = await operate({ operation: "refund", session_id: parent.session_id, amount: "0.001" });
    expect(third.status).toBe(409);
    expect(third.json.code).toBe("amount_exceeds_refundable");
    const s = await status(parent.session_id);
    expect(s).toMatchObject({ state: "paid", refunded_amount: "10.500", refundable_amount: "0.000" });
    expect(s.transactions.map((t: { state: string }) => t.state)).toEqual(["refunded", "refunded"]);
  });

  it("refund without amount refunds what remains; currency must be the parent's", async () => {
    const parent = await paidParent(stack, m);
    const wrong = await operate({ operation: "refund", session_id: parent.session_id, currency_code: "USD" });
    expect(wrong.status).toBe(422);
    expect(wrong.json.code).toBe("currency_mismatch");
    const badAmount = await operate({ operation: "refund", session_id: parent.session_id, amount: "1.5" });
    expect(badAmount.status).toBe(422);
    expect(badAmount.json.errors.amount[0]).toContain("3 decimals");
    const all = await operate({ operation: "refund", session_id: parent.session_id, currency_code: "KWD" });
    expect(all.status).toBe(200);
    expect(all.json.amount).toBe("10.500");
    expect(all.json.order_no).toBeUndefined();
    expect(all.json.txn.order_no).toBe(all.json.reference_number);
  });

  it("a gateway decline (amount ending in 13) is 402 with pg_response; nothing is stored", async () => {
    const parent = await paidParent(stack, m);
    const declined = await operate({ operation: "refund", session_id: parent.session_id, amount: "1.013" });
    expect(declined.status).toBe(402);
    expect(declined.json.code).toBe("operation_declined");
    expect(declined.json.pg_response).toMatchObject({ result: "DECLINED" });
    const s = await status(parent.session_id);
    expect(s.transactions).toEqual([]);
    expect(s.refundable_amount).toBe("10.500");
  });

  it("capture: partial captures on an authorized parent, then refund of captured money; void rules", async () => {
    const parent = await paidParent(stack, m, "authorize");
    const refundFirst = await operate({ operation: "refund", session_id: parent.session_id });
    expect(refundFirst.status).toBe(409);
    expect(refundFirst.json.code).toBe("invalid_state_for_operation");
    const c1 = await operate({ operation: "capture", session_id: parent.session_id, amount: "3.000" });
    expect(c1.status).toBe(200);
    expect(c1.json.txn.state).toBe("paid");
    const voidAfterCapture = await operate({ operation: "void", session_id: parent.session_id });
    expect(voidAfterCapture.status).toBe(409);
    expect(voidAfterCapture.json.code).toBe("invalid_state_for_operation");
    const tooMuch = await operate({ operation: "capture", session_id: parent.session_id, amount: "7.501" });
    expect(tooMuch.json.code).toBe("amount_exceeds_capturable");
    const c2 = await operate({ operation: "capture", session_id: parent.session_id });
    expect(c2.json.amount).toBe("7.500");
    const r = await operate({ operation: "refund", session_id: parent.session_id, amount: "2.000" });
    expect(r.status).toBe(200);
    const s = await status(parent.session_id);
    expect(s).toMatchObject({ state: "authorized", captured_amount: "10.500", refunded_amount: "2.000" });
  });

  it("void releases the whole authorization; nothing can be captured after it; capture on paid is refused", async () => {
    const parent = await paidParent(stack, m, "authorize");
    const partial = await operate({ operation: "void", session_id: parent.session_id, amount: "1.000" });
    expect(partial.status).toBe(422);
    const v = await operate({ operation: "void", session_id: parent.session_id });
    expect(v.status).toBe(200);
    expect(v.json).toMatchObject({ amount: "10.500", txn: { state: "voided" } });
    const again = await operate({ operation: "void", session_id: parent.session_id });
    expect(again.status).toBe(409);
    const capture = await operate({ operation: "capture", session_id: parent.session_id });
    expect(capture.json.code).toBe("amount_exceeds_capturable");
    const paid = await paidParent(stack, m);
    const onPaid = await operate({ operation: "capture", session_id: paid.session_id });
    expect(onPaid.json.code).toBe("invalid_state_for_operation");
  });

  it("Basic auth of a dashboard user makes that user the initiator", async () => {
    const parent = await paidParent(stack, m);
    const r = await operate(
      { operation: "refund", session_id: parent.session_id, amount: "1.000" },
      basic(m.admin),
    );
    expect(r.status).toBe(200);
    expect(r.json.initiator).toEqual({
      id: expect.any(Number),
      first_name: "Ada",
      last_name: "Admin",
      username: m.admin.username,
      email: `${m.admin.username}@example.com`,
    });
  });

  it("queued gateway: 202 with refund_queued; the parent and unknown ids are checked", async () => {
    const parent = await paidParent(stack, m, "queued");
    const q = await operate({ operation: "refund", session_id: parent.session_id, amount: "1.000" });
    expect(q.status).toBe(202);
    expect(q.json).toMatchObject({ result: "queued", success: false, txn: { state: "refund_queued" } });
    const missing = await operate({ operation: "refund", session_id: "sess_nope" });
    expect(missing.status).toBe(404);
    const neither = await operate({ operation: "refund" });
    expect(neither.status).toBe(422);
  });

  /** Nothing of an operation remains: no child (reservations included), totals, gateway, messages. */
  async function expectNothingDone(parent: { session_id: string; amount: string }) {
    const rows = await stack.db.query("select state from operations where parent_session_id = $1", [
      parent.session_id,
    ]);
    expect(rows).toEqual([]);
    const s = await status(parent.session_id);
    expect(s).toMatchObject({ transactions: [], refunded_amount: "0.000", refundable_amount: parent.amount });
    expect(await sandboxLedger(stack, parent.session_id)).toEqual([]);
    const messages = await api(stack, "GET", `/v1/webhooks/messages?session_id=${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    expect(messages.json.messages).toEqual([]);
  }

  it("a Basic user without payment.refund gets 403 permission_denied, and nothing is stored or sent", async () => {
    const user = { username: `capturer-${Date.now()}`, password: "capturer-password-long" };
    const created = await api(stack, "POST", `/v1/admin/merchants/${m.id}/users`, {
      auth: bearer,
      body: {
        ...user,
        email: `${user.username}@example.com`,
        permissions: ["payment.view", "payment.capture"],
      },
    });
    expect(created.status).toBe(201);
    const parent = await paidParent(stack, m);
    const r = await operate(
      { operation: "refund", session_id: parent.session_id, amount: "1.000" },
      basic(user),
    );
    expect(r.status).toBe(403);
    expect(r.json.code).toBe("permission_denied");
    expect(r.json.detail).toContain('"payment.refund"');
    await expectNothingDone(parent);
  });

  it("an unreachable gateway: 502 gateway_unavailable, the reservation released; the same Idempotency-Key then runs again", async () => {
    const parent = await paidParent(stack, m);
    // The same service and database, pointed at a gateway address where nothing listens.
    const cutOff = await startStack(store, {
      db: stack.db,
      config: { gatewayUrl: `http://127.0.0.1:${await freePort()}` },
    });
    const request = {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
      headers: { "idempotency-key": `unreachable-${parent.session_id}` },
    };
    try {
      const r = await api(cutOff, "POST", "/v1/operations", request);
      expect(r.status).toBe(502);
      expect(r.json.code).toBe("gateway_unavailable");
      expect(r.json.detail).toContain("Nothing was done");
    } finally {
      await cutOff.close();
    }
    await expectNothingDone(parent);
    // A 5xx is not remembered under its key: the retry is performed, not answered from memory.
    const retry = await api(stack, "POST", "/v1/operations", request);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect((await status(parent.session_id)).refunded_amount).toBe("1.000");
  });

  it("Idempotency-Key: the same request again gets the first answer and refunds once; another body is 422", async () => {
    const parent = await paidParent(stack, m);
    const headers = { "idempotency-key": `refund-${parent.session_id}` };
    const body = { operation: "refund", session_id: parent.session_id, amount: "2.000" };
    const first = await api(stack, "POST", "/v1/operations", { auth: apiKey(m.privateKey), body, headers });
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await api(stack, "POST", "/v1/operations", { auth: apiKey(m.privateKey), body, headers });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json).toStrictEqual(first.json);
    const other = await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { ...body, amount: "3.000" },
      headers,
    });
    expect(other.status).toBe(422);
    expect(other.json.code).toBe("idempotency_key_reused");
    // Performed once: one child, one gateway operation, one message.
    const s = await status(parent.session_id);
    expect(s.refunded_amount).toBe("2.000");
    expect(s.transactions).toHaveLength(1);
    expect(await sandboxLedger(stack, parent.session_id)).toHaveLength(1);
    const messages = await api(stack, "GET", `/v1/webhooks/messages?session_id=${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    expect(messages.json.messages.map((x: { reference_number: string }) => x.reference_number)).toEqual([
      first.json.reference_number,
    ]);
  });

  it("Idempotency-Key: a request refused before it started anything leaves the key to the corrected one; a decline is kept", async () => {
    const parent = await paidParent(stack, m);
    const send = (body: Record<string, unknown>, key: string) =>
      api(stack, "POST", "/v1/operations", {
        auth: apiKey(m.privateKey),
        body,
        headers: { "idempotency-key": key },
      });
    const key = `fix-${parent.session_id}`;
    // Refused by the operation's own checks: four decimals for KWD, then another parent's id.
    const wrongAmount = await send(
      { operation: "refund", session_id: parent.session_id, amount: "1.0001" },
      key,
    );
    expect(wrongAmount.status).toBe(422);
    const wrongSession = await send(
      { operation: "refund", session_id: "sess_notthisone", amount: "1.000" },
      key,
    );
    expect(wrongSession.status).toBe(404);
    expect(wrongSession.headers.get("idempotent-replayed")).toBeNull();
    // The corrected request takes the key, refunds, and is the answer the key keeps from now on.
    const body = { operation: "refund", session_id: parent.session_id, amount: "1.000" };
    const done = await send(body, key);
    expect(done.status).toBe(200);
    const again = await send(body, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json).toStrictEqual(done.json);
    expect((await send({ ...body, amount: "2.000" }, key)).json.code).toBe("idempotency_key_reused");
    expect((await status(parent.session_id)).refunded_amount).toBe("1.000");
    // A gateway's decline started an operation: its answer is kept and replayed.
    const declineKey = `decline-${parent.session_id}`;
    const declined = await send(
      { operation: "refund", session_id: parent.session_id, amount: "1.013" },
      declineKey,
    );
    expect(declined.status).toBe(402);
    const replayed = await send(
      { operation: "refund", session_id: parent.session_id, amount: "1.013" },
      declineKey,
    );
    expect(replayed.status).toBe(402);
    expect(replayed.headers.get("idempotent-replayed")).toBe("true");
    expect((await send(body, declineKey)).json.code).toBe("idempotency_key_reused");
  });

  it("another merchant's parent is 404", async () => {
    const other = await createMerchant(stack);
    const parent = await paidParent(stack, other);
    const r = await operate({ operation: "refund", session_id: parent.session_id });
    expect(r.status).toBe(404);
  });
});
