/**
 * Reconciliation on both stores: the list API pages through every payment with no duplicate and
 * no gap while new payments arrive, filters and refuses bad input clearly; the dashboard shows the
 * count and totals of a filter and exports it as CSV, streamed, 10,000 payments and more.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedIn } from "../../../../test/support/dashboard.js";
import {
  api,
  apiKey,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";

describe.each(STORES)("payments list and export on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack.close();
  });
  const list = (query: string) => api(stack, "GET", `/v1/payments${query}`, { auth: apiKey(m.privateKey) });

  it("pages through every payment once while new ones arrive (keyset cursor)", async () => {
    const before: string[] = [];
    for (let i = 0; i < 23; i++)
      before.push((await createTransaction(stack, m, { amount: "1.000" })).json.session_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r = await list(`?limit=5${cursor ? `&cursor=${cursor}` : ""}`);
      expect(r.status).toBe(200);
      seen.push(...r.json.data.map((p: { session_id: string }) => p.session_id));
      cursor = r.json.next_cursor;
      expect(r.json.has_more).toBe(cursor !== null);
      // Payments created between two pages are newer than the cursor: they never shift a page.
      await createTransaction(stack, m, { amount: "9.000" });
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toHaveLength(23);
    expect(new Set(seen).size).toBe(23);
    expect([...seen].sort()).toEqual([...before].sort());
    // Newest first.
    expect(seen[0]).toBe(before.at(-1));
  });

  it("filters, and refuses a bad cursor or time in words", async () => {
    const order = `LIST-${store}-${Date.now()}`;
    await createTransaction(stack, m, {
      amount: "3.000",
      order_no: order,
      customer_email: "filter@example.com",
    });
    const found = await list("?q=filter%40example.com");
    expect(found.json.data.map((p: { order_no: string }) => p.order_no)).toEqual([order]);
    expect(found.json.data[0]).toMatchObject({ amount: "3.000", currency_code: "KWD", state: "created" });
    expect((await list("?state=paid")).json.data).toEqual([]);
    const bad = await list("?cursor=bm9wZQ");
    expect(bad.status).toBe(422);
    expect(bad.json.errors.cursor).toEqual(["is not a cursor this API gave"]);
    expect((await list("?since=yesterday")).json.errors.since[0]).toContain("ISO 8601");
    expect((await list("?limit=1000")).status).toBe(422);
    // A blank search is not a filter: refused, not dropped (it listed every payment).
    const blank = await list("?q=%20%20");
    expect([blank.status, blank.json.errors?.q?.[0]]).toEqual([422, expect.stringContaining("only spaces")]);
    // order_no still answers that one payment, as before.
    expect((await list(`?order_no=${order}`)).json).toMatchObject({ order_no: order, amount: "3.000" });
  });

  it("the dashboard shows count and totals and exports 10,000 payments as a streamed CSV", async () => {
    const other = await createMerchant(stack);
    // 10,000 payments written straight to the store (the API would take minutes): 2,500 paid.
    await stack.db.query(
      `insert into transactions (session_id, merchant_id, order_no, state, amount_minor, currency_code, operation, type,
                                 created_via, pg_codes, language, expires_at, created_at, customer_first_name)
       select 'sess_bulk' || lpad(i::text, 6, '0') || $2, $1, 'BULK-' || i, case when i % 4 = 0 then 'paid' else 'created' end,
              1500, 'KWD', 'purchase', 'e_commerce', 'api', array['x'], 'en', now() + interval '1 day',
              now() - make_interval(secs => i), case when i = 7 then '=cmd|calc' else 'Bulk' end
         from generate_series(1, 10000) as i`,
      [other.id, store === "pglite" ? "a" : "b"],
    );
    const client = await signedIn(stack, other.admin);
    const page = await client.get("/dashboard/payments");
    expect(page.text).toContain(
      "<strong>10000 payments</strong>: 15000.000 KWD (3750.000 paid or authorized).",
    );
    expect(page.text).toContain('href="/dashboard/payments/export.csv"');
    const paidOnly = await client.get("/dashboard/payments?state=paid");
    expect(paidOnly.text).toContain("<strong>2500 payments</strong>: 3750.000 KWD");
    const response = await fetch(`${stack.url}/dashboard/payments/export.csv`, {
      headers: { cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="payments-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    // Streamed: no length known up front, and it arrives in many pieces.
    expect(response.headers.get("content-length")).toBeNull();
    let chunks = 0;
    let text = "";
    const decoder = new TextDecoder();
    for await (const chunk of response.body!) {
      chunks++;
      text += decoder.decode(chunk, { stream: true });
    }
    expect(chunks).toBeGreaterThan(5);
    const lines = text.trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "created_at,session_id,order_no,state,amount,currency_code,operation,type,form_of_payment,pg_code,customer_name,customer_email,customer_phone,customer_id,completed_at",
    );
    expect(lines).toHaveLength(10_001);
    const ids = lines.slice(1).map((l) => l.split(",")[1]);
    expect(new Set(ids).size).toBe(10_000);
    // Newest first; a value a spreadsheet would run is kept as text.
    expect(lines[1]).toContain(",BULK-1,created,1.500,KWD,");
    expect(text).toContain(`"'=cmd|calc"`);
  });
});
