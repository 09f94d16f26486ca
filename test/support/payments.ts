/** Paid and authorized parents for operation tests, through the real checkout flows. */
import { api, apiKey, createTransaction, type ServiceUrl, type TestMerchant } from "./merchant.js";

export type ParentKind = "sandbox" | "authorize" | "queued";

/**
 * A parent paid (sandbox, queued) or authorized (authorize). sandbox and authorize pay with
 * wallet A at once; queued (sandbox-queued) goes through the gateway's redirect page, approved.
 */
export async function paidParent(
  stack: ServiceUrl,
  m: TestMerchant,
  kind: ParentKind = "sandbox",
  overrides: Record<string, unknown> = {},
) {
  const pgCode = m.pg[kind];
  const created = await createTransaction(stack, m, { pg_codes: [pgCode], ...overrides });
  if (created.status !== 201) throw new Error(`checkout: ${created.status} ${created.text}`);
  const tx = created.json;
  const pay = (body: Record<string, unknown>) =>
    api(stack, "POST", `/v1/checkout/${tx.session_id}/payments`, { auth: apiKey(m.publicKey), body });
  if (kind === "queued") {
    const r = await pay({ form_of_payment: "redirect", pg_code: pgCode });
    if (r.status !== 200) throw new Error(`redirect: ${r.status} ${r.text}`);
    const submitted = await fetch(r.json.redirect_url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "action=approve",
      redirect: "manual",
    });
    await (await fetch(submitted.headers.get("location")!, { redirect: "manual" })).text();
  } else {
    const r = await pay({ form_of_payment: "wallet_a_pay", pg_code: pgCode, payment_token: "tok-test" });
    if (r.status !== 200) throw new Error(`wallet_a: ${r.status} ${r.text}`);
  }
  const status = await api(stack, "GET", `/v1/payments/${tx.session_id}`, { auth: apiKey(m.privateKey) });
  const expected = kind === "authorize" ? "authorized" : "paid";
  if (status.json.state !== expected) throw new Error(`parent is ${status.json.state}, expected ${expected}`);
  return status.json as {
    session_id: string;
    order_no: string | null;
    amount: string;
    currency_code: string;
  };
}
