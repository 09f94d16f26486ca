/**
 * One saved card per card: the gateway's fingerprint identifies it, saving it again refreshes it
 * (same svc token, new expiry), another card is another entry; rows saved before fingerprints
 * existed are folded by brand, last digits and expiry.
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

const year = (ahead: number) => String((new Date().getUTCFullYear() + ahead) % 100).padStart(2, "0");

describe.each(STORES)("saved cards on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(() => stack.close());

  async function payAndSave(customer: string, number: string, expiry: string) {
    const tx = (await createTransaction(stack, m, { customer_id: customer })).json;
    const r = await fetch(`${stack.url}/pay/${tx.session_id}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        pg_code: m.pg.sandbox,
        number,
        expiry,
        cvc: "123",
        save_card: "1",
      }).toString(),
      redirect: "manual",
    });
    expect(r.status).toBe(303);
  }
  async function cards(customer: string) {
    const tx = (await createTransaction(stack, m, { customer_id: customer })).json;
    return (await api(stack, "GET", `/v1/checkout/${tx.session_id}`, { auth: apiKey(m.publicKey) })).json
      .cards as { token: string; last4: string; expiry: string }[];
  }

  it("saving the same card twice leaves one card, refreshed; another card is a second one", async () => {
    const customer = `cust-fp-${store}-${Date.now()}`;
    await payAndSave(customer, "4242 4242 4242 4242", `12/${year(3)}`);
    const [first] = await cards(customer);
    await payAndSave(customer, "4242424242424242", `11/${year(4)}`);
    const again = await cards(customer);
    expect(again).toEqual([{ ...first, expiry: `11/${year(4)}` }]);
    const rows = await stack.db.query<{ n: number }>(
      "select count(*)::int as n from saved_cards where customer_id = $1",
      [customer],
    );
    expect(rows[0]!.n).toBe(1);
    await payAndSave(customer, "5555 5555 5555 4444", `10/${year(2)}`);
    expect((await cards(customer)).map((c) => c.last4)).toEqual(["4242", "4444"]);
  });

  it("cards saved before fingerprints (no fingerprint) are listed once per brand, last digits and expiry", async () => {
    const customer = `cust-legacy-${store}-${Date.now()}`;
    for (const token of ["tok_legacy_a", "tok_legacy_b"])
      await stack.db.query(
        `insert into saved_cards (token, merchant_id, customer_id, pg_code, gateway_token, brand, last4, expiry)
         values ($1, $2, $3, $4, $5, 'visa', '4242', '12/39')`,
        [`${token}_${store}`, m.id, customer, m.pg.sandbox, `gw_${token}`],
      );
    expect(await cards(customer)).toHaveLength(1);
  });
});
