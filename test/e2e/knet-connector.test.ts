/**
 * The KNET connector end to end, on both stores: the real service and the KNET stand-in (KNET's
 * raw integration: encrypted trandata, its payment page, its response POST answered
 * `REDIRECT=…`, its XML server API) over loopback HTTP. The customer's browser is played by
 * plain HTTP (test/support/knet.ts); svc learns nothing from the browser, only from KNET.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encryptTrandata } from "../../packages/service/src/gateways/knet/trandata.js";
import {
  MERCHANT_TIMEOUT_MS,
  startKnetStandIn,
} from "../../packages/service/src/gateways/knet/standin/index.js";
import type { KnetStandIn } from "../../packages/service/src/gateways/knet/standin/types.js";
import { payOnKnet, saveKnetSetting } from "../support/knet.js";
import { api, apiKey, createMerchant, createTransaction, type TestMerchant } from "../support/merchant.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { type Stack, startStack } from "../support/stack.js";
import { STORES } from "../support/stores.js";
import { until } from "../support/until.js";
import { configurePlugin, configureWebhooks } from "../support/webhooks.js";

const TERMINAL = { tranportalId: "880401", password: "880401pg", resourceKey: "K7c9Qw2Lm4Xz8Rt1" };
const PAID = { expiry: "09/2021" };
const DECLINED = { expiry: "10/2022" };

describe.each(STORES)("the KNET connector (%s)", (store) => {
  let stack: Stack;
  let knet: KnetStandIn;
  let receiver: Receiver;
  let m: TestMerchant;
  let pgCode: string;

  beforeAll(async () => {
    // A reservation older than 1 s may be swept: the sweep must never send a KNET refund again.
    stack = await startStack(store, { config: { reservationTimeoutSeconds: 1 } });
    knet = await startKnetStandIn({ terminals: [TERMINAL] });
    receiver = await startReceiver();
    m = await createMerchant(stack);
    pgCode = `knet-${m.id.slice(4, 12)}`;
    const created = await saveKnetSetting(stack, m.id, pgCode, TERMINAL, knet.url);
    expect(created.status, created.text).toBe(201);
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: `${receiver.url}/ops`,
      notify_api_initiated: true,
    });
    await configurePlugin(stack, m, "e_commerce", { webhook_url: null, enabled: true });
  });
  afterAll(async () => {
    await stack?.close();
    await knet?.close();
    await receiver?.close();
  });

  const payment = async (sessionId: string) =>
    (await api(stack, "GET", `/v1/payments/${sessionId}`, { auth: apiKey(m.privateKey) })).json;
  const ledgerOf = (sessionId: string) => knet.payments().find((p) => p.udf1 === sessionId);
  const operate = (body: Record<string, unknown>, key = `key-${Math.random()}`) =>
    api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { currency_code: "KWD", ...body },
      headers: { "idempotency-key": key },
    });
  const refundsAtKnet = () => knet.requests.filter((r) => r.action === "2").length;

  /** A transaction whose customer is sent to KNET's page: its session and the page's URL. */
  async function toKnet(amount = "10.000", language = "en") {
    const tx = (await createTransaction(stack, m, { pg_codes: [pgCode], amount, language })).json;
    const started = await api(stack, "POST", `/v1/checkout/${tx.session_id}/payments`, {
      auth: apiKey(m.publicKey),
      body: { form_of_payment: "redirect", pg_code: pgCode },
    });
    expect(started.status, started.text).toBe(200);
    return { sessionId: tx.session_id as string, pageUrl: started.json.redirect_url as string };
  }

  async function paidOnKnet(amount = "10.000") {
    const { sessionId, pageUrl } = await toKnet(amount);
    await payOnKnet(pageUrl, PAID);
    expect((await payment(sessionId)).state).toBe("paid");
    return sessionId;
  }

  it("reaches KNET's page with trandata KNET accepts; CAPTURED, confirmed by inquiry, pays the transaction", async () => {
    const { sessionId, pageUrl } = await toKnet("20.550");
    expect(pageUrl.startsWith(`${knet.url}/kpg/PaymentHTTP.htm?param=paymentInit&trandata=`)).toBe(true);
    const browser = await payOnKnet(pageUrl, PAID);
    // KNET sent the customer where svc's one-line answer said: svc's result page for the session.
    expect(browser.location).toBe(`${stack.url}/pay/${sessionId}/return`);
    const status = await payment(sessionId);
    const entry = ledgerOf(sessionId)!;
    expect(status).toMatchObject({ state: "paid", captured_amount: "20.550", pg_code: pgCode });
    expect(status.pg_response).toMatchObject({
      result: "SUCCESS",
      paymentid: entry.paymentId,
      tranid: entry.tranId,
      ref: entry.ref,
      auth: entry.auth,
      trackid: entry.trackId,
      amt: "20.550",
    });
    // The initialisation: svc's track id, KWD, the amount with 3 decimals, English.
    const init = knet.requests.find((r) => r.trandata?.trackid === entry.trackId)!;
    expect(init.trandata).toMatchObject({ currencycode: "414", amt: "20.550", langid: "USA", action: "1" });
    // ≤ 19 alphanumerics: it is also the inquiry's and the refund's transid (STRING 19 in the manual).
    expect(entry.trackId).toMatch(/^[A-Za-z0-9]{19}$/);
    // svc confirmed with an inquiry (action 8) before it moved the payment, and kept the response.
    expect(knet.requests.some((r) => r.action === "8" && r.fields.transid === entry.trackId)).toBe(true);
    const [kept] = await stack.db.query<{ raw: string; decoded: Record<string, string>; outcome: string }>(
      "select raw, decoded, outcome from gateway_messages where pg_code = $1 and pg_reference = $2",
      [pgCode, entry.trackId],
    );
    expect(kept!.raw).toMatch(/^trandata=[0-9a-f]+$/);
    expect(kept!.decoded).toMatchObject({ result: "CAPTURED", paymentid: entry.paymentId });
    expect(kept!.outcome).toBe("approved");
  });

  it("NOT CAPTURED and CANCELED end the payment with KNET's fields for the national-debit popup", async () => {
    const declined = await toKnet("5.000", "ar");
    await payOnKnet(declined.pageUrl, DECLINED);
    const d = await payment(declined.sessionId);
    expect(d.state).toBe("failed");
    expect(d.pg_response).toMatchObject({
      result: "NOT CAPTURED",
      authRespCode: "51",
      trackid: ledgerOf(declined.sessionId)!.trackId,
    });
    expect(knet.requests.find((r) => r.trandata?.udf1 === declined.sessionId)!.trandata!.langid).toBe("AR");
    const result = await api(stack, "GET", `/v1/checkout/${declined.sessionId}/payments/result`, {
      auth: apiKey(m.publicKey),
    });
    expect(result.json).toMatchObject({
      status: "canceled",
      payment_gateway_info: { pg_code: pgCode, pg_name: "knet" },
    });
    expect(result.json.payment_gateway_info.pg_response.result).toBe("NOT CAPTURED");

    const canceled = await toKnet("5.000");
    await payOnKnet(canceled.pageUrl, "cancel");
    const c = await payment(canceled.sessionId);
    expect(c.state).toBe("canceled");
    expect(c.pg_response.result).toBe("CANCELED");
  });

  it("a forged or tampered response changes nothing (401), and a well-formed one KNET's inquiry does not confirm changes nothing either", async () => {
    const { sessionId } = await toKnet("7.000");
    const [attempt] = await stack.db.query<{ pg_reference: string }>(
      "select pg_reference from payment_attempts where session_id = $1",
      [sessionId],
    );
    const trackId = attempt!.pg_reference;
    const claim = `paymentid=1111222233334444&result=CAPTURED&auth=123456&avr=N&ref=123412341234&tranid=5555666677778888&postdate=1126&trackid=${trackId}&udf1=${sessionId}&udf2=&udf3=&udf4=&udf5=&amt=7.000&authRespCode=00`;
    const post = (trandata: string) =>
      fetch(`${stack.url}/v1/gateways/${pgCode}/notifications`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `trandata=${trandata}`,
      });
    const forged = await post(encryptTrandata(claim, "WrongKey12345678"));
    expect(forged.status).toBe(401);
    const genuine = encryptTrandata(claim, TERMINAL.resourceKey);
    const tampered = `${genuine.slice(0, 40)}${genuine[40] === "0" ? "1" : "0"}${genuine.slice(41)}`;
    expect((await post(tampered)).status).toBe(401);
    // Encrypted right (anyone holding the key, or a replay) but KNET has no such payment: unconfirmed.
    const unconfirmed = await post(genuine);
    expect(unconfirmed.status).toBe(200);
    expect(await unconfirmed.text()).toBe(`REDIRECT=${stack.url}/pay/${sessionId}/return`);
    expect((await payment(sessionId)).state).toBe("attempted");
    const [kept] = await stack.db.query<{ outcome: string }>(
      "select outcome from gateway_messages where pg_code = $1 and pg_reference = $2",
      [pgCode, trackId],
    );
    expect(kept!.outcome).toBe("not_confirmed");
    // A NUL in a posted field: refused in svc's words, never the database's ("invalid byte sequence").
    const nul = await fetch(`${stack.url}/v1/gateways/${pgCode}/notifications`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "trackid=%00",
    });
    const text = await nul.text();
    expect(nul.status, text).toBeGreaterThanOrEqual(400);
    expect(nul.status, text).toBeLessThan(500);
    expect(text).not.toMatch(/byte sequence|UTF8|0x00/);
  });

  it("a plain error post (no trandata) applies nothing, and is kept as KNET's fields within a bound however large it is", async () => {
    const { sessionId } = await toKnet("6.000");
    const [attempt] = await stack.db.query<{ pg_reference: string }>(
      "select pg_reference from payment_attempts where session_id = $1",
      [sessionId],
    );
    const trackId = attempt!.pg_reference;
    // Anyone can post this naming a known track id: a megabyte of padding and a long ErrorText.
    const form = new URLSearchParams({
      Error: "IPAY0100042",
      ErrorText: "x".repeat(10_000),
      paymentid: "1111222233334444",
      trackid: trackId,
      pad: "p".repeat(900_000),
    });
    const posted = await fetch(`${stack.url}/v1/gateways/${pgCode}/notifications`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    });
    expect(posted.status).toBe(200);
    expect(await posted.text()).toBe(`REDIRECT=${stack.url}/pay/${sessionId}/return`);
    expect((await payment(sessionId)).state).toBe("attempted");
    const [kept] = await stack.db.query<{ raw: string; decoded: Record<string, string>; outcome: string }>(
      "select raw, decoded, outcome from gateway_messages where pg_code = $1 and pg_reference = $2",
      [pgCode, trackId],
    );
    expect(kept!.outcome).toBe("knet_error");
    expect(kept!.decoded).toEqual({
      Error: "IPAY0100042",
      ErrorText: "x".repeat(255),
      paymentid: "1111222233334444",
      trackid: trackId,
    });
    expect(kept!.raw.startsWith("Error=IPAY0100042&ErrorText=xxx")).toBe(true);
    expect(kept!.raw.length).toBeLessThan(4_200);
    expect(kept!.raw).toMatch(/… \(\d+ more characters not kept\)$/);
  });

  it("a customer who paid and closed the browser is found by inquiry: by the checkout's poll, and by the sweep", async () => {
    knet.faults.dropResponseNotification = true;
    try {
      const polled = await toKnet("3.000");
      await payOnKnet(polled.pageUrl, PAID);
      expect(ledgerOf(polled.sessionId)!.result).toBe("CAPTURED");
      expect((await payment(polled.sessionId)).state).toBe("attempted");
      const result = await until(async () => {
        const r = await api(stack, "GET", `/v1/checkout/${polled.sessionId}/payments/result`, {
          auth: apiKey(m.publicKey),
        });
        return r.json.status === "success" ? r.json : undefined;
      }, "the poll to find the payment");
      expect(result.payment_gateway_info.pg_response.result).toBe("SUCCESS");

      const swept = await toKnet("4.000");
      await payOnKnet(swept.pageUrl, PAID);
      await stack.db.query(
        "update payment_attempts set updated_at = now() - interval '10 minutes' where session_id = $1",
        [swept.sessionId],
      );
      await stack.service.app.services.checkout.sweepAttempts(60);
      expect((await payment(swept.sessionId)).state).toBe("paid");
    } finally {
      knet.faults.dropResponseNotification = false;
    }
  });

  it("an answer that is not KNET's (a proxy's HTML page with HTTP 200) is unknown: the waiting payment is not failed, the customer pays, it is paid; a refund so answered is 504", async () => {
    const { sessionId, pageUrl } = await toKnet("6.500");
    const resultOf = async () =>
      (
        await api(stack, "GET", `/v1/checkout/${sessionId}/payments/result`, {
          auth: apiKey(m.publicKey),
        })
      ).json;
    const inquiries = () => knet.requests.filter((r) => r.path === "/kpg/tranPipe.htm").length;
    // While the customer is on KNET's page, a proxy in front of KNET's server API answers HTML 200.
    knet.faults.tranPipeStatus = 200;
    try {
      // The result page's poll asks KNET and gets the page (the service's own sweep, every second
      // in this stack, asks too): the payment keeps waiting.
      const asked = inquiries();
      expect((await resultOf()).status).toBe("pending");
      expect(inquiries()).toBeGreaterThan(asked);
      await stack.db.query(
        "update payment_attempts set updated_at = now() - interval '10 minutes' where session_id = $1",
        [sessionId],
      );
      await stack.service.app.services.checkout.sweepAttempts(60);
      expect((await payment(sessionId)).state).toBe("attempted");
    } finally {
      delete knet.faults.tranPipeStatus;
    }
    // The customer pays; KNET's server API answers again: svc confirms it and the order is paid.
    await payOnKnet(pageUrl, PAID);
    expect(ledgerOf(sessionId)).toMatchObject({ result: "CAPTURED", voided: false });
    expect((await payment(sessionId)).state).toBe("paid");
    const none = await api(stack, "GET", `/v1/discrepancies?session_id=${sessionId}`, {
      auth: apiKey(m.privateKey),
    });
    expect(none.json.discrepancies).toEqual([]);

    // A refund answered by such a page may have been done: unknown, never a decline.
    knet.faults.tranPipeStatus = 200;
    try {
      const refund = await operate({ session_id: sessionId, operation: "refund", amount: "1.000" });
      expect(refund.status, refund.text).toBe(504);
      expect(refund.json.code).toBe("gateway_outcome_unknown");
    } finally {
      delete knet.faults.tranPipeStatus;
    }
    expect((await payment(sessionId)).refundable_amount).toBe("5.500");
    const listed = await api(stack, "GET", `/v1/discrepancies?session_id=${sessionId}`, {
      auth: apiKey(m.privateKey),
    });
    expect(listed.json.discrepancies).toMatchObject([
      { kind: "unknown_outcome", status: "open", operation: "refund", amount: "1.000" },
    ]);
  });

  it("an inquiry slower than KNET's wait: svc answers REDIRECT= in time (KNET keeps the payment), a later inquiry confirms it, paid with one webhook", async () => {
    const tx = (
      await createTransaction(stack, m, {
        pg_codes: [pgCode],
        amount: "9.250",
        webhook_url: `${receiver.url}/knet-slow`,
      })
    ).json;
    const sessionId = tx.session_id as string;
    const started = await api(stack, "POST", `/v1/checkout/${sessionId}/payments`, {
      auth: apiKey(m.publicKey),
      body: { form_of_payment: "redirect", pg_code: pgCode },
    });
    expect(started.status, started.text).toBe(200);
    // KNET's server API answers after KNET's own wait for REDIRECT= (10 s, as KNET's) is over.
    knet.faults.tranPipeDelayMs = MERCHANT_TIMEOUT_MS + 1_000;
    let browser: Awaited<ReturnType<typeof payOnKnet>>;
    const paidAt = Date.now();
    try {
      browser = await payOnKnet(started.json.redirect_url as string, PAID);
    } finally {
      knet.faults.tranPipeDelayMs = 0;
    }
    // svc answered within KNET's wait: KNET did not reverse the payment and sent the customer to svc.
    expect(Date.now() - paidAt).toBeLessThan(MERCHANT_TIMEOUT_MS);
    expect(browser.location).toBe(`${stack.url}/pay/${sessionId}/return`);
    expect(ledgerOf(sessionId)).toMatchObject({
      result: "CAPTURED",
      voided: false,
      notification: "redirected",
    });
    // Not paid on KNET's claim alone, and not failed for a slow inquiry: the handler decided nothing.
    const trackId = ledgerOf(sessionId)!.trackId;
    const [kept] = await stack.db.query<{ outcome: string }>(
      "select outcome from gateway_messages where pg_code = $1 and pg_reference = $2",
      [pgCode, trackId],
    );
    expect(kept!.outcome).toBe("inquiry_failed");
    expect(["attempted", "paid"]).toContain((await payment(sessionId)).state);
    // The sweep asks KNET about the payment still waiting (so does the result page's poll; the
    // service's own sweep runs every second in this stack and may be first): KNET's inquiry,
    // made after REDIRECT=, confirms it.
    await stack.db.query(
      "update payment_attempts set updated_at = now() - interval '10 minutes' where session_id = $1 and status = 'action_required'",
      [sessionId],
    );
    await stack.service.app.services.checkout.sweepAttempts(60);
    const paid = await until(async () => {
      const p = await payment(sessionId);
      return p.state === "attempted" ? undefined : p;
    }, "a later inquiry to settle the payment");
    expect(paid).toMatchObject({ state: "paid", captured_amount: "9.250" });
    // SUCCESS is the inquiry's word (KNET's response said CAPTURED): a later inquiry paid it.
    expect(paid.pg_response.result).toBe("SUCCESS");
    const result = await api(stack, "GET", `/v1/checkout/${sessionId}/payments/result`, {
      auth: apiKey(m.publicKey),
    });
    expect(result.json.status).toBe("success");
    const [hook] = await receiver.waitFor(1, { path: "/knet-slow" });
    expect(hook!.json).toMatchObject({ session_id: sessionId, state: "paid", pg_code: pgCode });
    // One payment, one webhook: nothing more is sent for it.
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.requests.filter((r) => r.path === "/knet-slow")).toHaveLength(1);
  });

  it("a payment KNET never saw is given up after 30 min; if the customer pays after all, it is a discrepancy to refund", async () => {
    const { sessionId, pageUrl } = await toKnet("2.000");
    // Half an hour ago, as svc's attempt sees it; KNET has no transaction for it yet.
    await stack.db.query(
      "update payment_attempts set created_at = now() - interval '31 minutes', updated_at = now() - interval '31 minutes' where session_id = $1",
      [sessionId],
    );
    await stack.service.app.services.checkout.sweepAttempts(60);
    const closed = await payment(sessionId);
    expect(closed.state).toBe("canceled");
    expect(closed.pg_response).toMatchObject({ result: "NOT FOUND", error_code: "IPAY0100263" });
    await payOnKnet(pageUrl, PAID);
    expect(ledgerOf(sessionId)!.result).toBe("CAPTURED");
    expect((await payment(sessionId)).state).toBe("canceled");
    const listed = await api(stack, "GET", `/v1/discrepancies?session_id=${sessionId}`, {
      auth: apiKey(m.privateKey),
    });
    expect(listed.json.discrepancies).toHaveLength(1);
    expect(listed.json.discrepancies[0]).toMatchObject({
      kind: "late_payment",
      status: "open",
      amount: "2.000",
      rule: "payment_after_close",
    });
  });

  it("refunds: partial and full through the XML API, over the paid amount refused, KNET's decline passed on; capture and void refused before KNET", async () => {
    const sessionId = await paidOnKnet("10.000");
    const partial = await operate({ session_id: sessionId, operation: "refund", amount: "2.500" });
    expect(partial.status, partial.text).toBe(200);
    expect(partial.json).toMatchObject({ result: "success", pg_code: pgCode });
    expect(partial.json.pg_response).toMatchObject({
      result: "CAPTURED",
      paymentid: ledgerOf(sessionId)!.paymentId,
    });
    expect(ledgerOf(sessionId)!.refunded).toBe("2.500");
    const hook = await until(
      () =>
        receiver.requests.find(
          (r) => r.path === "/ops" && r.json.reference_number === partial.json.reference_number,
        ),
      "the refund's operation webhook",
    );
    expect(hook.json).toMatchObject({
      operation: "refund",
      pg_code: pgCode,
      source: "input",
      amount: "2.500",
    });
    expect(hook.json.pg_response.result).toBe("CAPTURED");

    const over = await operate({ session_id: sessionId, operation: "refund", amount: "7.501" });
    expect(over.status).toBe(409);
    expect(over.json.code).toBe("amount_exceeds_refundable");
    const declined = await operate({ session_id: sessionId, operation: "refund", amount: "1.013" });
    expect(declined.status).toBe(402);
    expect(declined.json.pg_response.result).toBe("NOT CAPTURED");
    const rest = await operate({ session_id: sessionId, operation: "refund" });
    expect(rest.status, rest.text).toBe(200);
    expect(ledgerOf(sessionId)!.refunded).toBe("10.000");
    expect((await payment(sessionId)).refunded_amount).toBe("10.000");

    const other = await paidOnKnet("6.000");
    // Only what concerns this payment: the sweep keeps asking KNET about other tests' payments
    // still on KNET's page (every second here), which once made this count move.
    const trackId = ledgerOf(other)!.trackId;
    const aboutOther = () => knet.requests.filter((r) => r.fields?.trackid === trackId && r.action !== "8");
    const atKnet = aboutOther().length;
    for (const operation of ["capture", "void"]) {
      const refused = await operate({ session_id: other, operation, amount: "1.000" });
      expect(refused.status).toBe(409);
      expect(refused.json).toMatchObject({ code: "invalid_state_for_operation" });
      expect(refused.json.detail).toContain(`does not support ${operation}`);
    }
    expect(aboutOther().length).toBe(atKnet);
  });

  it("a refund whose answer was lost is never sent again: 504 on every retry, on the Discrepancies page, settled by hand", async () => {
    const sessionId = await paidOnKnet("8.000");
    const refunds = refundsAtKnet();
    knet.faults.loseRefundAnswers = 1;
    const key = `lost-${sessionId}`;
    const first = await operate({ session_id: sessionId, operation: "refund", amount: "3.000" }, key);
    expect(first.status, first.text).toBe(504);
    expect(first.json.code).toBe("gateway_outcome_unknown");
    expect(first.json.detail).toContain("Discrepancies");
    const again = await operate({ session_id: sessionId, operation: "refund", amount: "3.000" }, key);
    expect(again.status).toBe(504);
    expect(again.json.detail).toBe(first.json.detail);
    // The sweep leaves it as it is (its reservation is older than the 1 s timeout by now): it does
    // not even claim it, so it takes none of a sweep's room from reservations it can settle.
    const [claimedBefore] = await stack.db.query<{ updated_at: Date }>(
      "select o.updated_at from operations o join gateway_discrepancies d on d.gateway_operation_id = o.reference_number where d.kind = 'unknown_outcome' and o.parent_session_id = $1",
      [sessionId],
    );
    await new Promise((r) => setTimeout(r, 1_100));
    await stack.service.app.services.operations.sweepReservations();
    expect(refundsAtKnet()).toBe(refunds + 1);
    const [claimedAfter] = await stack.db.query<{ updated_at: Date }>(
      "select updated_at from operations where parent_session_id = $1 and state = 'refund_pending'",
      [sessionId],
    );
    expect(new Date(claimedAfter!.updated_at).getTime()).toBe(new Date(claimedBefore!.updated_at).getTime());
    expect(ledgerOf(sessionId)!.refunded).toBe("3.000");
    // In flight, it still counts: no more than 5.000 can be refunded meanwhile.
    expect((await payment(sessionId)).refundable_amount).toBe("5.000");

    const listed = await api(stack, "GET", `/v1/discrepancies?session_id=${sessionId}`, {
      auth: apiKey(m.privateKey),
    });
    const discrepancy = listed.json.discrepancies[0];
    expect(discrepancy).toMatchObject({
      kind: "unknown_outcome",
      status: "open",
      operation: "refund",
      amount: "3.000",
    });
    const withoutOutcome = await api(stack, "POST", `/v1/discrepancies/${discrepancy.id}/resolve`, {
      auth: apiKey(m.privateKey),
      body: { note: "checked" },
    });
    expect(withoutOutcome.status).toBe(422);
    const settled = await api(stack, "POST", `/v1/discrepancies/${discrepancy.id}/resolve`, {
      auth: apiKey(m.privateKey),
      body: { note: "KNET's portal shows the refund of 3.000", outcome: "done" },
    });
    expect(settled.status, settled.text).toBe(200);
    expect(settled.json.resolution).toMatchObject({ outcome: "done" });
    expect((await payment(sessionId)).refunded_amount).toBe("3.000");
    const after = await operate({ session_id: sessionId, operation: "refund", amount: "3.000" }, key);
    expect(after.status, after.text).toBe(200);
    expect(after.json.result).toBe("success");
    await until(
      () =>
        receiver.requests.find(
          (r) => r.path === "/ops" && r.json.reference_number === after.json.reference_number,
        ),
      "the settled refund's webhook",
    );
    expect(refundsAtKnet()).toBe(refunds + 1);

    // The other way: a proxy in front of KNET failed (502), KNET's portal shows no such refund,
    // so it is removed and its key declines.
    knet.faults.tranPipeStatus = 502;
    const lostKey = `lost2-${sessionId}`;
    try {
      expect(
        (await operate({ session_id: sessionId, operation: "refund", amount: "1.000" }, lostKey)).status,
      ).toBe(504);
    } finally {
      delete knet.faults.tranPipeStatus;
    }
    const open = (
      await api(stack, "GET", `/v1/discrepancies?session_id=${sessionId}&status=open`, {
        auth: apiKey(m.privateKey),
      })
    ).json.discrepancies[0];
    const notDone = await api(stack, "POST", `/v1/discrepancies/${open.id}/resolve`, {
      auth: apiKey(m.privateKey),
      body: { note: "not in KNET's portal; we will refund later", outcome: "not_done" },
    });
    expect(notDone.status, notDone.text).toBe(200);
    const declined = await operate({ session_id: sessionId, operation: "refund", amount: "1.000" }, lostKey);
    expect(declined.status).toBe(402);
    expect(declined.json.code).toBe("operation_declined");
    expect(ledgerOf(sessionId)!.refunded).toBe("3.000");
    expect((await payment(sessionId)).refundable_amount).toBe("5.000");
  });
});
