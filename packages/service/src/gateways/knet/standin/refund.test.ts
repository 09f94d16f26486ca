import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { payOnKnet } from "../../../../../../test/support/knet.js";
import { knetErrorOf } from "../xml.js";
import { apiFields, callTranPipe, type Fixture, RECEIPT_URL, startFixture } from "./testing.js";

let f: Fixture;
beforeAll(async () => {
  f = await startFixture({ merchantTimeoutMs: 500 });
});
afterAll(() => f.close());
afterEach(() => {
  Object.assign(f.knet.faults, { loseRefundAnswers: 0, tranPipeDelayMs: 0, tranPipeStatus: undefined });
  f.merchant.reply = () => ({ body: `REDIRECT=${RECEIPT_URL}` });
});

/** A CAPTURED payment of `amt`; its track id. */
async function paid(amt = "10.000", choice: Parameters<typeof payOnKnet>[1] = { expiry: "09/2021" }) {
  const trackid = f.trackId();
  await payOnKnet(f.initUrl({ trackid, amt }), choice);
  return trackid;
}

const refund = (trackid: string, amt: string) =>
  callTranPipe(f.knet, apiFields("2", amt, trackid, trackid, "TrackID"));
const ledger = (trackid: string) => f.knet.payments().find((p) => p.trackId === trackid)!;
const refundsReceived = (trackid: string) =>
  f.knet.requests.filter((r) => r.action === "2" && r.fields.trackid === trackid).length;

describe("KNET stand-in: refunds (action 2)", () => {
  it("refunds in part, then the rest: CAPTURED with a new tranid and ref each", async () => {
    const trackid = await paid("10.000");
    const payment = ledger(trackid);
    const first = await refund(trackid, "4.000");
    expect(Object.keys(first.fields)).toEqual([
      "result",
      "payid",
      "trackid",
      "udf1",
      "udf5",
      "ref",
      "auth",
      "postdate",
      "tranid",
      "amt",
    ]);
    expect(first.fields).toMatchObject({
      result: "CAPTURED",
      payid: payment.paymentId,
      trackid,
      udf1: "",
      udf5: "",
      amt: "4.000",
    });
    const second = await refund(trackid, "6");
    expect(second.fields).toMatchObject({ result: "CAPTURED", amt: "6.000" });
    expect(second.fields.tranid).not.toBe(first.fields.tranid);
    expect(second.fields.ref).not.toBe(first.fields.ref);
    expect(first.fields.tranid).not.toBe(payment.tranId);
    expect(ledger(trackid)).toMatchObject({
      refunded: "10.000",
      refunds: [
        { tranId: first.fields.tranid, ref: first.fields.ref, amount: "4.000", via: "api" },
        { tranId: second.fields.tranid, amount: "6.000", via: "api" },
      ],
    });
    expect(knetErrorOf((await refund(trackid, "0.001")).fields)?.code).toBe("IPAY0100137");
  });

  it("refunds in full at once, by PaymentID too", async () => {
    const trackid = await paid("3.250");
    const { paymentId } = ledger(trackid);
    const answer = await callTranPipe(f.knet, apiFields("2", "3.250", paymentId, trackid, "PaymentID"));
    expect(answer.fields).toMatchObject({ result: "CAPTURED", amt: "3.250" });
    expect(ledger(trackid).refunded).toBe("3.250");
  });

  it("refuses more than what was paid (IPAY0100137), refunding nothing", async () => {
    const trackid = await paid("10.000");
    expect(knetErrorOf((await refund(trackid, "10.001")).fields)).toEqual({
      code: "IPAY0100137",
      text: "Transaction denied due to credit amount greater than auth amount check failure (Validate Original Transaction )",
    });
    expect(ledger(trackid)).toMatchObject({ refunded: "0.000", refunds: [] });
  });

  it("declines a refund whose fils end in 13 (the stand-in's convention): NOT CAPTURED, nothing refunded", async () => {
    const trackid = await paid("10.000");
    const answer = await refund(trackid, "1.013");
    expect(answer.fields).toMatchObject({
      result: "NOT CAPTURED",
      trackid,
      ref: "",
      tranid: "",
      amt: "1.013",
    });
    expect(knetErrorOf(answer.fields)).toBeUndefined();
    expect(ledger(trackid).refunds).toEqual([]);
  });

  it("has no idempotency: the same refund sent twice is two refunds", async () => {
    const trackid = await paid("10.000");
    await refund(trackid, "2.000");
    await refund(trackid, "2.000");
    expect(ledger(trackid)).toMatchObject({ refunded: "4.000" });
    expect(ledger(trackid).refunds).toHaveLength(2);
    expect(refundsReceived(trackid)).toBe(2);
  });

  it("refuses to refund what was not paid: declined, canceled, auto-voided (IPAY0100134)", async () => {
    const declined = await paid("10.000", { expiry: "08/2021" });
    const canceled = await paid("10.000", "cancel");
    f.merchant.reply = () => ({ body: "not a redirect" });
    const voided = await paid("10.000");
    expect(ledger(voided).voided).toBe(true);
    for (const trackid of [declined, canceled, voided])
      expect(knetErrorOf((await refund(trackid, "1.000")).fields)?.code).toBe("IPAY0100134");
  });

  it("counts a portal refund, which nobody is told about, against what remains", async () => {
    const trackid = await paid("10.000");
    const before = f.merchant.posts.length;
    const portal = f.knet.portalRefund(trackid, "7.000");
    expect(portal).toMatchObject({ amount: "7.000", via: "portal" });
    expect(f.merchant.posts.length).toBe(before);
    expect(knetErrorOf((await refund(trackid, "3.001")).fields)?.code).toBe("IPAY0100137");
    expect((await refund(trackid, "3.000")).fields.result).toBe("CAPTURED");
    expect(ledger(trackid).refunds.map((r) => r.via)).toEqual(["portal", "api"]);
    expect(() => f.knet.portalRefund(trackid, "0.001")).toThrow(/IPAY0100137/);
    expect(() => f.knet.portalRefund("nosuch", "1.000")).toThrow(/no payment has track id/);
  });
});

