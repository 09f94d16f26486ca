/** Dashboard sign-in, sessions, CSRF, lockout and permissions over real HTTP on both stores. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient, signedIn } from "../../../../test/support/dashboard.js";
import {
  api,
  apiKey,
  bearer,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { hashToken } from "./session.js";

describe.each(STORES)("dashboard sign-in and security on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(() => stack.close());

  async function addUser(permissions: string[]) {
    const user = { username: `u${Math.random().toString(36).slice(2, 10)}`, password: "a-long-password-1" };
    const r = await api(stack, "POST", `/v1/admin/merchants/${m.id}/users`, {
      auth: bearer,
      body: { ...user, email: `${user.username}@example.com`, permissions },
    });
    expect(r.status).toBe(201);
    return user;
  }

  it("sends a signed-out browser to sign-in, remembering where it was going", async () => {
    const client = new DashboardClient(stack);
    const r = await client.get("/dashboard/payments?state=paid");
    expect(r.status).toBe(303);
    expect(r.location).toBe(
      `/dashboard/sign-in?next=${encodeURIComponent("/dashboard/payments?state=paid")}`,
    );
    const page = await client.get(r.location!);
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="next" value="/dashboard/payments?state=paid"');
    const done = await client.post("/dashboard/sign-in", {
      ...m.admin,
      next: "/dashboard/payments?state=paid",
    });
    expect(done.location).toBe("/dashboard/payments?state=paid");
    // An outside target is never followed.
    const other = new DashboardClient(stack);
    await other.get("/dashboard/sign-in");
    const evil = await other.post("/dashboard/sign-in", { ...m.admin, next: "//evil.example/x" });
    expect(evil.location).toBe("/dashboard/overview");
  });

  it("/dashboard/ with its trailing slash is the dashboard's home too, before and after signing in", async () => {
    const client = new DashboardClient(stack);
    const out = await client.get("/dashboard/");
    expect(out.status).toBe(303);
    const next = new URL(out.location!, stack.url).searchParams.get("next");
    await client.get(out.location!);
    const done = await client.post("/dashboard/sign-in", { ...m.admin, next: next ?? "" });
    expect(done.status).toBe(303);
    const home = await client.get(done.location!);
    expect([200, 303]).toContain(home.status);
    if (home.status === 303) expect((await client.get(home.location!)).status).toBe(200);
    const slash = await client.get("/dashboard/?lang=en");
    expect(slash.status).toBe(303);
    expect(slash.location).toBe("/dashboard/overview");
  });

  it("sets an HttpOnly, SameSite=Lax session cookie scoped to /dashboard and stores only its hash", async () => {
    const client = new DashboardClient(stack);
    await client.get("/dashboard/sign-in");
    const r = await client.post("/dashboard/sign-in", m.admin);
    expect(r.status).toBe(303);
    const cookie = r.headers.getSetCookie().find((c) => c.startsWith("svc_dash="))!;
    expect(cookie).toMatch(/; Path=\/dashboard; HttpOnly; SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/); // the test stack's public URL is http
    const token = client.cookies.get("svc_dash")!;
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    const raw = await stack.db.query("select 1 from dashboard_sessions where token_hash = $1", [token]);
    expect(raw).toHaveLength(0);
    const hashed = await stack.db.query("select 1 from dashboard_sessions where token_hash = $1", [
      hashToken(token),
    ]);
    expect(hashed).toHaveLength(1);
    const page = await client.get("/dashboard/payments");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.text).not.toMatch(/<script(?![^>]*src=)/);
  });

  it("refuses a wrong password with one message for unknown users and wrong passwords", async () => {
    const client = new DashboardClient(stack);
    await client.get("/dashboard/sign-in");
    const wrong = await client.post("/dashboard/sign-in", {
      username: m.admin.username,
      password: "nope-nope-nope",
    });
    await client.get("/dashboard/sign-in");
    const unknown = await client.post("/dashboard/sign-in", {
      username: "nobody-here",
      password: "nope-nope-nope",
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.text).toContain("The username or password is wrong.");
    expect(unknown.text).toContain("The username or password is wrong.");
    expect(client.cookies.has("svc_dash")).toBe(false);
  });

  it("refuses a sign-in form without its CSRF cookie or from another origin", async () => {
    const noCookie = new DashboardClient(stack);
    const r1 = await noCookie.post("/dashboard/sign-in", m.admin, { csrf: "made-up" });
    expect(r1.status).toBe(403);
    const crossSite = new DashboardClient(stack);
    await crossSite.get("/dashboard/sign-in");
    const r2 = await crossSite.post("/dashboard/sign-in", m.admin, { origin: "https://evil.example" });
    expect(r2.status).toBe(403);
    expect(crossSite.cookies.has("svc_dash")).toBe(false);
  });

  it("a form over 1 MB gets a page that says so (413), not 'something went wrong' (500), signed in or not", async () => {
    const client = new DashboardClient(stack);
    await client.get("/dashboard/sign-in");
    const huge = await client.post("/dashboard/sign-in", { ...m.admin, password: "p".repeat(1_100_000) });
    expect(huge.status).toBe(413);
    expect(huge.text).toContain("Form too large");
    expect(huge.text).not.toContain("Something went wrong");
    const inArabic = await client.post("/dashboard/sign-in?lang=ar", {
      ...m.admin,
      password: "p".repeat(1_100_000),
    });
    expect(inArabic.status).toBe(413);
    expect(inArabic.text).toContain("النموذج كبير جدًا");
  });

  it("locks a username after repeated failures, with growing backoff, and frees it later", async () => {
    const user = await addUser(["payment.view"]);
    const client = new DashboardClient(stack);
    for (let i = 0; i < 5; i++) {
      await client.get("/dashboard/sign-in");
      expect((await client.post("/dashboard/sign-in", { ...user, password: "wrong-password" })).status).toBe(
        401,
      );
    }
    await client.get("/dashboard/sign-in");
    const locked = await client.post("/dashboard/sign-in", user); // the right password, but locked
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(20);
    expect(locked.text).toContain("Too many failed sign-ins");
    stack.advance(31_000);
    await client.get("/dashboard/sign-in");
    await client.post("/dashboard/sign-in", { ...user, password: "wrong-again" });
    await client.get("/dashboard/sign-in");
    const longer = await client.post("/dashboard/sign-in", user);
    expect(longer.status).toBe(429);
    expect(Number(longer.headers.get("retry-after"))).toBeGreaterThan(50); // doubled: 60 s
    stack.advance(61_000);
    await client.get("/dashboard/sign-in");
    expect((await client.post("/dashboard/sign-in", user)).status).toBe(303);
  });

  it("refuses POSTs without the CSRF token or from another origin, and changes nothing", async () => {
    const client = await signedIn(stack, m.admin);
    await client.get("/dashboard/sdk");
    const noToken = await client.post("/dashboard/sdk", {}, { csrf: null });
    expect(noToken.status).toBe(403);
    expect(noToken.text).toContain("security token");
    const badToken = await client.post("/dashboard/sdk", {}, { csrf: "x".repeat(43) });
    expect(badToken.status).toBe(403);
    const crossOrigin = await client.post("/dashboard/sdk", {}, { origin: "https://evil.example" });
    expect(crossOrigin.status).toBe(403);
    const config = await api(stack, "GET", "/v1/sdk/config", { auth: apiKey(m.publicKey) });
    expect(config.json.error_reporting.is_enabled).toBe(true);
    const ok = await client.post("/dashboard/sdk", {});
    expect(ok.status).toBe(303);
    const after = await api(stack, "GET", "/v1/sdk/config", { auth: apiKey(m.publicKey) });
    expect(after.json.error_reporting.is_enabled).toBe(false);
    await client.get("/dashboard/sdk");
    await client.post("/dashboard/sdk", { is_enabled: "on" });
  });

  it("refuses a POST with no session at all", async () => {
    const client = new DashboardClient(stack);
    const r = await client.post("/dashboard/keys", { kind: "private" }, { csrf: "anything" });
    expect(r.status).toBe(401);
  });

  it("signs out: the old cookie no longer opens anything", async () => {
    const client = await signedIn(stack, m.admin);
    const token = client.cookies.get("svc_dash")!;
    await client.get("/dashboard/payments");
    const out = await client.post("/dashboard/sign-out");
    expect(out.status).toBe(303);
    expect(out.headers.getSetCookie().join()).toMatch(/svc_dash=;.*Max-Age=0/);
    const replay = await fetch(`${stack.url}/dashboard/payments`, {
      headers: { cookie: `svc_dash=${token}` },
      redirect: "manual",
    });
    expect(replay.status).toBe(303);
  });

  it("ends a session after 30 idle minutes", async () => {
    const client = await signedIn(stack, m.admin);
    expect((await client.get("/dashboard/payments")).status).toBe(200);
    stack.advance(31 * 60_000);
    const r = await client.get("/dashboard/payments");
    expect(r.status).toBe(303);
    expect(r.location).toMatch(/^\/dashboard\/sign-in/);
  });

  it("shows only permitted pages and refuses a forged POST with 403 naming the permission", async () => {
    const viewer = await addUser(["payment.view"]);
    const client = await signedIn(stack, viewer);
    const list = await client.get("/dashboard/payments");
    expect(list.text).toContain('href="/dashboard/payments"');
    expect(list.text).not.toContain('href="/dashboard/payments/new"');
    expect(list.text).not.toContain('href="/dashboard/webhooks"');
    expect(list.text).not.toContain('href="/dashboard/keys"');
    const page = await client.get("/dashboard/payments/new");
    expect(page.status).toBe(403);
    expect(page.text).toContain("payment.create");
    await client.get("/dashboard/payments");
    const before = await stack.db.query(
      "select count(*)::int as n from transactions where merchant_id = $1",
      [m.id],
    );
    const forged = await client.post("/dashboard/payments/new", {
      amount: "1.000",
      currency_code: "KWD",
      pg_codes: m.pg.sandbox,
    });
    expect(forged.status).toBe(403);
    expect(forged.text).toContain("&quot;payment.create&quot; permission");
    const after = await stack.db.query("select count(*)::int as n from transactions where merchant_id = $1", [
      m.id,
    ]);
    expect(after).toEqual(before);
    const keys = await client.post("/dashboard/keys", { kind: "private" });
    expect(keys.status).toBe(403);
    expect(keys.text).not.toContain("sk_");
  });

  it("a user who may only create payment requests gets the checkout link to send, on a page they may open", async () => {
    const creator = await addUser(["payment.create"]);
    const client = await signedIn(stack, creator);
    await client.get("/dashboard/payments/new");
    const r = await client.post("/dashboard/payments/new", {
      amount: "7.25",
      currency_code: "KWD",
      pg_codes: m.pg.sandbox,
      order_no: "REQ-ONLY-CREATE",
    });
    expect(r.status).toBe(303);
    const sessionId = /created=(sess_[a-z2-7]+)$/.exec(r.location ?? "")?.[1];
    expect(sessionId).toBeDefined();
    const page = await client.get(r.location!);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Payment request created");
    expect(page.text).toContain(`href="${stack.url}/pay/${sessionId}"`);
    expect(page.text).toContain("The payment request of 7.250 KWD, order REQ-ONLY-CREATE.");
    // The form is there for the next one; the payment's own page stays theirs to be refused.
    expect(page.text).toContain("Another payment request");
    expect((await client.get(`/dashboard/payments/${sessionId}`)).status).toBe(403);
    // Only a payment request made in the dashboard and still to be paid shows: not any session.
    const other = (await createTransaction(stack, m)).json;
    const api1 = await client.get(`/dashboard/payments/new?created=${other.session_id}`);
    expect(api1.status).toBe(200);
    expect(api1.text).not.toContain("/pay/");
    // A user who may view payments goes to the payment's page, as before.
    const admin = await signedIn(stack, m.admin);
    await admin.get("/dashboard/payments/new");
    const own = await admin.post("/dashboard/payments/new", {
      amount: "1",
      currency_code: "KWD",
      pg_codes: m.pg.sandbox,
    });
    expect(own.location).toMatch(/^\/dashboard\/payments\/sess_[a-z2-7]+$/);
  });

  it("keeps merchants apart: another merchant's payment is not found", async () => {
    const other = await createMerchant(stack);
    const theirs = (await createTransaction(stack, other)).json;
    const client = await signedIn(stack, m.admin);
    const r = await client.get(`/dashboard/payments/${theirs.session_id}`);
    expect(r.status).toBe(404);
    expect(r.text).toContain("No transaction with session_id");
    expect(r.text).not.toContain(">Totals<");
  });
});
