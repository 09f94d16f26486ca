/**
 * svc's KNET adapter against the KNET stand-in and, for answers that are not KNET's, a tiny
 * loopback server of the test's own (node:http): only KNET's own answer is read, anything else
 * is unknown (never a decline); KNET's response is answered `REDIRECT=` within KNET's wait even
 * when the inquiry that would confirm it is slow. Nothing is mocked: real HTTP on loopback.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { payOnKnet } from "../../../../../test/support/knet.js";
import type { GatewayPaymentRef, InboundNotification, NotificationRead } from "../adapter.js";
import { GatewayError } from "../gateway-error.js";
import { KnetGatewayAdapter } from "./adapter.js";
import { type Fixture, RECEIPT_URL, startFixture, TERMINAL } from "./standin/testing.js";

const TERMINAL_SVC = {
  tranportalId: TERMINAL.tranportalId,
  password: TERMINAL.password,
  resourceKey: TERMINAL.resourceKey,
};
/** The stand-in's wait for `REDIRECT=`, short here (KNET's is ~10 s; the e2e test keeps that). */
const KNET_WAIT_MS = 1_500;
/** The adapter's budget for the inquiry in KNET's response handler, scaled down the same way. */
const BUDGET_MS = 400;

/** A server that is not KNET answering every call 200 with `body` (a proxy's page, say). */
async function startImpostor(): Promise<{
  url: string;
  body: string;
  contentType: string;
  close(): Promise<void>;
}> {
  const state = { url: "", body: "", contentType: "text/html; charset=utf-8", close: async () => {} };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": state.contentType }).end(state.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return state;
}

const MAINTENANCE_PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Scheduled maintenance</title></head>
<body><h1>We'll be back soon</h1><p>KPAY is undergoing scheduled maintenance.</p></body></html>`;

let f: Fixture;
let impostor: Awaited<ReturnType<typeof startImpostor>>;
let knet: KnetGatewayAdapter;
let notKnet: KnetGatewayAdapter;
beforeAll(async () => {
  f = await startFixture({ merchantTimeoutMs: KNET_WAIT_MS });
  impostor = await startImpostor();
  knet = new KnetGatewayAdapter(TERMINAL_SVC, f.knet.url, 5_000, undefined, {
    responseInquiryBudgetMs: BUDGET_MS,
  });
  notKnet = new KnetGatewayAdapter(TERMINAL_SVC, impostor.url, 5_000);
});
afterAll(async () => {
  await knet.close();
  await notKnet.close();
  await f.close();
  await impostor.close();
});
afterEach(() => {
  f.knet.faults.tranPipeDelayMs = 0;
  f.merchant.reply = () => ({ body: `REDIRECT=${RECEIPT_URL}` });
});

/** svc's record of the attempt whose track id is `trackId` (20.550 KWD, as the fixture pays). */
const refOf = (trackId: string, startedAt = new Date()): GatewayPaymentRef => ({
  pgCode: "knet",
  sessionId: "sess_adapter",
  attemptId: `pay_${trackId}`,
  pgReference: trackId,
  amount: "20.550",
  amountMinor: 20_550,
  currency: "KWD",
  operation: "purchase",
  startedAt,
  redirectUrl: "https://kpay.example/page",
  returnUrl: "https://svc.example/pay/sess_adapter/return",
});

/** A payment on the stand-in's page; `choice` undefined leaves the page open (KNET has no result). */
async function onKnet(choice?: Parameters<typeof payOnKnet>[1]): Promise<string> {
  const trackid = f.trackId();
  if (choice) await payOnKnet(f.initUrl({ trackid }), choice);
  else expect((await fetch(f.initUrl({ trackid }), { redirect: "manual" })).status).toBe(302);
  return trackid;
}

const unknown = { name: "GatewayError", code: "gateway_unavailable", outcomeUnknown: true };