describe("KNET stand-in: server-API faults", () => {
  it("loseRefundAnswers: the refund is performed and recorded, the client sees a reset", async () => {
    const trackid = await paid("10.000");
    f.knet.faults.loseRefundAnswers = 1;
    const lost = await refund(trackid, "5.000").catch((error: Error) => error);
    expect((lost as Error & { cause?: { code?: string } }).cause?.code).toBe("ECONNRESET");
    expect(ledger(trackid)).toMatchObject({ refunded: "5.000", refunds: [{ amount: "5.000", via: "api" }] });
    expect(refundsReceived(trackid)).toBe(1);
    expect(f.knet.faults.loseRefundAnswers).toBe(0);
    expect((await refund(trackid, "5.000")).fields.result).toBe("CAPTURED"); // the next one is answered
    expect(refundsReceived(trackid)).toBe(2);
  });

  it("tranPipeStatus: every call answered with that status and HTML, nothing performed", async () => {
    const trackid = await paid("10.000");
    f.knet.faults.tranPipeStatus = 502;
    const answer = await refund(trackid, "1.000");
    expect(answer.status).toBe(502);
    expect(answer.text).toMatch(/^<html>/);
    expect(ledger(trackid).refunds).toEqual([]);
  });

  it("tranPipeDelayMs: performed at once, answered late", async () => {
    const trackid = await paid("10.000");
    f.knet.faults.tranPipeDelayMs = 300;
    const started = Date.now();
    const answer = refund(trackid, "1.000");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ledger(trackid).refunded).toBe("1.000");
    expect((await answer).fields.result).toBe("CAPTURED");
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });
});
