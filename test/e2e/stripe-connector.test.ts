/**
 * The Stripe connector end to end, on both stores: the real service, the official `stripe`
 * package inside it, and the Stripe stand-in (Stripe's REST API, its 3-D Secure page and its
 * signed events) over loopback HTTP. A merchant's Stripe setting is saved through the operator
 * API with its credentials; customers pay on svc's hosted card page; merchants operate through
 * the operations API; an operator refunds on "Stripe's dashboard".
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeStandIn } from "../../packages/service/src/gateways/stripe/standin/index.js";
import type { StripeStandIn } from "../../packages/service/src/gateways/stripe/standin/types.js";
import { STRIPE_API_VERSION } from "../../packages/service/src/gateways/stripe/client.js";
import {
  api,
  apiKey,
  bearer,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../support/merchant.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { type Stack, startStack } from "../support/stack.js";
import { signedIn } from "../support/dashboard.js";
import { STORES } from "../support/stores.js";
import { until } from "../support/until.js";
import { completeThreeDSecure } from "../support/stripe.js";
import { configurePlugin, configureWebhooks } from "../support/webhooks.js";

const PURCHASE = {
  secretKey: "sk_test_svcPurchase0123456789",
  webhookSecret: "whsec_c3ZjLXB1cmNoYXNlLXNlY3JldC0wMTIz",
};
const AUTHORIZE = {
  secretKey: "sk_test_svcAuthorize012345678",
  webhookSecret: "whsec_c3ZjLWF1dGhvcml6ZS1zZWNyZXQtMDEy",
};
/** An account whose events never reach svc (no endpoint): its queued refunds are finished by asking. */
const UNHEARD = {
  secretKey: "sk_test_svcUnheard00123456789",
  webhookSecret: "whsec_c3ZjLXVuaGVhcmQtc2VjcmV0LTAxMjM0",
};
const FUTURE_EXPIRY = "12/39";
const GATEWAY_TIMEOUT_MS = 3_000;