describe("KNET adapter: only KNET's own answer is read", () => {
  let paid: string;
  let declined: string;
  let open: string;
  beforeAll(async () => {
    paid = await onKnet({ expiry: "09/2021" });
    declined = await onKnet({ expiry: "11/2021" });
    open = await onKnet();
  });

  it("reads KNET's answers: SUCCESS pays, FAILURE declines, IPAY0100263 waits", async () => {
    expect(await knet.paymentStatus(refOf(paid))).toMatchObject({
      status: "approved",
      pgResponse: { result: "SUCCESS", trackid: paid },
    });
    expect(await knet.paymentStatus(refOf(declined))).toMatchObject({
      status: "declined",
      pgResponse: { result: "FAILURE", trackid: declined },
    });
    expect(await knet.paymentStatus(refOf(open))).toMatchObject({ status: "action_required" });
    expect(await knet.paymentByAttempt(refOf(open))).toBeUndefined();
  });

  it("reads KNET's own errors as KNET's: a refused refund declines, a refused inquiry is KNET's refusal", async () => {
    const refund = await knet.operate({
      pgCode: "knet",
      kind: "knet",
      operation: "refund",
      pgReference: declined,
      referenceNumber: "ref-declined",
      amount: "1.000",
      amountMinor: 1_000,
      currency: "KWD",
      notificationUrl: "https://svc.example/n",
    });
    expect(refund).toMatchObject({ status: "declined", pgResponse: { error_code: "IPAY0100134" } });
    const wrongAmount = { ...refOf(paid), amount: "1.000", amountMinor: 1_000 };
    await expect(knet.paymentStatus(wrongAmount)).rejects.toMatchObject({
      code: "gateway_request_rejected",
      message: expect.stringContaining("IPAY0100062"),
    });
  });

  it.each([
    ["an HTML maintenance page", "text/html; charset=utf-8", MAINTENANCE_PAGE],
    [
      "XML that is not KNET's",
      "application/xml",
      "<response><status>OK</status><message>queued</message></response>",
    ],
    [
      "KNET's elements with an empty result",
      "application/xml",
      "<result></result><trackid>t1</trackid><amt></amt>",
    ],
    [
      "an error text without KNET's code",
      "application/xml",
      "<error_text>Service temporarily unavailable</error_text>",
    ],
  ])("%s with HTTP 200 is unknown, never a decline: inquiry, recovery and refund", async (_, type, body) => {
    impostor.contentType = type;
    impostor.body = body;
    // The customer is still on KNET's page (or has paid): the payment must not look declined.
    await expect(notKnet.paymentStatus(refOf(open))).rejects.toMatchObject(unknown);
    await expect(notKnet.paymentByAttempt(refOf(open))).rejects.toMatchObject(unknown);
    // Long after the page's life too: unknown is asked again, never closed as declined or canceled.
    await expect(notKnet.paymentStatus(refOf(open, new Date(Date.now() - 3_600_000)))).rejects.toMatchObject(
      unknown,
    );
    // A refund answered so may have been done: its outcome is unknown (the existing 504 path).
    const refund = notKnet.operate({
      pgCode: "knet",
      kind: "knet",
      operation: "refund",
      pgReference: paid,
      referenceNumber: "ref-html",
      amount: "1.000",
      amountMinor: 1_000,
      currency: "KWD",
      notificationUrl: "https://svc.example/n",
    });
    await expect(refund).rejects.toBeInstanceOf(GatewayError);
    await expect(refund).rejects.toMatchObject({
      ...unknown,
      message: expect.stringContaining("not KNET's answer"),
      pgResponse: { raw: body.slice(0, 500) },
    });
  });
});

