import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { payOnKnet } from "../../../../../../test/support/knet.js";
import { KNET_LANG, paymentInitPlain, paymentPageUrl } from "../fields.js";
import { encryptTrandata } from "../trandata.js";
import {
  apiFields,
  callTranPipe,
  ERROR_URL,
  type Fixture,
  RECEIPT_URL,
  startFixture,
  TERMINAL,
} from "./testing.js";

/** The response's field order: the spec's vectors 2 and 3 (KNET's samples, section 5). */
const RESPONSE_ORDER = [
  "paymentid",
  "result",
  "auth",
  "avr",
  "ref",
  "tranid",
  "postdate",
  "trackid",
  "udf1",
  "udf2",
  "udf3",
  "udf4",
  "udf5",
  "amt",
];

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.close());
afterEach(() => {
  f.merchant.posts.length = 0;
});

/** Pays with svc's own wire module building the initialisation, as svc's adapter does. */
async function pay(choice: Parameters<typeof payOnKnet>[1], language: "en" | "ar" = "en", udf1 = "sess_01") {
  const trackid = f.trackId();
  const plain = paymentInitPlain({
    id: TERMINAL.tranportalId,
    password: TERMINAL.password,
    action: "1",
    langid: KNET_LANG[language],
    currencycode: "414",
    amt: "20.550",
    responseURL: f.merchant.url,
    errorURL: ERROR_URL,
    trackid,
    udf1,
  });
  const url = paymentPageUrl(f.knet.url, {
    trandata: encryptTrandata(plain, TERMINAL.resourceKey),
    tranportalId: TERMINAL.tranportalId,
    responseURL: f.merchant.url,
    errorURL: ERROR_URL,
  });
  const browser = await payOnKnet(url, choice);
  const payment = f.knet.payments().find((p) => p.trackId === trackid)!;
  return { browser, trackid, payment, post: f.merchant.posts.at(-1) };
}

describe("KNET stand-in: the customer pays, KNET tells the merchant", () => {
  it("CAPTURED (KNET1, 09/2021): the merchant gets the encrypted response; the browser its REDIRECT", async () => {
    const { browser, trackid, payment, post } = await pay({ expiry: "09/2021" });
    expect(browser).toMatchObject({ status: 302, location: RECEIPT_URL });
    expect(post?.contentType).toBe("application/x-www-form-urlencoded");
    expect(Object.keys(post!.form)).toEqual(["trandata"]);
    expect(post?.order).toEqual([...RESPONSE_ORDER, "authRespCode"]);
    expect(post?.fields).toMatchObject({
      paymentid: payment.paymentId,
      result: "CAPTURED",
      avr: "N",
      trackid,
      udf1: "sess_01",
      udf5: "",
      amt: "20.550",
      authRespCode: "00",
    });
    expect(post?.fields?.paymentid).toMatch(/^\d{16}$/);
    expect(post?.fields?.tranid).toMatch(/^\d{16}$/);
    expect(post?.fields?.ref).toMatch(/^\d{12}$/);
    expect(post?.fields?.auth).toMatch(/^\d{6}$/);
    expect(post?.fields?.postdate).toMatch(/^(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/);
    expect(payment).toMatchObject({ result: "CAPTURED", voided: false, notification: "redirected" });
  });

  it("NOT CAPTURED (another expiry): reason 51, no auth or ref", async () => {
    const { browser, post, payment } = await pay({ expiry: "10/2021" });
    expect(browser.location).toBe(RECEIPT_URL);
    expect(post?.fields).toMatchObject({ result: "NOT CAPTURED", auth: "", ref: "", authRespCode: "51" });
    expect(post?.fields?.tranid).toMatch(/^\d{16}$/);
    expect(payment.result).toBe("NOT CAPTURED");
  });

  it("NOT CAPTURED for a bank the stand-in has no issuer for (reason 05)", async () => {
    const { post } = await pay({ expiry: "09/2021", bank: "TEST2", card: "7777770000000002" });
    expect(post?.fields).toMatchObject({ result: "NOT CAPTURED", authRespCode: "05" });
  });

  it("CANCELED: no auth, ref, tranid, postdate or reason code, as the manual's sample", async () => {
    const { browser, post } = await pay("cancel");
    expect(browser.location).toBe(RECEIPT_URL);
    expect(post?.order).toEqual(RESPONSE_ORDER);
    expect(post?.fields).toMatchObject({ result: "CANCELED", auth: "", ref: "", tranid: "", postdate: "" });
  });

  it("HOST TIMEOUT (the stand-in's 12/2021): a tranid, no reason code", async () => {
    const { browser, post } = await pay({ expiry: "12/2021" });
    expect(browser.location).toBe(RECEIPT_URL);
    expect(post?.order).toEqual(RESPONSE_ORDER);
    expect(post?.fields).toMatchObject({ result: "HOST TIMEOUT", auth: "", ref: "" });
    expect(post?.fields?.tranid).toMatch(/^\d{16}$/);
  });

  it("on the Arabic page too (a customer reading Arabic labels)", async () => {
    const { browser, post } = await pay({ expiry: "09/2021" }, "ar");
    expect(browser.location).toBe(RECEIPT_URL);
    expect(post?.fields?.result).toBe("CAPTURED");
  });

  it("the merchant's inquiry during the notification already finds the result", async () => {
    let answer: Record<string, string> = {};
    const original = f.merchant.reply;
    f.merchant.reply = async (post) => {
      const trackid = post.fields!.trackid!;
      answer = (await callTranPipe(f.knet, apiFields("8", "20.550", trackid, trackid, "TrackID"))).fields;
      return { body: `REDIRECT=${RECEIPT_URL}` };
    };
    try {
      await pay({ expiry: "09/2021" });
    } finally {
      f.merchant.reply = original;
    }
    expect(answer.result).toBe("SUCCESS");
  });

  it("shows the page again with KNET's error for a wrong PIN; the customer can retry", async () => {
    const trackid = f.trackId();
    const init = await fetch(f.initUrl({ trackid }), { redirect: "manual" });
    const pageUrl = init.headers.get("location")!;
    const paymentId = new URL(pageUrl).searchParams.get("PaymentID")!;
    const form = { PaymentID: paymentId, bank: "KNET1", cardPrefix: "888888", cardNumber: "0000000001" };
    const post = (fields: Record<string, string>) =>
      fetch(`${f.knet.url}/kpg/paymentpage.htm`, {
        method: "POST",
        body: new URLSearchParams(fields),
        redirect: "manual",
      });
    const wrong = await post({ ...form, expMonth: "09", expYear: "2021", pin: "12", button: "submit" });
    expect(wrong.status).toBe(400);
    const html = await wrong.text();
    expect(html).toContain("IPAY0100087 Card pin number is not present");
    expect(html).toContain('<option value="KNET1" selected>');
    expect(f.knet.payments().find((p) => p.trackId === trackid)?.result).toBe("PENDING");
    const right = await post({ ...form, expMonth: "09", expYear: "2021", pin: "4321", button: "submit" });
    expect(right.status).toBe(302);
    expect(f.knet.requests.at(-1)?.fields).toMatchObject({ pin: "***", cardNumber: "***" });
    const again = await post({ ...form, expMonth: "09", expYear: "2021", pin: "4321", button: "submit" });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("IPAY0100055");
  });
});
