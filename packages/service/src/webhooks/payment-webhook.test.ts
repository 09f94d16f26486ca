/**
 * The payment webhook: each outcome (paid, authorized, failed, canceled) reaches the
 * transaction's own webhook_url, else its plugin's, signed like the operation webhook; the
 * plugin's `enabled` and the general `enabled` stop it; operations do not send another one.
 */
import { PAYMENT_FIELDS, payloadKeys } from "@svc/webhooks/schema";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  api,
  apiKey,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { expectTimestampWithin } from "../../../../test/support/operation-payload.js";
import { paidParent, payByRedirect } from "../../../../test/support/payments.js";
import { type ReceivedRequest, type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import {
  configurePlugin,
  configureWebhooks,
  expectedPayloadSignature,
  independentCanonicalJson,
  verifyWithStandardWebhooks,
} from "../../../../test/support/webhooks.js";

const ZERO = "0.000";

/** What a test knows of one payment outcome. */
interface ExpectedPayment {
  tx: { session_id: string; order_no: string | null };
  state: "paid" | "authorized" | "failed" | "canceled";
  operation: "purchase" | "authorize";
  pgCode: string;
  formOfPayment: string;
  captured: string;
  remaining: string;
}

describe.each(STORES)("payment webhook on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });
  beforeEach(async () => {
    receiver.requests.length = 0;
    // notify_api_initiated is about operation webhooks; the payment webhook does not depend on it.
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: null,
      notify_api_initiated: false,
    });
    await configurePlugin(stack, m, "e_commerce", { webhook_url: `${receiver.url}/plugin`, enabled: true });
  });

  const messagesOf = async (sessionId: string) =>
    (await api(stack, "GET", `/v1/webhooks/messages?session_id=${sessionId}`, { auth: apiKey(m.privateKey) }))
      .json.messages as { kind: string; deliveries: { url: string }[] }[];
  const pay = (sessionId: string, body: Record<string, unknown>) =>
    api(stack, "POST", `/v1/checkout/${sessionId}/payments`, { auth: apiKey(m.publicKey), body });

  /** A delivered payment webhook, every field: the contract's keys and the test's values. */
  function checkPayment(
    request: ReceivedRequest,
    e: ExpectedPayment,
    window: { fromMs: number; toMs: number },
  ) {
    const payload = request.json as Record<string, unknown>;
    // The keys @svc/webhooks' field table lists (the validator's, the types' and the OpenAPI
    // schema's one description): every required one, and order_no only when there is one.
    const { required } = payloadKeys(PAYMENT_FIELDS);
    expect(Object.keys(payload).sort()).toEqual([...required, ...(e.tx.order_no ? ["order_no"] : [])].sort());
    expect(payload).toStrictEqual({
      event: "payment",
      session_id: e.tx.session_id,
      ...(e.tx.order_no ? { order_no: e.tx.order_no } : {}),
      state: e.state,
      amount: "10.500",
      currency_code: "KWD",
      operation: e.operation,
      created_via: "api",
      type: "e_commerce",
      pg_code: e.pgCode,
      form_of_payment: e.formOfPayment,
      captured_amount: e.captured,
      refunded_amount: ZERO,
      voided_amount: ZERO,
      remaining_amount: e.remaining,
      transactions: [],
      is_sandbox: true,
      pg_response: expect.objectContaining({ is_sandbox: true }),
      timestamp_utc: expect.any(String),
      signature: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expectTimestampWithin(payload.timestamp_utc as string, window.fromMs, window.toMs);
    expect(payload.signature).toBe(expectedPayloadSignature(payload, m.webhookSecret));
    expect(request.body).toBe(independentCanonicalJson(payload));
    expect(verifyWithStandardWebhooks(request, m.webhookSecret)).toEqual(payload);
  }

  it("paid, without a URL of its own: to the plugin's webhook_url; with one: only to its own", async () => {
    const fromMs = Date.now();
    const parent = await paidParent(stack, m, "sandbox", { order_no: `pw-${Date.now()}` });
    const [delivered] = await receiver.waitFor(1, { path: "/plugin" });
    checkPayment(
      delivered!,
      {
        tx: parent,
        state: "paid",
        operation: "purchase",
        pgCode: m.pg.sandbox,
        formOfPayment: "wallet_a_pay",
        captured: "10.500",
        remaining: "10.500",
      },
      { fromMs, toMs: Date.now() },
    );

    const own = await paidParent(stack, m, "sandbox", { webhook_url: `${receiver.url}/own` });
    const [ownDelivery] = await receiver.waitFor(1, { path: "/own" });
    expect(ownDelivery!.json).toMatchObject({ session_id: own.session_id, state: "paid" });
    const [message] = await messagesOf(own.session_id);
    expect(message!.deliveries.map((d) => d.url)).toEqual([`${receiver.url}/own`]);
  });

  it("authorized: an authorization's outcome, nothing captured yet", async () => {
    const fromMs = Date.now();
    const parent = await paidParent(stack, m, "authorize");
    const [delivered] = await receiver.waitFor(1, { path: "/plugin" });
    checkPayment(
      delivered!,
      {
        tx: parent,
        state: "authorized",
        operation: "authorize",
        pgCode: m.pg.authorize,
        formOfPayment: "wallet_a_pay",
        captured: ZERO,
        remaining: "10.500",
      },
      { fromMs, toMs: Date.now() },
    );
  });

  it("failed: wallet B declined by the gateway (a number ending in 0000)", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const fromMs = Date.now();
    const started = await pay(tx.session_id, {
      form_of_payment: "wallet_b_pay",
      pg_code: m.pg.sandbox,
      mobile_number: "96551230000",
    });
    expect(started.json.status).toBe("otp_required");
    const done = await api(stack, "POST", `/v1/checkout/${tx.session_id}/payments/otp`, {
      auth: apiKey(m.publicKey),
      body: { otp_reference: started.json.otp_reference, otp: "123456" },
    });
    expect(done.json.status).toBe("canceled");
    const [delivered] = await receiver.waitFor(1, { path: "/plugin" });
    checkPayment(
      delivered!,
      {
        tx,
        state: "failed",
        operation: "purchase",
        pgCode: m.pg.sandbox,
        formOfPayment: "wallet_b_pay",
        captured: ZERO,
        remaining: ZERO,
      },
      { fromMs, toMs: Date.now() },
    );
  });

  it("canceled: the customer canceled on the gateway's redirect page", async () => {
    const tx = (await createTransaction(stack, m, { pg_codes: [m.pg.queued] })).json;
    const fromMs = Date.now();
    await payByRedirect(stack, m, tx.session_id, m.pg.queued, "cancel");
    const [delivered] = await receiver.waitFor(1, { path: "/plugin" });
    checkPayment(
      delivered!,
      {
        tx,
        state: "canceled",
        operation: "purchase",
        pgCode: m.pg.queued,
        formOfPayment: "redirect",
        captured: ZERO,
        remaining: ZERO,
      },
      { fromMs, toMs: Date.now() },
    );
  });

  it("the plugin's enabled: false stops it (a transaction's own URL still gets it); the general enabled: false stops both", async () => {
    await configurePlugin(stack, m, "e_commerce", { enabled: false });
    const viaPlugin = await paidParent(stack, m);
    const own = await paidParent(stack, m, "sandbox", { webhook_url: `${receiver.url}/own` });
    await receiver.waitFor(1, { path: "/own" });
    // What was stored is what will ever be sent.
    expect(await messagesOf(viaPlugin.session_id)).toEqual([]);
    expect((await messagesOf(own.session_id)).map((x) => x.kind)).toEqual(["payment"]);

    await configurePlugin(stack, m, "e_commerce", { enabled: true });
    await configureWebhooks(stack, m, { enabled: false });
    const off = await paidParent(stack, m, "sandbox", { webhook_url: `${receiver.url}/own` });
    const offPlugin = await paidParent(stack, m);
    expect(await messagesOf(off.session_id)).toEqual([]);
    expect(await messagesOf(offPlugin.session_id)).toEqual([]);
    expect(receiver.requests.map((r) => r.path)).toEqual(["/own"]);
  });

  it("is sent once, when the payment becomes final: a later refund is reported by the operation webhook only", async () => {
    await configureWebhooks(stack, m, { notify_api_initiated: true });
    const parent = await paidParent(stack, m);
    const [payment] = await receiver.waitFor(1, { path: "/plugin" });
    expect(payment!.json).toMatchObject({ event: "payment", transactions: [] });
    const refund = await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
    });
    expect(refund.status).toBe(200);
    // Same URL and parent: delivered in order, so the second request is the refund's.
    const [, operation] = await receiver.waitFor(2, { path: "/plugin" });
    expect(operation!.json).toMatchObject({
      reference_number: refund.json.reference_number,
      result: "success",
    });
    expect((await messagesOf(parent.session_id)).map((x) => x.kind)).toEqual(["operation", "payment"]);
  });
});