describe.each(STORES)("the Stripe connector (%s)", (store) => {
  let stack: Stack;
  let stripe: StripeStandIn;
  let receiver: Receiver;
  let m: TestMerchant;
  const pg = { purchase: "", authorize: "", unheard: "" };

  beforeAll(async () => {
    // A gateway timeout short enough for one test to pass it (every other call here takes a
    // fraction of it).
    // Queued operations may be asked about after a second (the sweep is called by the test).
    stack = await startStack(store, {
      config: { gatewayTimeoutMs: GATEWAY_TIMEOUT_MS, queuedCheckSeconds: 1 },
    });
    // A fourth try after 3 s (Stripe's real schedule spans days): an event svc asks to have again
    // later (its own void still waiting for Stripe's answer) meets the void finished.
    stripe = await startStripeStandIn({
      accounts: [PURCHASE, AUTHORIZE, UNHEARD],
      asyncRefundDelayMs: 300,
      webhookRetryDelaysMs: [50, 200, 1_000, 3_000],
    });
    receiver = await startReceiver();
    m = await createMerchant(stack);
    for (const [name, account, operation] of [
      ["purchase", PURCHASE, "purchase"],
      ["authorize", AUTHORIZE, "authorize"],
      ["unheard", UNHEARD, "purchase"],
    ] as const) {
      const pgCode = `stripe-${name}-${m.id.slice(4, 10)}`;
      const created = await api(stack, "POST", `/v1/admin/merchants/${m.id}/gateways`, {
        auth: bearer,
        body: {
          pg_code: pgCode,
          kind: "stripe",
          operation,
          currencies: ["USD", "KWD", "JPY"],
          api_base_url: stripe.url,
          credentials: { secret_key: account.secretKey, webhook_secret: account.webhookSecret },
        },
      });
      expect(created.status, created.text).toBe(201);
      pg[name] = pgCode;
      stripe.setWebhookUrl(
        account.secretKey,
        name === "unheard" ? undefined : `${stack.url}/v1/gateways/${pgCode}/notifications`,
      );
    }
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: `${receiver.url}/ops`,
      notify_api_initiated: true,
    });
    await configurePlugin(stack, m, "e_commerce", { webhook_url: null, enabled: true });
  });
  afterAll(async () => {
    await stack?.close();
    await stripe?.close();
    await receiver?.close();
  });

  const payByCard = (sessionId: string, pgCode: string, number: string) =>
    fetch(`${stack.url}/pay/${sessionId}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ pg_code: pgCode, number, expiry: FUTURE_EXPIRY, cvc: "123" }).toString(),
      redirect: "manual",
    });
  const payment = async (sessionId: string) =>
    (await api(stack, "GET", `/v1/payments/${sessionId}`, { auth: apiKey(m.privateKey) })).json;
  const operate = (body: Record<string, unknown>, key = `key-${Math.random()}`) =>
    api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body,
      headers: { "idempotency-key": key },
    });
  const opWebhooks = (sessionId: string) =>
    receiver.requests.filter((r) => r.path === "/ops" && r.json.session_id === sessionId);
  /** The Discrepancies page's entries for a payment, through the API. */
  const discrepancies = async (sessionId: string) =>
    (await api(stack, "GET", `/v1/discrepancies?session_id=${sessionId}`, { auth: apiKey(m.privateKey) }))
      .json.discrepancies as Record<string, unknown>[];
  const intentOf = (sessionId: string) =>
    stripe.paymentIntents().find((pi) => pi.metadata?.session_id === sessionId);

  /**
   * Waits until every event of the account so far was answered 2xx by svc, and it includes
   * `types` (what tells of the latest refund).
   */
  async function eventsAnswered(secretKey: string, types: string[]) {
    await until(
      () => {
        const events = stripe.events(secretKey);
        const answered = new Set(stripe.deliveries.filter((d) => d.status === 200).map((d) => d.eventId));
        const last: string[] = events.slice(-10).map((e) => e.type);
        return events.every((e) => answered.has(e.id)) && types.every((t) => last.includes(t))
          ? true
          : undefined;
      },
      `Stripe's events (${types.join(", ")}) answered`,
    );
  }

  async function paid(pgCode: string, amount = "10.00", currency = "USD") {
    const tx = (await createTransaction(stack, m, { pg_codes: [pgCode], amount, currency_code: currency }))
      .json;
    expect((await payByCard(tx.session_id, pgCode, "4242424242424242")).status).toBe(303);
    return tx.session_id as string;
  }

  it("takes a card payment as a PaymentIntent keyed by the attempt, with the pinned API version", async () => {
    const sessionId = await paid(pg.purchase);
    const status = await payment(sessionId);
    expect(status).toMatchObject({ state: "paid", captured_amount: "10.00", pg_code: pg.purchase });
    const pi = intentOf(sessionId)!;
    expect(pi).toMatchObject({
      status: "succeeded",
      amount: 1000,
      currency: "usd",
      capture_method: "automatic",
    });
    expect(status.pg_reference ?? pi.id).toBe(pi.id);
    const [attempt] = await stack.db.query<{ id: string }>(
      "select id from payment_attempts where session_id = $1",
      [sessionId],
    );
    expect(pi.metadata).toMatchObject({ session_id: sessionId, attempt_id: attempt!.id });
    const create = stripe.requests.find(
      (r) =>
        r.method === "POST" &&
        r.path === "/v1/payment_intents" &&
        (r.params as { metadata?: Record<string, string> }).metadata?.session_id === sessionId,
    )!;
    expect(create.idempotencyKey).toBe(attempt!.id);
    expect(create.params).toMatchObject({ confirm: "true", payment_method_data: { type: "card" } });
  });

  it("a decline carries Stripe's decline_code and message to the payment and the checkout", async () => {
    const tx = (
      await createTransaction(stack, m, { pg_codes: [pg.purchase], amount: "5.00", currency_code: "USD" })
    ).json;
    expect((await payByCard(tx.session_id, pg.purchase, "4000000000009995")).status).toBe(303);
    const status = await payment(tx.session_id);
    expect(status.state).toBe("failed");
    expect(status.pg_response).toMatchObject({
      type: "card_error",
      decline_code: "insufficient_funds",
      code: "card_declined",
    });
    expect(String(status.pg_response.message)).toMatch(/insufficient funds/i);
    const result = await api(stack, "GET", `/v1/checkout/${tx.session_id}/payments/result`, {
      auth: apiKey(m.publicKey),
    });
    expect(result.json.payment_gateway_info).toMatchObject({ pg_code: pg.purchase, pg_name: "stripe" });
  });

  it("3-D Secure: the customer goes to the bank's page and back to svc, which asks Stripe for the outcome", async () => {
    for (const [outcome, state] of [
      ["complete", "paid"],
      ["fail", "failed"],
    ] as const) {
      const tx = (
        await createTransaction(stack, m, { pg_codes: [pg.purchase], amount: "20.00", currency_code: "USD" })
      ).json;
      const submitted = await payByCard(tx.session_id, pg.purchase, "4000002760003184");
      expect(submitted.status).toBe(303);
      const bank = submitted.headers.get("location")!;
      expect(bank.startsWith(stripe.url)).toBe(true);
      expect((await payment(tx.session_id)).state).toBe("attempted");
      const back = await completeThreeDSecure(bank, outcome);
      expect(back.location.startsWith(`${stack.url}/pay/${tx.session_id}/return`)).toBe(true);
      await (await fetch(back.location, { redirect: "manual" })).text();
      const status = await payment(tx.session_id);
      expect(status.state).toBe(state);
      if (state === "paid") expect(status.challenge_occurred).toBe(true);
    }
  });

  it("authorize, then capture part of it and void another: Stripe's answers in the operation webhooks", async () => {
    const captured = await paid(pg.authorize);
    expect((await payment(captured)).state).toBe("authorized");
    const capture = await operate({
      session_id: captured,
      operation: "capture",
      amount: "6.00",
      currency_code: "USD",
    });
    expect(capture.status, capture.text).toBe(200);
    expect(capture.json).toMatchObject({ result: "success", amount: "6.00", pg_code: pg.authorize });
    expect(intentOf(captured)).toMatchObject({ status: "succeeded", amount_received: 600 });
    const hook = await until(
      () => opWebhooks(captured).find((r) => r.json.operation === "capture"),
      "capture webhook",
    );
    expect(hook.json).toMatchObject({ pg_code: pg.authorize, source: "input", result: "success" });
    expect(hook.json.pg_response).toMatchObject({
      payment_intent: intentOf(captured)!.id,
      status: "succeeded",
    });
    // Stripe released the other 4.00 with that capture: svc shows nothing left to capture and
    // refuses a second capture itself, without asking Stripe.
    expect(await payment(captured)).toMatchObject({ captured_amount: "6.00", capturable_amount: "0.00" });
    // The dashboard says where the rest went, in the payment's totals.
    const page = await (await signedIn(stack, m.admin)).get(`/dashboard/payments/${captured}`);
    expect(page.text).toMatch(/<dt>Released by the gateway<\/dt><dd><bdi[^>]*>4\.00 USD<\/bdi><\/dd>/);
    expect(page.text).toContain("it released the rest to the customer");
    const captures = () => stripe.requests.filter((r) => r.path.endsWith("/capture")).length;
    const before = captures();
    const again = await operate({ session_id: captured, operation: "capture", currency_code: "USD" });
    expect(again.status, again.text).toBe(409);
    expect(again.json.code).toBe("amount_exceeds_capturable");
    expect(again.json.detail).toMatch(/captures an authorization once/);
    expect(captures()).toBe(before);

    const voided = await paid(pg.authorize, "8.00");
    const void_ = await operate({ session_id: voided, operation: "void", currency_code: "USD" });
    expect(void_.status, void_.text).toBe(200);
    expect(intentOf(voided)!.status).toBe("canceled");
    expect((await payment(voided)).voided_amount).toBe("8.00");
    // Stripe tells of svc's own capture and cancel too: svc recognises both, relays nothing.
    await eventsAnswered(AUTHORIZE.secretKey, ["payment_intent.succeeded", "payment_intent.canceled"]);
    for (const sessionId of [captured, voided]) {
      expect(opWebhooks(sessionId).filter((r) => r.json.source === "pg")).toEqual([]);
      expect(
        await stack.db.query("select rule from gateway_discrepancies where parent_session_id = $1", [
          sessionId,
        ]),
      ).toEqual([]);
    }
    expect((await payment(voided)).voided_amount).toBe("8.00");
    expect((await payment(captured)).captured_amount).toBe("6.00");
  });

  it("svc's own void whose answer was lost: Stripe's cancel event is asked again until the void is settled, then recognised as svc's", async () => {
    const sessionId = await paid(pg.authorize, "4.00");
    stripe.faults.push({ loseAnswers: 2, path: /\/cancel$/, method: "POST" });
    const key = `void-${sessionId}`;
    try {
      const lost = await operate({ session_id: sessionId, operation: "void", currency_code: "USD" }, key);
      expect(lost.status, lost.text).toBe(504);
    } finally {
      stripe.faults.length = 0; // none left for the tests after this one
    }
    const pi = intentOf(sessionId)!;
    expect(pi.status).toBe("canceled");
    const cancelEvent = stripe
      .events(AUTHORIZE.secretKey)
      .find((e) => e.type === "payment_intent.canceled" && (e.data.object as { id: string }).id === pi.id)!;
    const answers = () => stripe.deliveries.filter((d) => d.eventId === cancelEvent.id).map((d) => d.status);
    // While svc's void waits for an answer, the event is refused (Stripe sends it again).
    await until(
      () => (answers().includes(409) ? true : undefined),
      "the cancel event refused while the void is pending",
    );
    const retried = await operate({ session_id: sessionId, operation: "void", currency_code: "USD" }, key);
    expect(retried.status, retried.text).toBe(200);
    await until(
      () => (answers().includes(200) ? true : undefined),
      "the cancel event acknowledged after the void",
    );
    expect(await payment(sessionId)).toMatchObject({ voided_amount: "4.00", capturable_amount: "0.00" });
    expect(opWebhooks(sessionId).filter((r) => r.json.source === "pg")).toEqual([]);
    expect(
      await stack.db.query("select rule from gateway_discrepancies where parent_session_id = $1", [
        sessionId,
      ]),
    ).toEqual([]);
  });

  it("a capture and a cancel made on Stripe's dashboard are relayed once each with source pg", async () => {
    const captured = await paid(pg.authorize, "9.00");
    const capture = stripe.dashboardCapture(intentOf(captured)!.id, 700);
    const relayed = await until(
      () => opWebhooks(captured).find((r) => r.json.source === "pg" && r.json.operation === "capture"),
      "the relayed capture's webhook",
    );
    expect(relayed.json).toMatchObject({ amount: "7.00", pg_code: pg.authorize, result: "success" });
    expect(relayed.json.pg_response).toMatchObject({ payment_intent: capture.id, status: "succeeded" });
    expect(await payment(captured)).toMatchObject({ captured_amount: "7.00", capturable_amount: "0.00" });
    // Refundable now, through svc, as a capture made by svc would be.
    const refund = await operate({
      session_id: captured,
      operation: "refund",
      amount: "2.00",
      currency_code: "USD",
    });
    expect(refund.status, refund.text).toBe(200);

    const released = await paid(pg.authorize, "5.00");
    stripe.dashboardCancel(intentOf(released)!.id);
    const voided = await until(
      () => opWebhooks(released).find((r) => r.json.source === "pg" && r.json.operation === "void"),
      "the relayed void's webhook",
    );
    expect(voided.json).toMatchObject({ amount: "5.00", pg_code: pg.authorize, result: "success" });
    expect(await payment(released)).toMatchObject({ voided_amount: "5.00", capturable_amount: "0.00" });

    // However many events told them (charge.captured, payment_intent.succeeded, …): one each.
    await eventsAnswered(AUTHORIZE.secretKey, ["payment_intent.canceled"]);
    expect(opWebhooks(captured).filter((r) => r.json.source === "pg")).toHaveLength(1);
    expect(opWebhooks(released).filter((r) => r.json.source === "pg")).toHaveLength(1);
    expect(await discrepancies(captured)).toEqual([]);
    expect(await discrepancies(released)).toEqual([]);
  });

  it("refunds with the reference number as Idempotency-Key and in metadata; Stripe's later events make no second refund", async () => {
    const sessionId = await paid(pg.purchase, "30.00");
    const refund = await operate({
      session_id: sessionId,
      operation: "refund",
      amount: "12.50",
      currency_code: "USD",
    });
    expect(refund.status, refund.text).toBe(200);
    const reference = refund.json.reference_number as string;
    const atStripe = stripe.refunds().filter((r) => r.payment_intent === intentOf(sessionId)!.id);
    expect(atStripe).toHaveLength(1);
    expect(atStripe[0]).toMatchObject({
      amount: 1250,
      status: "succeeded",
      metadata: { reference_number: reference },
    });
    expect(
      stripe.requests.find(
        (r) => r.path === "/v1/refunds" && r.method === "POST" && r.idempotencyKey === reference,
      ),
    ).toBeDefined();
    // Stripe tells of that refund in several events; svc recognises its own and records nothing new.
    await eventsAnswered(PURCHASE.secretKey, ["refund.created", "charge.refunded"]);
    const status = await payment(sessionId);
    expect(status).toMatchObject({ refunded_amount: "12.50", refundable_amount: "17.50" });
    expect(opWebhooks(sessionId).filter((r) => r.json.operation === "refund")).toHaveLength(1);
  });

  it("a refund made on Stripe's dashboard is relayed once with source pg, however many signed events tell it", async () => {
    const sessionId = await paid(pg.purchase, "40.00");
    const pi = intentOf(sessionId)!;
    const made = stripe.dashboardRefund(pi.id, 1500);
    const hook = await until(
      () => opWebhooks(sessionId).find((r) => r.json.source === "pg" && r.json.operation === "refund"),
      "the relayed refund's webhook",
    );
    expect(hook.json).toMatchObject({ amount: "15.00", pg_code: pg.purchase, result: "success" });
    expect(hook.json.pg_response).toMatchObject({ refund: made.id });
    // Every event about it is answered 2xx before counting.
    await eventsAnswered(PURCHASE.secretKey, ["refund.created", "charge.refunded"]);
    expect(opWebhooks(sessionId).filter((r) => r.json.source === "pg")).toHaveLength(1);
    expect((await payment(sessionId)).refunded_amount).toBe("15.00");
    expect(await discrepancies(sessionId)).toEqual([]);
  });

  it("a full refund made on Stripe's dashboard: the events after the first are the same refund, not one too many", async () => {
    // Each event re-reads the refund: the second finds nothing left to refund in svc's books, as
    // the relayed one took it all, and once went to the Discrepancies page as a refund too many.
    const sessionId = await paid(pg.purchase, "12.00");
    stripe.dashboardRefund(intentOf(sessionId)!.id);
    await until(
      () => opWebhooks(sessionId).find((r) => r.json.source === "pg" && r.json.operation === "refund"),
      "the relayed refund's webhook",
    );
    await eventsAnswered(PURCHASE.secretKey, ["refund.created", "charge.refunded"]);
    expect(opWebhooks(sessionId).filter((r) => r.json.source === "pg")).toHaveLength(1);
    expect(await payment(sessionId)).toMatchObject({ refunded_amount: "12.00", refundable_amount: "0.00" });
    expect(await discrepancies(sessionId)).toEqual([]);
  });

  it("a refund on Stripe's dashboard of a payment svc never made (another system's on the account) is acknowledged, nothing relayed", async () => {
    // It was a 404 ("No payment with pg_reference …"), which Stripe retries for three days.
    const elsewhere = new Stripe(PURCHASE.secretKey, {
      apiVersion: STRIPE_API_VERSION as Stripe.LatestApiVersion,
      host: "127.0.0.1",
      port: Number(new URL(stripe.url).port),
      protocol: "http",
    });
    const pi = await elsewhere.paymentIntents.create({
      amount: 2_500,
      currency: "usd",
      payment_method: "pm_card_visa",
      confirm: true,
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
    });
    expect(pi.status).toBe("succeeded");
    const before = receiver.requests.length;
    stripe.dashboardRefund(pi.id, 1_000);
    await eventsAnswered(PURCHASE.secretKey, ["refund.created", "charge.refunded"]);
    expect(receiver.requests.length).toBe(before);
  });

  it("a pending refund is queued (202) and finished by Stripe's event", async () => {
    const tx = (
      await createTransaction(stack, m, { pg_codes: [pg.purchase], amount: "9.00", currency_code: "USD" })
    ).json;
    expect((await payByCard(tx.session_id, pg.purchase, "4000000000007726")).status).toBe(303);
    const refund = await operate({ session_id: tx.session_id, operation: "refund", currency_code: "USD" });
    expect(refund.status, refund.text).toBe(202);
    expect(refund.json.result).toBe("queued");
    const final = await until(
      () =>
        opWebhooks(tx.session_id).find((r) => r.json.operation === "refund" && r.json.result === "success"),
      "the refund's final webhook",
    );
    expect(final.json.reference_number).toBe(refund.json.reference_number);
    expect((await payment(tx.session_id)).refunded_amount).toBe("9.00");
  });

  it("a pending refund whose event never comes is finished by asking Stripe (the queued sweep), with one final webhook", async () => {
    const tx = (
      await createTransaction(stack, m, { pg_codes: [pg.unheard], amount: "7.00", currency_code: "USD" })
    ).json;
    expect((await payByCard(tx.session_id, pg.unheard, "4000000000007726")).status).toBe(303);
    const refund = await operate({ session_id: tx.session_id, operation: "refund", currency_code: "USD" });
    expect([refund.status, refund.json.result], refund.text).toEqual([202, "queued"]);
    const sweepQueued = () => stack.service.app.services.operations.sweepQueued();
    // Still pending at Stripe, or asked less than a second ago: nothing finished.
    await until(
      () =>
        stripe.refunds().find((r) => r.metadata?.reference_number === refund.json.reference_number)
          ?.status === "succeeded" || undefined,
      "Stripe's refund succeeded",
    );
    const finished = await until(
      async () => ((await sweepQueued()) > 0 ? true : undefined),
      "the queued sweep finishing the refund",
    );
    expect(finished).toBe(true);
    const final = await until(
      () =>
        opWebhooks(tx.session_id).find((r) => r.json.operation === "refund" && r.json.result === "success"),
      "the refund's final webhook",
    );
    expect(final.json.reference_number).toBe(refund.json.reference_number);
    expect((await payment(tx.session_id)).refunded_amount).toBe("7.00");
    // Asked again later: nothing is finished twice.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await sweepQueued()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(opWebhooks(tx.session_id).filter((r) => r.json.result === "success")).toHaveLength(1);
  });

  it("a refund Stripe answered done and later reports failed goes to the Discrepancies page", async () => {
    const tx = (
      await createTransaction(stack, m, { pg_codes: [pg.purchase], amount: "6.00", currency_code: "USD" })
    ).json;
    expect((await payByCard(tx.session_id, pg.purchase, "4000000000005126")).status).toBe(303);
    const refund = await operate({
      session_id: tx.session_id,
      operation: "refund",
      amount: "2.00",
      currency_code: "USD",
    });
    expect(refund.status, refund.text).toBe(200);
    const found = await until(
      async () => (await discrepancies(tx.session_id))[0],
      "the discrepancy of the failed refund",
    );
    expect(found).toMatchObject({
      kind: "gateway_operation",
      rule: "operation_failed_after_success",
      operation: "refund",
      amount: "2.00",
      operation_session_id: refund.json.txn.session_id,
    });
    expect(found.pg_response).toMatchObject({ status: "failed" });
  });

  it("a refund made on Stripe's dashboard that fails after it was relayed goes to the Discrepancies page", async () => {
    const tx = (
      await createTransaction(stack, m, { pg_codes: [pg.purchase], amount: "7.00", currency_code: "USD" })
    ).json;
    // Stripe's test card whose refunds succeed, then fail.
    expect((await payByCard(tx.session_id, pg.purchase, "4000000000005126")).status).toBe(303);
    // It fails 2 s later, long after svc has relayed it (svc reads the refund back from Stripe:
    // read once it has failed, it was never done, and nothing is relayed or reported).
    const made = stripe.dashboardRefund(intentOf(tx.session_id)!.id, 300, { settleAfterMs: 2_000 });
    const relayed = await until(
      () => opWebhooks(tx.session_id).find((r) => r.json.source === "pg" && r.json.operation === "refund"),
      "the relayed refund's webhook",
    );
    expect(relayed.json).toMatchObject({ amount: "3.00", result: "success" });
    const found = await until(
      async () => (await discrepancies(tx.session_id))[0],
      "the discrepancy of the failed dashboard refund",
    );
    expect(found).toMatchObject({
      kind: "gateway_operation",
      rule: "operation_failed_after_success",
      operation: "refund",
      amount: "3.00",
      operation_session_id: relayed.json.txn.session_id,
    });
    expect(found.pg_response).toMatchObject({ refund: made.id, status: "failed" });
    // However many events told the failure: one discrepancy, and the relayed refund once.
    await eventsAnswered(PURCHASE.secretKey, ["refund.failed"]);
    expect(await discrepancies(tx.session_id)).toHaveLength(1);
    expect(opWebhooks(tx.session_id).filter((r) => r.json.source === "pg")).toHaveLength(1);
  });

  it("a payment whose answer was lost is paid by Stripe's event at once, found by the attempt its metadata names", async () => {
    // svc stored no PaymentIntent id (the answer never came), so the event's id names nothing of
    // svc's: it once waited for the attempt sweep, which closes an attempt it cannot find as unpaid.
    const tx = (
      await createTransaction(stack, m, { pg_codes: [pg.purchase], amount: "3.00", currency_code: "USD" })
    ).json;
    // Every answer to the payment lost, and the lookups by attempt failing meanwhile: the checkout
    // cannot tell what happened; only Stripe's event can.
    stripe.faults.push(
      { loseAnswers: 5, path: /^\/v1\/payment_intents$/, method: "POST" },
      { failNext: 20, status: 500, path: /^\/v1\/payment_intents$/, method: "GET" },
    );
    try {
      const page = await payByCard(tx.session_id, pg.purchase, "4242424242424242");
      expect(page.status).toBeLessThan(500);
    } finally {
      stripe.faults.length = 0; // none left for the tests after this one
    }
    await until(
      async () => ((await payment(tx.session_id)).state === "paid" ? true : undefined),
      "the payment paid by Stripe's event",
    );
    expect((await payment(tx.session_id)).pg_response).toMatchObject({
      payment_intent: intentOf(tx.session_id)!.id,
    });
  });

  /**
   * Stripe's events to `target`, each held unanswered (Stripe waits for it, and retries nothing)
   * until `open()`, then passed on as sent, with svc's answer.
   */
  async function eventGate(target: string) {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        void opened
          .then(() =>
            fetch(target, {
              method: "POST",
              headers: {
                "content-type": req.headers["content-type"] ?? "",
                "stripe-signature": String(req.headers["stripe-signature"] ?? ""),
              },
              body: Buffer.concat(chunks),
            }),
          )
          .then(async (answer) => res.writeHead(answer.status).end(await answer.text()))
          .catch(() => res.writeHead(502).end());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      open,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it.each([
    {
      what: "released",
      operation: "void",
      act: (pi: string) => stripe.dashboardCancel(pi),
      event: "payment_intent.canceled",
      after: { voided_amount: "6.00", captured_amount: "0.00" },
    },
    {
      what: "captured in part",
      operation: "capture",
      act: (pi: string) => stripe.dashboardCapture(pi, 400),
      event: "payment_intent.succeeded",
      after: { captured_amount: "4.00", voided_amount: "0.00" },
    },
  ])(
    "an authorization $what on Stripe's dashboard before svc heard of it: authorized, then the $operation from the gateway, no discrepancy",
    async ({ operation, act, event, after }) => {
      const notifications = `${stack.url}/v1/gateways/${pg.authorize}/notifications`;
      const gate = await eventGate(notifications);
      stripe.setWebhookUrl(AUTHORIZE.secretKey, gate.url);
      try {
        const tx = (
          await createTransaction(stack, m, {
            pg_codes: [pg.authorize],
            amount: "6.00",
            currency_code: "USD",
          })
        ).json;
        const sessionId = tx.session_id as string;
        // The authorization's answer is lost and svc cannot look it up: it does not know of it.
        stripe.faults.push(
          { loseAnswers: 5, path: /^\/v1\/payment_intents$/, method: "POST" },
          { failNext: 20, status: 500, path: /^\/v1\/payment_intents$/, method: "GET" },
        );
        try {
          const page = await payByCard(sessionId, pg.authorize, "4242424242424242");
          expect(page.status).toBeLessThan(500);
        } finally {
          stripe.faults.length = 0; // none left for the tests after this one
        }
        expect(await payment(sessionId)).toMatchObject({
          capturable_amount: "0.00",
          captured_amount: "0.00",
        });
        // Done on Stripe's dashboard; only then do Stripe's events (held so far) reach svc, and
        // the PaymentIntent svc reads back is canceled or captured.
        act(intentOf(sessionId)!.id);
        gate.open();
        const relayed = await until(
          () => opWebhooks(sessionId).find((r) => r.json.source === "pg" && r.json.operation === operation),
          `the relayed ${operation}'s webhook`,
        );
        expect(relayed.json).toMatchObject({ pg_code: pg.authorize, result: "success" });
        await eventsAnswered(AUTHORIZE.secretKey, [event]);
        expect(await payment(sessionId)).toMatchObject({
          state: "authorized",
          capturable_amount: "0.00",
          ...after,
        });
        expect(opWebhooks(sessionId).filter((r) => r.json.source === "pg")).toHaveLength(1);
        expect(await discrepancies(sessionId)).toEqual([]);
      } finally {
        stripe.setWebhookUrl(AUTHORIZE.secretKey, notifications);
        await gate.close();
      }
    },
  );

  it("a refund whose answer was lost is found by its reference on retry: one refund at Stripe", async () => {
    const sessionId = await paid(pg.purchase, "50.00");
    // Two: the package sends a POST whose connection closed once more by itself, with the same key.
    stripe.faults.push({ loseAnswers: 2, path: /^\/v1\/refunds$/, method: "POST" });
    const key = `lost-${sessionId}`;
    const first = await operate(
      { session_id: sessionId, operation: "refund", amount: "5.00", currency_code: "USD" },
      key,
    );
    const lost = stripe.requests.filter((r) => r.path === "/v1/refunds");
    expect(first.status, JSON.stringify(lost.map((r) => [r.method, r.status, r.idempotencyKey]))).toBe(504);
    const again = await operate(
      { session_id: sessionId, operation: "refund", amount: "5.00", currency_code: "USD" },
      key,
    );
    expect(again.status, again.text).toBe(200);
    expect(stripe.refunds().filter((r) => r.payment_intent === intentOf(sessionId)!.id)).toHaveLength(1);
    expect((await payment(sessionId)).refunded_amount).toBe("5.00");
  });

  it("a capture whose answer was lost: nothing more is capturable meanwhile, and the retry finds the one capture at Stripe", async () => {
    const sessionId = await paid(pg.authorize);
    const captures = () => stripe.requests.filter((r) => r.path.endsWith("/capture") && r.method === "POST");
    stripe.faults.push({ loseAnswers: 2, path: /\/capture$/, method: "POST" });
    const key = `lost-capture-${sessionId}`;
    const body = { session_id: sessionId, operation: "capture", amount: "6.00", currency_code: "USD" };
    const first = await operate(body, key);
    expect(first.status, first.text).toBe(504);
    // Stripe did capture (and so released the rest); svc does not know the answer yet. Nothing is
    // capturable meanwhile, and a second capture is refused without asking Stripe.
    expect(intentOf(sessionId)).toMatchObject({ status: "succeeded", amount_received: 600 });
    expect((await payment(sessionId)).capturable_amount).toBe("0.00");
    const sent = captures().length;
    const other = await operate({ ...body, amount: "2.00" });
    expect(other.status, other.text).toBe(409);
    expect(other.json.code).toBe("amount_exceeds_capturable");
    expect(captures()).toHaveLength(sent);
    // The retry with the same key settles it: one capture at Stripe, one webhook.
    const again = await operate(body, key);
    expect(again.status, again.text).toBe(200);
    expect(again.json).toMatchObject({ result: "success", amount: "6.00" });
    expect(intentOf(sessionId)).toMatchObject({ status: "succeeded", amount_received: 600 });
    expect(await payment(sessionId)).toMatchObject({ captured_amount: "6.00", capturable_amount: "0.00" });
    await until(
      () => opWebhooks(sessionId).find((r) => r.json.operation === "capture" && r.json.result === "success"),
      "the capture's webhook",
    );
    expect(
      opWebhooks(sessionId).filter((r) => r.json.operation === "capture" && r.json.result === "success"),
    ).toHaveLength(1);
  });

  it("a capture Stripe is slower to answer than svc's timeout: the retry while Stripe still works on it changes nothing, the one after finds the capture", async () => {
    const sessionId = await paid(pg.authorize);
    // This payment's capture requests (earlier tests captured others).
    const captures = () =>
      stripe.requests.filter((r) => r.path === `/v1/payment_intents/${intentOf(sessionId)!.id}/capture`);
    stripe.faults.push({ delayMs: GATEWAY_TIMEOUT_MS + 1_500, count: 1, path: /\/capture$/, method: "POST" });
    const key = `slow-capture-${sessionId}`;
    const body = { session_id: sessionId, operation: "capture", amount: "4.00", currency_code: "USD" };
    const first = await operate(body, key);
    expect(first.status, first.text).toBe(504);
    expect((await payment(sessionId)).capturable_amount).toBe("0.00");
    // Stripe is still at it (its Idempotency-Key held): the retry learns nothing yet.
    const early = await operate(body, key);
    expect([502, 504], early.text).toContain(early.status);
    await until(() => (intentOf(sessionId)?.status === "succeeded" ? true : undefined), "Stripe's capture");
    const again = await operate(body, key);
    expect(again.status, again.text).toBe(200);
    expect(again.json).toMatchObject({ result: "success", amount: "4.00" });
    expect(intentOf(sessionId)).toMatchObject({ status: "succeeded", amount_received: 400 });
    // Performed once at Stripe: the only capture answered 200 that was not a replay of the key's.
    expect(captures().filter((r) => r.status === 200 && !r.replayed)).toHaveLength(1);
    expect(await payment(sessionId)).toMatchObject({ captured_amount: "4.00", capturable_amount: "0.00" });
  });

  it("refuses an event whose signature does not verify, and changes nothing", async () => {
    const body = JSON.stringify({
      id: "evt_forged",
      object: "event",
      type: "charge.refunded",
      data: { object: {} },
    });
    const forged = await api(stack, "POST", `/v1/gateways/${pg.purchase}/notifications`, {
      body,
      headers: { "stripe-signature": `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}` },
    });
    expect(forged.status).toBe(401);
    expect(forged.json.code).toBe("invalid_signature");
    // A malformed header (an empty v1=) is a signature that does not verify, not the package's
    // words ("secureCompare must receive two arguments", once a 422).
    const empty = await api(stack, "POST", `/v1/gateways/${pg.purchase}/notifications`, {
      body,
      headers: { "stripe-signature": `t=${Math.floor(Date.now() / 1000)},v1=` },
    });
    expect([empty.status, empty.json.code]).toEqual([401, "invalid_signature"]);
    // Signed, but not an event: said so in svc's words (it was "Cannot read properties of undefined").
    for (const notAnEvent of [
      JSON.stringify({ id: "evt_no_data", object: "event", type: "charge.refunded" }),
      "null",
    ]) {
      const header = Stripe.webhooks.generateTestHeaderString({
        payload: notAnEvent,
        secret: PURCHASE.webhookSecret,
      });
      const r = await api(stack, "POST", `/v1/gateways/${pg.purchase}/notifications`, {
        body: notAnEvent,
        headers: { "stripe-signature": header },
      });
      expect([r.status, r.json.code], notAnEvent).toEqual([422, "validation_failed"]);
      expect(r.json.detail).toContain("data.object");
    }
  });

  it("an event about an object Stripe says does not exist is acknowledged (200), not retried for days; nothing changes", async () => {
    const body = JSON.stringify({
      id: "evt_missing_refund",
      object: "event",
      type: "refund.updated",
      api_version: STRIPE_API_VERSION,
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: "re_does_not_exist", object: "refund" } },
    });
    const header = Stripe.webhooks.generateTestHeaderString({
      payload: body,
      secret: PURCHASE.webhookSecret,
    });
    const before = receiver.requests.length;
    const answered = await api(stack, "POST", `/v1/gateways/${pg.purchase}/notifications`, {
      body,
      headers: { "stripe-signature": header },
    });
    expect(answered.status, answered.text).toBe(200);
    expect(
      stripe.requests.some((r) => r.method === "GET" && r.path === "/v1/refunds/re_does_not_exist"),
    ).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests.length).toBe(before);
  });

  it("an event naming an object by an id Stripe cannot have is acknowledged (200) without asking Stripe; nothing changes", async () => {
    // Each was a 502 "could not read … back from Stripe", which Stripe retries for three days.
    const cases: [string, string][] = [
      ["payment_intent.succeeded", '"pi_\\ud800"'],
      ["refund.updated", '"re_../../v1/charges"'],
      ["charge.refunded", "42"],
      ["payment_intent.canceled", "null"],
    ];
    const before = { stripe: stripe.requests.length, receiver: receiver.requests.length };
    for (const [type, id] of cases) {
      const body = `{"id":"evt_odd_id","object":"event","type":"${type}","api_version":"${STRIPE_API_VERSION}","created":${Math.floor(Date.now() / 1000)},"data":{"object":{"id":${id}}}}`;
      const header = Stripe.webhooks.generateTestHeaderString({
        payload: body,
        secret: PURCHASE.webhookSecret,
      });
      const answered = await api(stack, "POST", `/v1/gateways/${pg.purchase}/notifications`, {
        body,
        headers: { "stripe-signature": header },
      });
      expect(answered.status, `${type} ${id}: ${answered.text}`).toBe(200);
    }
    expect(stripe.requests.length).toBe(before.stripe);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requests.length).toBe(before.receiver);
  });

  it("takes KWD in Stripe's three-decimal form and refuses an amount Stripe cannot charge", async () => {
    const sessionId = await paid(pg.purchase, "5.120", "KWD");
    expect(intentOf(sessionId)).toMatchObject({ amount: 5120, currency: "kwd" });
    const odd = await createTransaction(stack, m, {
      pg_codes: [pg.purchase],
      amount: "5.125",
      currency_code: "KWD",
    });
    expect(odd.status).toBe(422);
    expect(odd.json.errors.amount[0]).toMatch(/5\.120 or 5\.130/);
    // Under Stripe's minimum charge, over its eight digits: refused at checkout, not a burned session.
    for (const [amount, words] of [
      ["0.30", "Stripe charges at least 0.50 USD"],
      ["1000000.00", "Stripe takes at most 999999.99 USD"],
    ] as const) {
      const refused = await createTransaction(stack, m, {
        pg_codes: [pg.purchase],
        amount,
        currency_code: "USD",
      });
      expect(refused.status, amount).toBe(422);
      expect(refused.json.errors.amount).toEqual([words]);
    }
    // A refund of a step Stripe cannot take: refused by svc, nothing reserved, nothing sent.
    const sent = stripe.requests.length;
    const refund = await operate({ operation: "refund", session_id: sessionId, amount: "0.005" });
    expect(refund.status).toBe(422);
    expect(refund.json.errors.amount[0]).toMatch(/steps of 0\.010: use 0\.000 or 0\.010/);
    expect(stripe.requests.length).toBe(sent);
    expect((await payment(sessionId)).refunded_amount).toBe("0.000");
  });

  it("a key Stripe refuses: the refund and the payment say so (not 'could not be reached'), and the customer's browser gets no operator detail", async () => {
    const pgCode = `stripe-revoked-${m.id.slice(4, 10)}`;
    const setting = (secretKey: string) =>
      api(stack, "POST", `/v1/admin/merchants/${m.id}/gateways`, {
        auth: bearer,
        body: {
          pg_code: pgCode,
          kind: "stripe",
          currencies: ["USD"],
          api_base_url: stripe.url,
          credentials: { secret_key: secretKey, webhook_secret: PURCHASE.webhookSecret },
        },
      });
    expect((await setting(PURCHASE.secretKey)).status).toBe(201);
    const sessionId = await paid(pgCode);
    // The key is revoked on Stripe (a key Stripe does not know): saved as the setting's key.
    const revoked = await api(stack, "PATCH", `/v1/admin/merchants/${m.id}/gateways/${pgCode}`, {
      auth: bearer,
      body: { credentials: { secret_key: "sk_test_revokedKey12345678" } },
    });
    expect(revoked.status).toBe(200);
    const refund = await operate({ operation: "refund", session_id: sessionId, amount: "1.00" });
    expect(refund.status).toBe(502);
    expect(refund.json.code).toBe("gateway_request_rejected");
    expect(refund.json.title).toBe("The payment gateway refused the request");
    expect(refund.json.detail).toMatch(/secret key.*save a valid one.*Nothing was done/);
    expect((await payment(sessionId)).refunded_amount).toBe("0.00");

    const tx = (
      await createTransaction(stack, m, { pg_codes: [pgCode], amount: "3.00", currency_code: "USD" })
    ).json;
    await payByCard(tx.session_id, pgCode, "4242424242424242");
    const status = await payment(tx.session_id);
    expect(status.state).toBe("failed");
    expect(status.pg_response).toMatchObject({ error: "gateway_request_rejected" });
    expect(String(status.pg_response.detail)).toMatch(/secret key/);
    const result = await api(stack, "GET", `/v1/checkout/${tx.session_id}/payments/result`, {
      auth: apiKey(m.publicKey),
    });
    expect(result.json.payment_gateway_info.pg_response).toEqual({ error: "gateway_request_rejected" });
    expect(result.text).not.toMatch(/secret key|save a valid|Key12345678/);
  });

  it("every request to Stripe carried the pinned Stripe-Version, and every POST an Idempotency-Key", () => {
    expect(stripe.requests.length).toBeGreaterThan(10);
    for (const r of stripe.requests)
      expect(r.stripeVersion, `${r.method} ${r.path}`).toBe(STRIPE_API_VERSION);
    for (const r of stripe.requests.filter((x) => x.method === "POST"))
      expect(r.idempotencyKey, `${r.method} ${r.path}`).toBeTruthy();
  });
});