describe("KNET adapter: an inquiry's answer must tally with the payment (manual 3.5.3)", () => {
  const answer = (xml: string) => {
    impostor.contentType = "application/xml";
    impostor.body = xml;
  };

  it.each([
    [
      "another payment's track id",
      "<result>SUCCESS</result><trackid>zzz</trackid><amt>20.550</amt>",
      "track id",
    ],
    ["another amount", "<result>SUCCESS</result><trackid>t-this</trackid><amt>99.000</amt>", "amount"],
    [
      "another amount, declined",
      "<result>FAILURE</result><trackid>t-this</trackid><amt>1.000</amt>",
      "amount",
    ],
  ])("SUCCESS or FAILURE for %s decides nothing: unknown, asked again later", async (_, xml, named) => {
    answer(xml);
    await expect(notKnet.paymentStatus(refOf("t-this"))).rejects.toMatchObject({
      ...unknown,
      message: expect.stringContaining(named),
    });
  });

  it("this payment's track id and amount in any spelling, or empty tags, are its answer", async () => {
    for (const xml of [
      "<result>SUCCESS</result><trackid>t-this</trackid><amt>20.55</amt>",
      "<result>CAPTURED</result><trackid></trackid><amt>null</amt>",
    ]) {
      answer(xml);
      expect(await notKnet.paymentStatus(refOf("t-this")), xml).toMatchObject({ status: "approved" });
    }
  });
});

describe("KNET adapter: a CAPTURED refund answer must be about this refund", () => {
  const refundOf = (pgReference: string, amountMinor: number) =>
    notKnet.operate({
      pgCode: "knet",
      kind: "knet",
      operation: "refund",
      pgReference,
      referenceNumber: "ref-captured",
      amount: "1.000",
      amountMinor,
      currency: "KWD",
      notificationUrl: "https://svc.example/n",
    });
  const answer = (fields: string) => {
    impostor.contentType = "application/xml";
    impostor.body = `<result>CAPTURED</result>${fields}`;
  };

  it.each([
    ["another amount", "<amt>99999.000</amt><trackid>t-this</trackid>", "amount"],
    ["an amount that is not one", "<amt>abc</amt><trackid>t-this</trackid>", "amount"],
    ["another payment's track id", "<amt>1.000</amt><trackid>zzz</trackid>", "track id"],
  ])("CAPTURED for %s is an unknown outcome, not a refund done", async (_, fields, named) => {
    answer(fields);
    await expect(refundOf("t-this", 1_000)).rejects.toMatchObject({
      ...unknown,
      message: expect.stringContaining(named),
    });
  });

  it("CAPTURED as the manual's sample answers it (empty amt and the rest, or FSS's \"null\") is a refund done", async () => {
    // Manual 3.7.3: <result>CAPTURED</result><payid>…</payid><trackid>…</trackid><udf1></udf1>…<amt></amt>.
    for (const empty of ["", "null"]) {
      answer(
        `<payid>100202336512345678</payid><trackid>t-this</trackid><udf1>${empty}</udf1><udf5>${empty}</udf5>` +
          `<ref>${empty}</ref><auth>${empty}</auth><postdate>${empty}</postdate><tranid>${empty}</tranid><amt>${empty}</amt>`,
      );
      expect(await refundOf("t-this", 1_000), JSON.stringify(empty)).toMatchObject({ status: "success" });
    }
    // With an empty track id too: nothing in it names another payment.
    answer("<trackid></trackid><amt></amt>");
    expect(await refundOf("t-this", 1_000)).toMatchObject({ status: "success" });
  });

  it("CAPTURED for this payment and amount (in any of KNET's spellings) is a refund done", async () => {
    for (const amt of ["1.000", "1", "1.0"]) {
      answer(`<amt>${amt}</amt><trackid>t-this</trackid>`);
      expect(await refundOf("t-this", 1_000)).toMatchObject({ status: "success" });
    }
  });
});

/** KNET's response post as svc's notification endpoint receives it. */
const inbound = (form: Record<string, string>): InboundNotification => ({
  rawBody: Buffer.from(new URLSearchParams(form).toString()),
  headers: {},
  contentType: "application/x-www-form-urlencoded",
});

