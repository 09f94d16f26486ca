import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UDF_FORBIDDEN_CHARACTERS } from "../fields.js";
import { ERROR_URL, type Fixture, OTHER_TERMINAL, startFixture, TERMINAL } from "./testing.js";

let f: Fixture;
beforeAll(async () => {
  f = await startFixture({ publicUrl: "http://knet.test:8080/" });
});
afterAll(() => f.close());

/** Fields that make the plaintext the same on every run. */
const FIXED = { trackid: "wrongkey01", responseURL: "https://shop.example/r" };

/** Vector 1 of the spec's knet-vectors.json (computed by KNET's PHP kit for TERMINAL), copied here. */
const VECTOR_1_TRANDATA =
  "48300266ae21d9cbdff595a0b6eb09427703319d11d2c9c84c8e8bcc162fdedca1391a2ed63c1b9dda99ea03b47248fe65539600970d20d1a686c3ca843c8369eefdf8cf4855f0f98e218cd26653e015081daf1676e18fd1a21cc065cbe9706591b9b6a1c8f721f746f05a8694bb02c07ef276f6416bec12a4042415ec481322eb4309d6318ac5acf37f36e792950a989a3585d7278e7ea595765bfd97e35569c8ecd4ca1c9e85b0b5a77cc94d17dce1f4bbf7f47fce3995767d9cd9c76540b73e1db8075d3e146f2245e6084b64194ae3a7da7b58a0b35bbe5c45906df332a1beba631efab8b7e456d0c9da1c53de40";

/** GET the initialisation URL; KNET's answer. */
async function init(url: string) {
  const response = await fetch(url, { redirect: "manual" });
  return { status: response.status, location: response.headers.get("location"), body: await response.text() };
}

/** The code and words an error page names. */
async function errorOf(url: string) {
  const answer = await init(url);
  expect(answer.status).toBe(400);
  const match = /<span class="code">(IPAY\d+)<\/span> – <span class="text">([^<]*)<\/span>/.exec(answer.body);
  return match ? `${match[1]} ${match[2]}` : `no error in: ${answer.body.slice(0, 200)}`;
}

