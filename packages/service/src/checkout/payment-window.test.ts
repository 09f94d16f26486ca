/**
 * What the SDK's payment window relies on: the hosted page sends a customer who left a challenge
 * back to it, and the result poll asks the gateway about a payment waiting on a gateway page, so
 * a payment made there is reported even when the gateway's notification never comes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  apiKey,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";

const EXPIRY = `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, "0")}`;

describe.each(STORES)("the payment window's service side on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    // The sandbox's notifications wait a minute: only svc's own asking can learn the outcome.
    stack = await startStack(store, { notificationRetryDelaysMs: [60_000] });
    m = await createMerchant(stack);
  });
  afterAll(() => stack.close());

  const result = (sessionId: string) =>
    api(stack, "GET", `/v1/checkout/${sessionId}/payments/result`, { auth: apiKey(m.publicKey) });

  it("/pay/{id} after a challenge started: back to the challenge the attempt waits on", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const submitted = await fetch(`${stack.url}/pay/${tx.session_id}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        pg_code: m.pg.sandbox,
        number: "4000000000003220",
        expiry: EXPIRY,
        cvc: "123",
      }),
      redirect: "manual",
    });
    expect(submitted.status).toBe(303);
    const challenge = submitted.headers.get("location")!;
    expect(challenge.startsWith(stack.gatewayUrl)).toBe(true);
    const again = await fetch(`${stack.url}/pay/${tx.session_id}?lang=ar`, { redirect: "manual" });
    expect(again.status).toBe(303);
    expect(again.headers.get("location")).toBe(challenge);
    expect((await result(tx.session_id)).json).toMatchObject({ status: "pending", state: "attempted" });
  });

  it("a bank page approved without the browser coming back: the result poll asks the gateway", async () => {
    const tx = (await createTransaction(stack, m, { pg_codes: [m.pg.ndebit] })).json;
    const started = await api(stack, "POST", `/v1/checkout/${tx.session_id}/payments`, {
      auth: apiKey(m.publicKey),
      body: { form_of_payment: "redirect", pg_code: m.pg.ndebit },
    });
    expect(started.json.status).toBe("redirect");
    const page = started.json.redirect_url as string;
    // The customer presses Approve; the browser never follows the gateway's redirect back to svc.
    const approved = await fetch(page, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ action: "approve" }),
      redirect: "manual",
    });
    expect(approved.status).toBe(303);
    await expect
      .poll(async () => (await result(tx.session_id)).json.status, { timeout: 10_000, interval: 500 })
      .toBe("success");
    expect(
      (await api(stack, "GET", `/v1/payments/${tx.session_id}`, { auth: apiKey(m.privateKey) })).json.state,
    ).toBe("paid");
  });
});
