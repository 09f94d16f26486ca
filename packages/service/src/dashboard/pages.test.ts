/** Dashboard pages over real HTTP on both stores: payment list, payment request, SDK, API keys. */
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
import { PAGE_SIZE } from "./pages/payments-list.js";

const sessionIds = (html: string) =>
  [...html.matchAll(/<a href="\/dashboard\/payments\/(sess_[a-z2-7]+)">/g)].map((x) => x[1]);

describe.each(STORES)("dashboard pages on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(() => stack.close());

  it("lists payments with search, filters and pages", async () => {
    const a = (
      await createTransaction(stack, m, {
        order_no: "ORD-100%",
        customer_email: "sara@example.com",
        customer_first_name: "Sara",
        customer_last_name: "Ali",
      })
    ).json;
    const b = (await createTransaction(stack, m, { order_no: "ORD-200", customer_id: "cust-42" })).json;
    const c = (await createTransaction(stack, m, { pg_codes: [m.pg.queued], amount: "1.000" })).json;
    const client = await signedIn(stack, m.admin);

    const all = await client.get("/dashboard/payments");
    expect(all.status).toBe(200);
    expect(sessionIds(all.text).slice(0, 3)).toEqual([c.session_id, b.session_id, a.session_id]);

    expect(sessionIds((await client.get("/dashboard/payments?q=ORD-")).text)).toEqual([
      b.session_id,
      a.session_id,
    ]);
    // % is a character, not a wildcard
    expect(sessionIds((await client.get("/dashboard/payments?q=ORD-100%25")).text)).toEqual([a.session_id]);
    expect(sessionIds((await client.get("/dashboard/payments?q=ORD-1%25")).text)).toEqual([]);
    expect(sessionIds((await client.get(`/dashboard/payments?q=${b.session_id}`)).text)).toEqual([
      b.session_id,
    ]);
    expect(sessionIds((await client.get("/dashboard/payments?q=SARA%40example")).text)).toEqual([
      a.session_id,
    ]);
    expect(sessionIds((await client.get("/dashboard/payments?q=sara+ali")).text)).toEqual([a.session_id]);
    expect(sessionIds((await client.get("/dashboard/payments?q=cust-4")).text)).toEqual([b.session_id]);
    expect(sessionIds((await client.get(`/dashboard/payments?pg_code=${m.pg.queued}`)).text)).toEqual([
      c.session_id,
    ]);
    expect(sessionIds((await client.get("/dashboard/payments?state=paid")).text)).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(sessionIds((await client.get(`/dashboard/payments?from=${today}&to=${today}`)).text)).toHaveLength(
      3,
    );
    const none = await client.get(`/dashboard/payments?from=${tomorrow}`);
    expect(sessionIds(none.text)).toEqual([]);
    expect(none.text).toContain("No payments match these filters.");

    for (let i = 0; i < PAGE_SIZE; i++) await createTransaction(stack, m, { amount: "2.000" });
    const first = await client.get("/dashboard/payments");
    expect(sessionIds(first.text)).toHaveLength(PAGE_SIZE);
    expect(first.text).toContain('rel="next"');
    const second = await client.get("/dashboard/payments?page=2");
    expect(sessionIds(second.text)).toHaveLength(3);
    expect(second.text).toContain('rel="prev"');
    expect(second.text).not.toContain('rel="next"');
    expect(new Set([...sessionIds(first.text), ...sessionIds(second.text)]).size).toBe(PAGE_SIZE + 3);
  });

  it("creates a payment request (created_via dashboard) and shows its checkout link; the amount is normalised to the currency", async () => {
    const client = await signedIn(stack, m.admin);
    const form = await client.get("/dashboard/payments/new");
    expect(form.status).toBe(200);
    const bad = await client.post("/dashboard/payments/new", {
      amount: "12.5555",
      currency_code: "KWD",
      pg_codes: m.pg.sandbox,
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toMatch(/aria-invalid="true"/);
    expect(bad.text).toContain("KWD has 3 decimals: 12.5555 has 4.");
    // What the merchant typed is kept in the form to correct.
    expect(bad.text).toContain('value="12.5555"');
    // A forged currency (Arabic digits, found by the fuzzer: it was a 500) is refused in words.
    const forged = await client.post("/dashboard/payments/new", {
      amount: "kl+^?5qu7u",
      currency_code: "٠١٢٫٣",
      pg_codes: m.pg.sandbox,
    });
    expect(forged.status).toBe(422);
    expect(forged.text).toContain("Choose the currency from the list.");
    const r = await client.post("/dashboard/payments/new", {
      amount: "12.5",
      currency_code: "KWD",
      pg_codes: [m.pg.sandbox, m.pg.queued],
      order_no: "REQ-1",
      customer_email: "buyer@example.com",
    });
    expect(r.status).toBe(303);
    const sessionId = /\/dashboard\/payments\/(sess_[a-z2-7]+)$/.exec(r.location ?? "")![1]!;
    const status = await api(stack, "GET", `/v1/payments/${sessionId}`, { auth: apiKey(m.privateKey) });
    expect(status.json).toMatchObject({
      type: "payment_request",
      created_via: "dashboard",
      amount: "12.500",
      order_no: "REQ-1",
      state: "created",
    });
    const page = await client.get(r.location!);
    expect(page.text).toContain("Payment request created");
    expect(page.text).toContain(`${stack.url}/pay/${sessionId}`);
    // The notice is shown once.
    expect((await client.get(r.location!)).text).not.toContain("Payment request created");
    const hosted = await fetch(`${stack.url}/pay/${sessionId}`);
    expect(hosted.status).toBe(200);
  });

  it("creates an API key shown once, and revokes it", async () => {
    const client = await signedIn(stack, m.admin);
    await client.get("/dashboard/keys");
    const created = await client.post("/dashboard/keys", { kind: "private", label: "reporting" });
    expect(created.status).toBe(200);
    const key = /<code class="secret"[^>]*>(sk_[a-z2-7]+)<\/code>/.exec(created.text)![1]!;
    const works = await api(stack, "GET", "/v1/payments?order_no=none", { auth: apiKey(key) });
    expect(works.status).toBe(404);
    const list = await client.get("/dashboard/keys");
    expect(list.text).not.toContain(key);
    expect(list.text).toContain(`${key.slice(0, 3)}…${key.slice(-4)}`);
    const rows = [
      ...list.text.matchAll(
        /<tr><td data-label="Key"><code>([^<]+)<\/code>[^]*?\/dashboard\/keys\/(key_[a-z2-7]+)\/revoke/g,
      ),
    ];
    const id = rows.find((row) => row[1] === `${key.slice(0, 3)}…${key.slice(-4)}`)?.[2];
    expect(id).toBeDefined();
    // The first POST only asks: the key still works.
    const asked = await client.post(`/dashboard/keys/${id}/revoke`);
    expect(asked.status).toBe(200);
    expect(asked.text).toContain("Revoke this key?");
    expect((await api(stack, "GET", "/v1/payments?order_no=none", { auth: apiKey(key) })).status).toBe(404);
    const revoked = await client.post(`/dashboard/keys/${id}/revoke`, { confirm: "yes" });
    expect(revoked.status).toBe(303);
    expect((await api(stack, "GET", "/v1/payments?order_no=none", { auth: apiKey(key) })).status).toBe(401);
  });

  it("turns SDK error reporting off and lists the reports", async () => {
    const report = await api(stack, "POST", "/v1/sdk/errors", {
      auth: apiKey(m.publicKey),
      body: { message: "Wallet sheet <failed>", form_of_payment: "wallet_a_pay" },
    });
    expect(report.status).toBe(201);
    const client = await signedIn(stack, m.admin);
    const page = await client.get("/dashboard/sdk");
    expect(page.text).toContain("Wallet sheet &lt;failed>");
    expect(page.text).not.toContain("<failed>");
    expect(page.text).toMatch(/id="f-is_enabled" name="is_enabled" value="on" checked/);
    // The script tag to copy: the running build's immutable URL and its integrity, as the manifest says.
    const manifest = (await (await fetch(`${stack.url}/sdk/manifest.json`)).json()) as {
      files: Record<string, { path: string; integrity: string }>;
    };
    const main = manifest.files["svc-checkout.js"]!;
    expect(page.text).toContain(
      `&lt;script src=&quot;${stack.config.publicUrl}${main.path}&quot; integrity=&quot;${main.integrity}&quot; crossorigin=&quot;anonymous&quot;>&lt;/script>`,
    );
    expect((await client.post("/dashboard/sdk", {})).status).toBe(303);
    const off = await api(stack, "GET", "/v1/sdk/config", { auth: apiKey(m.publicKey) });
    expect(off.json.error_reporting.is_enabled).toBe(false);
    const after = await client.get("/dashboard/sdk");
    expect(after.text).toContain("SDK error reporting is now off.");
    expect(after.text).not.toMatch(/name="is_enabled" value="on" checked/);
  });
});