describe("KNET stand-in: payment initialisation", () => {
  it("opens a payment and sends the browser to its page (publicUrl, 16-digit PaymentID)", async () => {
    const trackid = f.trackId();
    const answer = await init(f.initUrl({ trackid, udf1: "sess_01", amt: "15.750", langid: "AR" }));
    expect(answer.status).toBe(302);
    expect(answer.location).toMatch(/^http:\/\/knet\.test:8080\/kpg\/paymentpage\.htm\?PaymentID=\d{16}$/);
    const payment = f.knet.payments().find((p) => p.trackId === trackid);
    expect(payment).toMatchObject({
      tranportalId: TERMINAL.tranportalId,
      amount: "15.750",
      result: "PENDING",
      langid: "AR",
      udf1: "sess_01",
      refunds: [],
      refunded: "0.000",
      voided: false,
      notification: "none",
    });
    expect(answer.location).toContain(payment!.paymentId);
  });

  it("accepts the trandata KNET's own PHP kit computed (vector 1)", async () => {
    const url = `${f.knet.url}/kpg/PaymentHTTP.htm?param=paymentInit&trandata=${VECTOR_1_TRANDATA}&tranportalId=123401`;
    expect((await init(url)).status).toBe(302);
    expect(f.knet.payments().find((p) => p.trackId === "att01")).toMatchObject({
      amount: "20.550",
      langid: "USA",
      responseURL: "https://svc.example/v1/gateways/knet/notifications",
      errorURL: "https://svc.example/pay/sess_x/return",
    });
  });

  it("records the request with the trandata and the password redacted", async () => {
    const trackid = f.trackId();
    await init(f.initUrl({ trackid }));
    const record = f.knet.requests.findLast((r) => r.path === "/kpg/PaymentHTTP.htm")!;
    expect(record.fields).toMatchObject({ param: "paymentInit", trandata: "***", tranportalId: "123401" });
    expect(record.trandata).toMatchObject({ id: "123401", password: "***", trackid, amt: "20.550" });
    expect(JSON.stringify(f.knet.requests)).not.toContain(TERMINAL.password);
  });

  it.each([
    [
      "no tranportalId",
      () => f.initUrl({}, { query: { tranportalId: undefined } }),
      "IPAY0100005 Missing tranportal ID",
    ],
    [
      "an unknown tranportalId",
      () => f.initUrl({}, { query: { tranportalId: "999" } }),
      "IPAY0100006 Invalid tranportal ID",
    ],
    [
      "no trandata",
      () => f.initUrl({}, { query: { trandata: undefined } }),
      "IPAY0100007 Missing transaction data",
    ],
    [
      "trandata that is not hex",
      () => f.initUrl({}, { query: { trandata: "zz" } }),
      "IPAY0100013 Invalid transaction data",
    ],
    // Fixed fields: with a random plaintext, 1 in 256 wrong-key decryptions has valid padding.
    [
      "another terminal's key",
      () => f.initUrl(FIXED, { key: OTHER_TERMINAL.resourceKey }),
      "IPAY0100013 Invalid transaction data",
    ],
    [
      "an id that is not the terminal's",
      () => f.initUrl({ id: "777701" }),
      "IPAY0100014 Terminal Authentication requested with invalid tranportal data",
    ],
    ["a wrong password", () => f.initUrl({ password: "nope" }), "IPAY0100015 Invalid tranportal password"],
    [
      "no errorURL",
      () => f.initUrl({ errorURL: undefined }, { query: { errorURL: undefined } }),
      "IPAY0100001 Missing error URL",
    ],
    [
      "an errorURL that is no URL",
      () => f.initUrl({ errorURL: "shop/error" }),
      "IPAY0100002 Invalid error URL",
    ],
    [
      "no responseURL",
      () => f.initUrl({ responseURL: undefined }, { query: { responseURL: undefined } }),
      "IPAY0100003 Missing response URL",
    ],
    [
      "a ftp: responseURL",
      () => f.initUrl({ responseURL: "ftp://shop.example/r" }),
      "IPAY0100004 Invalid response URL",
    ],
    ["action 2", () => f.initUrl({ action: "2" }), "IPAY0100020 Invalid action type"],
    ["no action", () => f.initUrl({ action: undefined }), "IPAY0100020 Invalid action type"],
    [
      "action 4 (authorisation, not enabled)",
      () => f.initUrl({ action: "4" }),
      "IPAY0100033 Terminal action not enabled",
    ],
    ["no currencycode", () => f.initUrl({ currencycode: undefined }), "IPAY0100021 Missing currency"],
    ["currency 840", () => f.initUrl({ currencycode: "840" }), "IPAY0100022 Invalid currency"],
    ["no amt", () => f.initUrl({ amt: undefined }), "IPAY0100023 Missing amount"],
    ["amt abc", () => f.initUrl({ amt: "abc" }), "IPAY0100024 Invalid amount"],
    ["amt 0.000", () => f.initUrl({ amt: "0.000" }), "IPAY0100024 Invalid amount"],
    ["amt of 11 characters", () => f.initUrl({ amt: "1234567.890" }), "IPAY0100024 Invalid amount"],
    ["amt with two decimals", () => f.initUrl({ amt: "20.55" }), "IPAY0100025 Invalid amount or currency"],
    ["amt without decimals", () => f.initUrl({ amt: "20" }), "IPAY0100025 Invalid amount or currency"],
    ["langid FR", () => f.initUrl({ langid: "FR" }), "IPAY0100026 Invalid language ID"],
    ["langid usa (lower case)", () => f.initUrl({ langid: "usa" }), "IPAY0100026 Invalid language ID"],
    ["a track id with -", () => f.initUrl({ trackid: "att-01" }), "IPAY0100027 Invalid track id"],
    ["a track id with _", () => f.initUrl({ trackid: "att_01" }), "IPAY0100027 Invalid track id"],
    [
      "a track id of 41 characters",
      () => f.initUrl({ trackid: "a".repeat(41) }),
      "IPAY0100027 Invalid track id",
    ],
    ["no track id", () => f.initUrl({ trackid: "" }), "IPAY0100027 Invalid track id"],
    ["udf1 with #", () => f.initUrl({ udf1: "a#b" }), "IPAY0100028 Invalid user defined field1"],
    ["udf2 with ;", () => f.initUrl({ udf2: "a;b" }), "IPAY0100029 Invalid user defined field2"],
    ["udf3 with <", () => f.initUrl({ udf3: "<b>" }), "IPAY0100030 Invalid user defined field3"],
    ["udf4 with LF", () => f.initUrl({ udf4: "a\nb" }), "IPAY0100031 Invalid user defined field4"],
    ["udf5 with CR", () => f.initUrl({ udf5: "a\rb" }), "IPAY0100032 Invalid user defined field5"],
    [
      "udf1 of 256 characters",
      () => f.initUrl({ udf1: "x".repeat(256) }),
      "IPAY0100028 Invalid user defined field1",
    ],
  ])("refuses %s with KNET's error page", async (_, url, expected) => {
    expect(await errorOf(url())).toBe(expected);
  });

  it("refuses every character the kit forbids in udf fields", async () => {
    for (const char of UDF_FORBIDDEN_CHARACTERS.replace("&", "")) {
      expect(await errorOf(f.initUrl({ udf1: `x${char}y` }))).toBe("IPAY0100028 Invalid user defined field1");
    }
    // '&' cannot be written into an unencoded value: it starts another field.
    expect((await init(f.initUrl({ udf1: "x&y" }))).status).toBe(302);
  });

  it("takes a 40-character track id, EN, 999999.999 KWD, and @ / in udfs", async () => {
    const trackid = `${f.trackId()}`.padEnd(40, "0");
    const answer = await init(f.initUrl({ trackid, langid: "EN", amt: "999999.999", udf2: "a@b/c d" }));
    expect(answer.status).toBe(302);
  });

  it("refuses a track id used before on the terminal (IPAY0100114), not on another terminal", async () => {
    const trackid = f.trackId();
    expect((await init(f.initUrl({ trackid }))).status).toBe(302);
    expect(await errorOf(f.initUrl({ trackid }))).toBe("IPAY0100114 Duplicate Record");
    expect((await init(f.initUrl({ trackid }, { terminal: OTHER_TERMINAL }))).status).toBe(302);
    expect(f.knet.payments().filter((p) => p.trackId === trackid)).toHaveLength(2);
  });

  it("takes the query's URLs when the trandata has none", async () => {
    const trackid = f.trackId();
    expect((await init(f.initUrl({ trackid, errorURL: undefined, responseURL: undefined }))).status).toBe(
      302,
    );
    expect(f.knet.payments().find((p) => p.trackId === trackid)).toMatchObject({
      errorURL: ERROR_URL,
      responseURL: f.merchant.url,
    });
  });

  it("answers its other paths and methods plainly", async () => {
    expect((await fetch(`${f.knet.url}/kpg/PaymentHTTP.htm?param=other`)).status).toBe(404);
    expect((await fetch(`${f.knet.url}/kpg/PaymentHTTP.htm`, { method: "POST" })).status).toBe(405);
    expect((await fetch(`${f.knet.url}/elsewhere`)).status).toBe(404);
  });
});

