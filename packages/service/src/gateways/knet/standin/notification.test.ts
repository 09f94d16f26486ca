import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { payOnKnet } from "../../../../../../test/support/knet.js";
import {
  apiFields,
  callTranPipe,
  ERROR_URL,
  type Fixture,
  type MerchantReply,
  RECEIPT_URL,
  startFixture,
} from "./testing.js";

/** Short, so a merchant that never answers is given up on quickly. */
const MERCHANT_TIMEOUT_MS = 300;
/** Short, so a page can outlive it in a test. */
const PAGE_LIFETIME_MS = 150;

let f: Fixture;
let short: Fixture;
beforeAll(async () => {
  f = await startFixture({ merchantTimeoutMs: MERCHANT_TIMEOUT_MS });
  short = await startFixture({ pageLifetimeMs: PAGE_LIFETIME_MS });
});
afterAll(async () => {
  await f.close();
  await short.close();
});
afterEach(() => {
  f.knet.faults.dropResponseNotification = false;
  f.merchant.reply = () => ({ body: `REDIRECT=${RECEIPT_URL}` });
});

async function payAnswered(reply: MerchantReply, fields: Record<string, string> = {}) {
  f.merchant.reply = () => reply;
  const trackid = f.trackId();
  const browser = await payOnKnet(f.initUrl({ trackid, ...fields }), { expiry: "09/2021" });
  return { browser, trackid, payment: f.knet.payments().find((p) => p.trackId === trackid)! };
}

const inquire = (trackid: string) =>
  callTranPipe(f.knet, apiFields("8", "20.550", trackid, trackid, "TrackID"));

describe("KNET stand-in: the merchant's answer to the response (manual 9.2)", () => {
  it.each<[string, MerchantReply]>([
    ["HTML instead of REDIRECT=", { body: "<html><body>Thanks!</body></html>" }],
    ["REDIRECT= on the second line", { body: `\nREDIRECT=${RECEIPT_URL}` }],
    ["REDIRECT= without a URL", { body: "REDIRECT=" }],
    ["REDIRECT= with HTTP 500", { status: 500, body: `REDIRECT=${RECEIPT_URL}` }],
    ["a redirect of its own (302)", { status: 302, body: `REDIRECT=${RECEIPT_URL}` }],
    [
      "nothing within merchantTimeoutMs",
      // Far past the timeout, so a loaded machine's late timer still sees nothing in time.
      { body: `REDIRECT=${RECEIPT_URL}`, delayMs: 10 * MERCHANT_TIMEOUT_MS },
    ],
    ["a dropped connection", "hang-up"],
  ])("auto-void on %s: the payment is reversed, the browser goes to errorURL", async (_, reply) => {
    const started = Date.now();
    const { browser, trackid, payment } = await payAnswered(reply);
    expect(Date.now() - started).toBeLessThan(MERCHANT_TIMEOUT_MS + 2_000);
    expect(browser).toMatchObject({ status: 302, location: ERROR_URL });
    expect(payment).toMatchObject({ result: "CAPTURED", voided: true, notification: "failed" });
    const inquiry = await inquire(trackid);
    expect(inquiry.fields).toMatchObject({ result: "FAILURE", trackid, amt: "20.550" });
  });

  it("auto-void when the responseURL cannot be reached", async () => {
    const { browser, payment } = await payAnswered({ body: "" }, { responseURL: "http://127.0.0.1:9/knet" });
    expect(browser.location).toBe(ERROR_URL);
    expect(payment).toMatchObject({ voided: true, notification: "failed" });
  });

  it("forgives spaces and a BOM around the REDIRECT= line, and follows it", async () => {
    const { browser, payment } = await payAnswered({ body: `\uFEFF  REDIRECT=${RECEIPT_URL}?x=1  \r\nmore` });
    expect(browser.location).toBe(`${RECEIPT_URL}?x=1`);
    expect(payment).toMatchObject({ voided: false, notification: "redirected" });
  });

  it("a declined payment whose notification fails is not voided (nothing to reverse)", async () => {
    f.merchant.reply = () => ({ body: "oops" });
    const trackid = f.trackId();
    const browser = await payOnKnet(f.initUrl({ trackid }), { expiry: "01/2022" });
    expect(browser.location).toBe(ERROR_URL);
    expect(f.knet.payments().find((p) => p.trackId === trackid)).toMatchObject({
      result: "NOT CAPTURED",
      voided: false,
      notification: "failed",
    });
  });

  it("faults.dropResponseNotification: done, no POST, no redirect, a plain page", async () => {
    f.knet.faults.dropResponseNotification = true;
    const { browser, trackid, payment } = await payAnswered({ body: `REDIRECT=${RECEIPT_URL}` });
    expect(browser.status).toBe(200);
    expect(browser.location).toBeUndefined();
    expect(browser.body).toContain("Your transaction has been processed");
    expect(f.merchant.posts.filter((p) => p.fields?.trackid === trackid)).toEqual([]);
    expect(payment).toMatchObject({ result: "CAPTURED", voided: false, notification: "dropped" });
    expect((await inquire(trackid)).fields.result).toBe("SUCCESS");
  });
});

describe("KNET stand-in: a page whose time ran out", () => {
  it("posts IPAY0100042 plainly to responseURL and follows the merchant's REDIRECT", async () => {
    const trackid = short.trackId();
    const init = await fetch(short.initUrl({ trackid, udf1: "sess_9" }), { redirect: "manual" });
    const page = await fetch(init.headers.get("location")!);
    const html = await page.text();
    await new Promise((resolve) => setTimeout(resolve, PAGE_LIFETIME_MS + 50));
    const paymentId = /name="PaymentID" value="(\d+)"/.exec(html)![1]!;
    const answer = await fetch(`${short.knet.url}/kpg/paymentpage.htm`, {
      method: "POST",
      body: new URLSearchParams({ PaymentID: paymentId, button: "cancel" }),
      redirect: "manual",
    });
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe(RECEIPT_URL);
    const post = short.merchant.posts.find((p) => p.form.trackid === trackid);
    expect(post?.form).toEqual({
      Error: "IPAY0100042",
      ErrorText: "Transaction time limit exceeds",
      paymentid: paymentId,
      trackid,
      amt: "20.550",
      udf1: "sess_9",
      udf2: "",
      udf3: "",
      udf4: "",
      udf5: "",
    });
    expect(short.knet.payments().find((p) => p.trackId === trackid)?.result).toBe("EXPIRED");
    const later = await fetch(`${short.knet.url}/kpg/paymentpage.htm?PaymentID=${paymentId}`);
    expect(await later.text()).toContain("IPAY0100042");
    const inquiry = await callTranPipe(short.knet, apiFields("8", "20.550", trackid, trackid, "TrackID"));
    expect(inquiry.fields.result).toBe("FAILURE");
  });

  it("a browser arriving late at the page is sent on the same way", async () => {
    const trackid = short.trackId();
    const url = short.initUrl({ trackid });
    const init = await fetch(url, { redirect: "manual" });
    await new Promise((resolve) => setTimeout(resolve, PAGE_LIFETIME_MS + 50));
    const browser = await payOnKnet(init.headers.get("location")!, { expiry: "09/2021" });
    expect(browser).toMatchObject({ status: 302, location: RECEIPT_URL });
    expect(short.merchant.posts.find((p) => p.form.trackid === trackid)?.form.Error).toBe("IPAY0100042");
  });
});
