import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { payOnKnet } from "../../../../../../test/support/knet.js";
import { knetErrorOf } from "../xml.js";
import { apiFields, callTranPipe, type Fixture, OTHER_TERMINAL, startFixture, TERMINAL } from "./testing.js";
import type { KnetLedgerEntry } from "./types.js";

let f: Fixture;
let captured: KnetLedgerEntry;
beforeAll(async () => {
  f = await startFixture();
  captured = await payment({ expiry: "09/2021" }, { udf1: "sess_01", udf2: "order 7" });
});
afterAll(() => f.close());

async function payment(choice: Parameters<typeof payOnKnet>[1], fields: Record<string, string> = {}) {
  const trackid = f.trackId();
  await payOnKnet(f.initUrl({ trackid, ...fields }), choice);
  return f.knet.payments().find((p) => p.trackId === trackid)!;
}

const inquire = (transid: string, udf5: string, amt = "20.550", trackid = captured.trackId) =>
  callTranPipe(f.knet, apiFields("8", amt, transid, trackid, udf5));

const errorOf = async (answer: Promise<{ fields: Record<string, string> }>) =>
  knetErrorOf((await answer).fields);

describe("KNET stand-in: inquiry (action 8)", () => {
  it.each([
    ["TrackID", () => captured.trackId],
    ["PaymentID", () => captured.paymentId],
    ["TransID", () => captured.tranId],
    ["TransactionID", () => captured.tranId],
    ["", () => captured.tranId],
    ["SeqNum", () => captured.ref],
    ["RefID", () => captured.ref],
  ])("finds a paid payment by udf5 %j: SUCCESS with its fields", async (udf5, transid) => {
    const answer = await inquire(transid(), udf5);
    expect(answer.status).toBe(200);
    expect(answer.fields).toEqual({
      result: "SUCCESS",
      auth: captured.auth,
      ref: captured.ref,
      avr: "N",
      postdate: captured.postdate,
      tranid: captured.tranId,
      payid: captured.paymentId,
      trackid: captured.trackId,
      udf1: "sess_01",
      udf2: "order 7",
      udf3: "",
      udf4: "",
      udf5,
      amt: "20.550",
      authRespCode: "00",
    });
  });

  it("reads an amount written with fewer decimals as the same amount", async () => {
    expect((await inquire(captured.trackId, "TrackID", "20.55")).fields.result).toBe("SUCCESS");
  });

  it("answers FAILURE for NOT CAPTURED, CANCELED and HOST TIMEOUT", async () => {
    for (const [choice, result] of [
      [{ expiry: "11/2021" }, "NOT CAPTURED"],
      ["cancel", "CANCELED"],
      [{ expiry: "12/2021" }, "HOST TIMEOUT"],
    ] as const) {
      const p = await payment(choice);
      expect(p.result).toBe(result);
      const answer = await inquire(p.trackId, "TrackID", "20.550", p.trackId);
      expect(answer.fields).toMatchObject({ result: "FAILURE", payid: p.paymentId, trackid: p.trackId });
    }
  });

  it("refuses a wrong amount (IPAY0100062) and a wrong track id (IPAY0100063)", async () => {
    expect(await errorOf(inquire(captured.trackId, "TrackID", "20.551"))).toEqual({
      code: "IPAY0100062",
      text: "Transaction denied due to invalid Amount/Currency",
    });
    expect((await errorOf(inquire(captured.paymentId, "PaymentID", "20.550", "other1")))?.code).toBe(
      "IPAY0100063",
    );
    expect((await errorOf(inquire(captured.trackId, "TrackID", "abc")))?.code).toBe("IPAY0100061");
    expect((await errorOf(inquire(captured.trackId, "TrackID", "")))?.code).toBe("IPAY0100060");
  });

  it("answers IPAY0100263 when KNET has no such transaction, or the customer has not finished", async () => {
    const answer = await inquire("nosuchtrack", "TrackID", "20.550", "nosuchtrack");
    expect(answer.text).toBe(
      "<error_code_tag>IPAY0100263</error_code_tag><error_service_tag>null</error_service_tag><result>!ERROR!-IPAY0100263-Transaction details not available</result>",
    );
    const trackid = f.trackId();
    await fetch(f.initUrl({ trackid }), { redirect: "manual" });
    expect((await errorOf(inquire(trackid, "TrackID", "20.550", trackid)))?.code).toBe("IPAY0100263");
    expect(await errorOf(inquire(captured.trackId, "TrackID", "20.550", captured.trackId))).toBeUndefined();
  });

  it("finds only the terminal's own payments", async () => {
    const fields = apiFields("8", "20.550", captured.trackId, captured.trackId, "TrackID", OTHER_TERMINAL);
    expect((await errorOf(callTranPipe(f.knet, fields)))?.code).toBe("IPAY0100263");
  });

  it("refuses an unknown udf5 word (IPAY0100068) and a missing transid (IPAY0100232)", async () => {
    expect((await errorOf(inquire(captured.trackId, "OrderID")))?.code).toBe("IPAY0100068");
    expect((await errorOf(inquire("", "TrackID")))?.code).toBe("IPAY0100232");
  });

  it("refuses a transid over the field table's 19 characters (IPAY0100177), whatever udf5 names", async () => {
    const long = "a".repeat(20);
    expect((await errorOf(inquire(long, "TrackID", "20.550", long)))?.code).toBe("IPAY0100177");
    expect((await errorOf(inquire(`${captured.paymentId}0000`, "PaymentID")))?.code).toBe("IPAY0100177");
    // 19 is the most it takes.
    expect((await errorOf(inquire("a".repeat(19), "TrackID", "20.550", "a".repeat(19))))?.code).toBe(
      "IPAY0100263",
    );
  });
});

describe("KNET stand-in: the server API's authentication and form", () => {
  const call = (fields: [string, string][], contentType?: string) =>
    errorOf(callTranPipe(f.knet, fields, contentType));
  const base = () => apiFields("8", "20.550", captured.trackId, captured.trackId, "TrackID");
  const withField = (name: string, value: string) =>
    base().map(([n, v]): [string, string] => [n, n === name ? value : v]);

  it("refuses a missing or unknown id and a wrong password", async () => {
    expect((await call(base().filter(([n]) => n !== "id")))?.code).toBe("IPAY0100005");
    expect((await call(withField("id", "999")))?.code).toBe("IPAY0100006");
    expect(await call(withField("password", "wrong"))).toEqual({
      code: "IPAY0100015",
      text: "Invalid tranportal password",
    });
  });

  it("refuses other actions (IPAY0100020), a missing one (IPAY0100143), and another content type", async () => {
    expect((await call(withField("action", "1")))?.code).toBe("IPAY0100020");
    expect((await call(base().filter(([n]) => n !== "action")))?.code).toBe("IPAY0100143");
    expect((await call(base(), "application/x-www-form-urlencoded"))?.code).toBe("IPAY0100177");
    expect(await call(base(), "application/xml; charset=utf-8")).toBeUndefined();
  });

  it("records each call with the password redacted, and answers other paths plainly", async () => {
    await callTranPipe(f.knet, base());
    const record = f.knet.requests.at(-1)!;
    expect(record).toMatchObject({ method: "POST", path: "/kpg/tranPipe.htm", action: "8" });
    expect(record.fields).toMatchObject({ id: TERMINAL.tranportalId, password: "***", udf5: "TrackID" });
    expect((await fetch(`${f.knet.url}/kpg/tranPipe.htm?param=tranInit`)).status).toBe(405);
    expect((await fetch(`${f.knet.url}/kpg/tranPipe.htm`, { method: "POST" })).status).toBe(404);
  });
});