describe("KNET stand-in: the payment page", () => {
  async function pageOf(fields: Record<string, string>) {
    const answer = await init(f.initUrl(fields));
    const page = await fetch(new URL(new URL(answer.location!).search, `${f.knet.url}/kpg/paymentpage.htm`));
    return { status: page.status, html: await page.text() };
  }

  it("shows the amount in KWD, the KNET1 test card, and a label for every control", async () => {
    const { status, html } = await pageOf({ amt: "20.550" });
    expect(status).toBe(200);
    expect(html).toContain('<html lang="en" dir="ltr">');
    expect(html).toContain("KWD 20.550");
    expect(html).toContain('<option value="KNET1">KNET Test Card [KNET1]</option>');
    expect(html).not.toMatch(/<script/i);
    const ids = [...html.matchAll(/<(?:input|select)\b(?![^>]*type="hidden")[^>]*\bid="([^"]+)"/g)].map(
      (m) => m[1],
    );
    expect(ids).toEqual(["bank", "cardPrefix", "cardNumber", "expMonth", "expYear", "pin"]);
    for (const id of ids) expect(html).toContain(`<label for="${id}">`);
    expect(html).toMatch(/<button type="submit"[^>]*>Submit<\/button>/);
    expect(html).toMatch(/<button type="submit"[^>]*formnovalidate>Cancel<\/button>/);
  });

  it("is in Arabic, right to left, for langid AR", async () => {
    const { html } = await pageOf({ langid: "AR", amt: "5.000" });
    expect(html).toContain('<html lang="ar" dir="rtl">');
    expect(html).toContain("5.000 د.ك.");
    expect(html).toContain(">إلغاء</button>");
  });

  it("names KNET's errors for a missing or unknown PaymentID", async () => {
    const missing = await fetch(`${f.knet.url}/kpg/paymentpage.htm`);
    expect(missing.status).toBe(400);
    expect(await missing.text()).toContain("IPAY0100037");
    const unknown = await fetch(`${f.knet.url}/kpg/paymentpage.htm?PaymentID=1234567890123456`);
    expect(await unknown.text()).toContain("IPAY0100039");
  });
});