describe("KNET adapter: KNET's response is answered within KNET's wait", () => {
  /**
   * The stand-in posts its response to the fixture's merchant, which hands it to the adapter as
   * svc's endpoint does and answers KNET with the adapter's reply: the real loop, on loopback.
   */
  async function payThroughAdapter(adapter: KnetGatewayAdapter, expiry = "09/2021", amount?: string) {
    const trackid = f.trackId();
    const reads: { read: NotificationRead; ms: number }[] = [];
    f.merchant.reply = async (post) => {
      const started = Date.now();
      const read = await adapter.readNotification(inbound(post.form), {
        paymentByReference: async (reference) =>
          reference === trackid ? { ...refOf(trackid), ...(amount ? { amount } : {}) } : undefined,
        paymentByAttempt: async () => undefined,
      });
      reads.push({ read, ms: Date.now() - started });
      return { body: read.reply!.body };
    };
    const browser = await payOnKnet(f.initUrl({ trackid }), { expiry });
    return { trackid, browser, reads, entry: f.knet.payments().find((p) => p.trackId === trackid)! };
  }

  it("a prompt inquiry confirms at once: approved, REDIRECT= to svc's result page", async () => {
    const { browser, reads, entry } = await payThroughAdapter(knet);
    expect(browser.location).toBe(refOf("x").returnUrl);
    expect(entry).toMatchObject({ result: "CAPTURED", voided: false, notification: "redirected" });
    expect(reads[0]!.read.notifications).toMatchObject([{ result: { status: "approved" } }]);
  });

  it("the response's amount is compared as an amount: another spelling of it confirms, another amount does not", async () => {
    // KNET's response says amt=20.550; svc's attempt as "20.55" is the same amount.
    const same = await payThroughAdapter(knet, "09/2021", "20.55");
    expect(same.reads[0]!.read.notifications).toMatchObject([{ result: { status: "approved" } }]);
    const other = await payThroughAdapter(knet, "09/2021", "20.551");
    expect(other.reads[0]!.read.notifications).toEqual([]);
    expect(other.reads[0]!.read.record).toMatchObject({ outcome: "amount_mismatch" });
  });

  it("a slow inquiry is given up within the budget: REDIRECT= in time, KNET keeps the payment, nothing is decided until a later inquiry", async () => {
    // Longer than KNET's wait: waiting for it, svc would answer too late and KNET would void.
    f.knet.faults.tranPipeDelayMs = KNET_WAIT_MS + 500;
    const { trackid, browser, reads, entry } = await payThroughAdapter(knet);
    expect(entry).toMatchObject({ result: "CAPTURED", voided: false, notification: "redirected" });
    expect(browser.location).toBe(refOf("x").returnUrl);
    expect(reads).toHaveLength(1);
    const [{ read, ms }] = reads as [(typeof reads)[0]];
    expect(ms).toBeLessThan(KNET_WAIT_MS);
    expect(read.reply!.body).toBe(`REDIRECT=${refOf("x").returnUrl}`);
    expect(read.notifications).toEqual([]); // neither paid nor declined on a claim alone
    expect(read.record).toMatchObject({ pgReference: trackid, outcome: "inquiry_failed" });
    // KNET answers again: the later inquiry (the poll's, the sweep's) confirms the payment.
    f.knet.faults.tranPipeDelayMs = 0;
    expect(await knet.paymentStatus(refOf(trackid))).toMatchObject({ status: "approved" });
  });

  it("an inquiry answered by a page that is not KNET's decides nothing, even for a response that says NOT CAPTURED", async () => {
    impostor.contentType = "text/html; charset=utf-8";
    impostor.body = MAINTENANCE_PAGE;
    // The stand-in's page posts the response; the adapter's inquiries reach the impostor.
    const { reads, entry } = await payThroughAdapter(notKnet, "11/2021");
    expect(entry).toMatchObject({ result: "NOT CAPTURED", notification: "redirected" });
    expect(reads[0]!.read.notifications).toEqual([]);
    expect(reads[0]!.read.record).toMatchObject({ outcome: "inquiry_failed" });
  });
});
