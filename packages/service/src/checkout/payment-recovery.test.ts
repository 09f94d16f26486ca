/**
 * A checkout payment whose gateway answer is lost is never taken for a decline: the gateway may
 * have charged the customer. The attempt stays as it was and is recovered by asking the gateway
 * for the payment of that attempt — by a retry with the same Idempotency-Key, or by the sweep.
 * Real sandbox gateway over HTTP, one that makes the payment but answers after svc's timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@svc/protocol";
import {
  api,
  apiKey,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { checkoutRepo } from "./checkout.repo.js";

describe.each(STORES)("checkout payments with a lost gateway answer on %s", (store) => {
  let stack: Stack;
  /** The same database, its gateway paying at once but answering after svc's timeout. */
  let slow: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    slow = await startStack(store, {
      db: stack.db,
      paymentAnswerDelayMs: 1_200,
      config: { gatewayTimeoutMs: 300 },
    });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await slow?.close();
    await stack?.close();
  });

  const walletA = (on: Stack, sessionId: string, key?: string) =>
    api(on, "POST", `/v1/checkout/${sessionId}/payments`, {
      auth: apiKey(m.publicKey),
      body: { form_of_payment: "wallet_a_pay", pg_code: m.pg.sandbox, payment_token: "tok" },
      ...(key ? { headers: { "idempotency-key": key } } : {}),
    });
  const state = async (sessionId: string) =>
    (await api(stack, "GET", `/v1/payments/${sessionId}`, { auth: apiKey(m.privateKey) })).json.state;
  const paymentMessages = (sessionId: string) =>
    stack.db.query("select id from webhook_messages where parent_session_id = $1 and kind = 'payment'", [
      sessionId,
    ]);

  it("a timeout after the gateway paid: 504, the payment still attempted, and the retry with the key reports it paid", async () => {
    const tx = (await createTransaction(slow, m)).json;
    const key = newId("key");
    const first = await walletA(slow, tx.session_id, key);
    expect(first.status, first.text).toBe(504);
    expect(first.json.code).toBe("gateway_outcome_unknown");
    // Not failed: the customer may have paid (and did).
    expect(await state(tx.session_id)).toBe("attempted");
    const retry = await walletA(slow, tx.session_id, key);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json).toMatchObject({ status: "success", session_id: tx.session_id });
    expect(await state(tx.session_id)).toBe("paid");
    const replay = await walletA(slow, tx.session_id, key);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(retry.text);
  });

  it("without a key the sweep finds the payment the gateway made, once", async () => {
    // With a webhook URL, so the payment webhook shows it became final exactly once.
    const tx = (await createTransaction(slow, m, { webhook_url: "http://127.0.0.1:9/payments" })).json;
    const first = await walletA(slow, tx.session_id);
    expect(first.status).toBe(504);
    expect(await state(tx.session_id)).toBe("attempted");
    // The sweep asks the gateway about attempts without an answer for longer than its bound (0 s here).
    expect(await slow.service.app.services.checkout.sweepAttempts(0)).toBe(1);
    expect(await state(tx.session_id)).toBe("paid");
    expect(await slow.service.app.services.checkout.sweepAttempts(0)).toBe(0);
    expect(await paymentMessages(tx.session_id)).toHaveLength(1);
    // A second call on the session is refused: one payment per session.
    const again = await walletA(slow, tx.session_id);
    expect(again.status).toBe(409);
  });

  it("an attempt the gateway never received: the sweep fails it (nothing was taken)", async () => {
    const tx = (await createTransaction(stack, m)).json;
    // As a request leaves it when it dies before reaching the gateway.
    await checkoutRepo.insertAttempt(stack.db, {
      id: newId("pay"),
      sessionId: tx.session_id,
      pgCode: m.pg.sandbox,
      formOfPayment: "wallet_a_pay",
      saveCard: false,
    });
    await stack.db.query("update transactions set state = 'attempted', pg_code = $2 where session_id = $1", [
      tx.session_id,
      m.pg.sandbox,
    ]);
    expect(await stack.service.app.services.checkout.sweepAttempts(0)).toBe(1);
    expect(await state(tx.session_id)).toBe("failed");
    const result = await api(stack, "GET", `/v1/payments/${tx.session_id}`, { auth: apiKey(m.privateKey) });
    expect(JSON.stringify(result.json)).toContain("gateway_never_received");
  });

  it("a recent attempt is left alone: its request may still be waiting for the gateway", async () => {
    const tx = (await createTransaction(slow, m)).json;
    const first = await walletA(slow, tx.session_id);
    expect(first.status).toBe(504);
    expect(await slow.service.app.services.checkout.sweepAttempts(3_600)).toBe(0);
    expect(await state(tx.session_id)).toBe("attempted");
  });
});
