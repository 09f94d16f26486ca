/**
 * The Gateways pages over real HTTP on both stores: the list with the kinds in words, adding KNET
 * and Stripe settings (their credentials shown only as hints, never in any page's HTML, the
 * audit log included), refusals per kind beside their fields with the credential inputs empty,
 * an edit that changes one credential and keeps the others, the permission, and a service
 * without SVC_SECRETS_KEY (503, said on the page).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DashboardClient, signedIn } from "../../../../test/support/dashboard.js";
import { api, bearer, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { SECRETS_KEY, type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { openCredentials } from "../gateways/connection.js";
import type { GatewaySettingRow } from "../merchants/merchants.repo.js";
import { createKeyring } from "../secrets/keyring.js";

const KNET = {
  knet_tranportal_id: "TPID-88804321",
  knet_tranportal_password: "kn3t-Pass!",
  knet_resource_key: "RK0123456789ABCD",
};
const STRIPE = {
  stripe_secret_key: "sk_test_51AbCdEfGhIjKlMnOpQrStUvWxZz09",
  stripe_webhook_secret: "whsec_QmFzZTY0U2lnbmluZ1NlY3JldA==",
};
/** Everything typed into a credential input in this file: none may appear in a page. */
const TYPED_SECRETS = [
  ...Object.values(KNET),
  ...Object.values(STRIPE),
  "kn3t-N3w-Pass",
  "too-long-password-1",
  "RK-short",
  "pk_test_notASecretKey0001",
];

function expectNoSecrets(html: string, where: string) {
  for (const secret of TYPED_SECRETS) expect(html, `${where} shows ${secret}`).not.toContain(secret);
}

/** Every credential input of a page (KNET's and Stripe's). */
function credentialInputs(html: string) {
  return [
    ...html.matchAll(
      /<input [^>]*name="(knet|stripe)_(?!currencies|operation|api_base_url|environment)[a-z_]+"[^>]*>/g,
    ),
  ].map((m) => m[0]);
}

/** An input with an empty value (the renderer writes `value=""` as a bare `value`). */
function expectEmpty(input: string) {
  expect(input).toMatch(/ value[ />]/);
  expect(input).not.toMatch(/ value="/);
}

async function userWith(stack: Stack, m: TestMerchant, name: string, permissions: string[]) {
  const user = { username: `${name}-${m.rootDomain.slice(5, 13)}`, password: `${name}-password-long-enough` };
  const r = await api(stack, "POST", `/v1/admin/merchants/${m.id}/users`, {
    auth: bearer,
    body: { ...user, email: `${user.username}@example.com`, permissions },
  });
  if (r.status !== 201) throw new Error(`user: ${r.status} ${r.text}`);
  return user;
}

const adminGet = async (stack: Stack, m: TestMerchant, code: string) =>
  (await api(stack, "GET", `/v1/admin/merchants/${m.id}/gateways/${code}`, { auth: bearer })).json;

describe.each(STORES)("dashboard gateways on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let client: DashboardClient;
  let suffix: string;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
    suffix = m.rootDomain.slice(5, 13);
    const manager = await userWith(stack, m, "gw", ["payment.view", "webhooks.manage", "gateways.manage"]);
    client = await signedIn(stack, manager);
  });
  afterAll(() => stack?.close());

  /** Adds a KNET setting through the form; returns its code. */
  async function addKnet(code: string, extra: Record<string, string> = {}) {
    await client.get("/dashboard/gateways/new");
    const r = await client.post("/dashboard/gateways", {
      name: "KNET main",
      pg_code: code,
      kind: "knet",
      ...KNET,
      knet_environment: "test",
      // The other kinds' parts, as a browser without the script sends them: ignored.
      stripe_currencies: "USD",
      sandbox_currencies: "KWD",
      ...extra,
    });
    expect(r.status, r.text.slice(0, 500)).toBe(303);
    return r;
  }

  it("lists the merchant's gateways with their kinds in words; the navigation leads there", async () => {
    const page = await client.get("/dashboard/overview");
    expect(page.text).toContain('<a href="/dashboard/gateways">Gateways</a>');
    const list = await client.get("/dashboard/gateways");
    expect(list.status).toBe(200);
    expect(list.text).toContain('<a href="/dashboard/gateways" aria-current="page">Gateways</a>');
    for (const code of Object.values(m.pg)) expect(list.text).toContain(`href="/dashboard/gateways/${code}"`);
    for (const kind of ["Sandbox", "Sandbox (queued)", "National debit (sandbox)"])
      expect(list.text).toContain(`>${kind}</td>`);
    expect(list.text).toContain("None (a test gateway of svc)");
    expect(list.text).toContain("<code>KWD, USD, JPY, EUR, BHD</code>");
    const arabic = await client.get("/dashboard/gateways?lang=ar");
    expect(arabic.text).toContain("<h1>بوابات الدفع</h1>");
    expect(arabic.text).toContain(">تجريبية (مع انتظار)</td>");
    await client.get("/dashboard/gateways?lang=en");
  });

  it("adds a KNET gateway: its hints are listed, its credentials are in no page, the audit keeps code, kind and name", async () => {
    const form = await client.get("/dashboard/gateways/new");
    expect(form.status).toBe(200);
    const inputs = credentialInputs(form.text);
    expect(inputs).toHaveLength(5);
    for (const input of inputs) {
      expectEmpty(input);
      const plain = input.includes("tranportal_id");
      expect(input).toMatch(plain ? /type="text"/ : /type="password"/);
      expect(input).toContain(plain ? 'autocomplete="off"' : 'autocomplete="new-password"');
    }
    expect(form.text).toContain('<select id="f-kind" name="kind" data-kind-select="true"');
    expect(form.text).toContain('data-kinds="knet"');
    expect(form.text).toContain("<summary>Advanced</summary>");

    const code = `knet-${suffix}`;
    const added = await addKnet(code);
    expect(added.location).toBe("/dashboard/gateways");
    const list = await client.get("/dashboard/gateways");
    expect(list.text).toContain(`Gateway ${code} added.`);
    expect(list.text).toContain(">KNET</td>");
    expect(list.text).toContain('Tranportal ID <code dir="ltr">…4321</code>');
    expect(list.text).toContain("Tranportal password <strong>saved</strong>");
    expect(list.text).toContain("Terminal resource key <strong>saved</strong>");
    expect(list.text).toContain('KNET test host<br/><code class="url">https://kpaytest.com.kw</code>');
    expectNoSecrets(list.text, "the list");

    const edit = await client.get(`/dashboard/gateways/${code}`);
    expect(edit.status).toBe(200);
    expect(edit.text).toContain("<h1>Gateway KNET main</h1>");
    expect(edit.text).toContain("Saved: …4321. Leave empty to keep it.");
    expect(edit.text).toContain("Saved (not shown). Leave empty to keep it.");
    expect(edit.text).toMatch(/id="f-knet_environment-test" name="knet_environment" value="test" checked/);
    // Only KNET's part: its kind is fixed.
    expect(edit.text).not.toContain('name="stripe_secret_key"');
    expect(edit.text).not.toContain('name="kind"');
    for (const input of credentialInputs(edit.text)) expectEmpty(input);
    expectNoSecrets(edit.text, "the edit page");

    expect(await adminGet(stack, m, code)).toMatchObject({
      kind: "knet",
      name: "KNET main",
      currencies: ["KWD"],
      operation: "purchase",
      api_base_url: "https://kpaytest.com.kw",
      credentials: { tranportal_id: "…4321", tranportal_password: "set", resource_key: "set" },
    });

    await expect
      .poll(async () => (await client.get("/dashboard/audit")).text, { timeout: 5_000 })
      .toContain("Added a gateway");
    const auditPage = await client.get("/dashboard/audit");
    const line = /Added a gateway<br\/><span class="hint">(.*?)<\/span><\/td>/
      .exec(auditPage.text)?.[1]
      ?.replace(/<[^>]+>/g, "");
    expect(line?.split("; ").sort()).toEqual([`Gateway code: ${code}`, "Kind: knet", "Name: KNET main"]);
    expectNoSecrets(auditPage.text, "the audit log");
    const [event] = await stack.db.query<{ detail: Record<string, unknown> }>(
      "select detail from audit_events where merchant_id = $1 and action = 'gateway.created' order by id desc limit 1",
      [m.id],
    );
    expect(event!.detail).toEqual({ pg_code: code, kind: "knet", name: "KNET main" });
  });

  it("adds a Stripe gateway that authorizes, with its currencies", async () => {
    const code = `stripe-${suffix}`;
    await client.get("/dashboard/gateways/new");
    const r = await client.post("/dashboard/gateways", {
      pg_code: code,
      kind: "stripe",
      ...STRIPE,
      stripe_currencies: "usd, eur",
      stripe_operation: "authorize",
      knet_environment: "production",
    });
    expect(r.status, r.text.slice(0, 300)).toBe(303);
    const list = await client.get("/dashboard/gateways");
    expect(list.text).toContain(">Stripe</td>");
    expect(list.text).toContain('Secret key <code dir="ltr">sk_test_…Zz09</code>');
    expect(list.text).toContain("Webhook signing secret <strong>saved</strong>");
    expect(list.text).toContain("<code>USD, EUR</code>");
    expect(list.text).toContain(">Authorization</td>");
    expectNoSecrets(list.text, "the list");
    expect(await adminGet(stack, m, code)).toMatchObject({
      kind: "stripe",
      name: code,
      currencies: ["USD", "EUR"],
      operation: "authorize",
      api_base_url: null,
      credentials: { secret_key: "sk_test_…Zz09", webhook_secret: "set" },
    });
  });

  it("a refused KNET form: each message beside its field, the credential inputs empty, the rest kept", async () => {
    const code = `knet-bad-${suffix}`;
    await client.get("/dashboard/gateways/new");
    const r = await client.post("/dashboard/gateways", {
      name: "Second KNET",
      pg_code: code,
      kind: "knet",
      knet_tranportal_id: KNET.knet_tranportal_id,
      knet_tranportal_password: "too-long-password-1",
      knet_resource_key: "RK-short",
      knet_environment: "test",
    });
    expect(r.status).toBe(422);
    expect(r.text).toContain('data-error-summary="true"><h2>There is a problem</h2>');
    expect(r.text).toMatch(
      /<p class="field-error" id="f-knet_tranportal_password-error">Tranportal password: must be the tranportal password KNET gave you \(1–15 characters\)<\/p>/,
    );
    expect(r.text).toMatch(
      /<p class="field-error" id="f-knet_resource_key-error">Terminal resource key: must be the terminal resource key KNET gave you: exactly 16 characters<\/p>/,
    );
    expect(r.text).toMatch(
      /<input type="password" id="f-knet_resource_key" name="knet_resource_key" value [^>]*aria-describedby="f-knet_resource_key-hint f-knet_resource_key-error" aria-invalid="true"/,
    );
    for (const input of credentialInputs(r.text)) expectEmpty(input);
    expect(r.text).toContain('name="name" value="Second KNET"');
    expect(r.text).toContain(`name="pg_code" value="${code}"`);
    expect(r.text).toMatch(/id="f-knet_environment-test" name="knet_environment" value="test" checked/);
    expectNoSecrets(r.text, "the refused form");
    expect((await client.get("/dashboard/gateways")).text).not.toContain(code);
  });

  it("a refused Stripe form: a publishable key and a missing signing secret, named beside their fields", async () => {
    await client.get("/dashboard/gateways/new");
    const r = await client.post("/dashboard/gateways", {
      pg_code: `stripe-bad-${suffix}`,
      kind: "stripe",
      stripe_secret_key: "pk_test_notASecretKey0001",
      stripe_currencies: "USD",
      stripe_operation: "authorize",
      stripe_api_base_url: "http://stripe.example",
    });
    expect(r.status).toBe(422);
    expect(r.text).toContain('id="f-stripe_secret_key-error">Secret key: must be a Stripe secret key');
    expect(r.text).toContain('id="f-stripe_webhook_secret-error">Webhook signing secret: is required');
    expect(r.text).toContain('id="f-stripe_api_base_url-error">API host: must use https://');
    // The Advanced part is open when it holds an error; what was typed there is kept (not a credential).
    expect(r.text).toContain('<details class="advanced" open>');
    expect(r.text).toContain('value="http://stripe.example"');
    expect(r.text).toContain('name="stripe_currencies" value="USD"');
    expect(r.text).toMatch(/<option value="authorize" selected>/);
    for (const input of credentialInputs(r.text)) expectEmpty(input);
    expectNoSecrets(r.text, "the refused form");
  });

  it("a refused test gateway: currencies checked in the page's words, a taken code in the service's", async () => {
    await client.get("/dashboard/gateways/new");
    const bad = await client.post("/dashboard/gateways", {
      pg_code: `sbx-${suffix}`,
      kind: "sandbox",
      sandbox_currencies: "KW",
    });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain(
      '<p class="field-error" id="f-sandbox_currencies-error">Currencies: enter at least one three-letter code, e.g. KWD.</p>',
    );
    const taken = await client.post("/dashboard/gateways", {
      pg_code: m.pg.sandbox,
      kind: "sandbox",
      sandbox_currencies: "KWD",
    });
    expect(taken.status).toBe(409);
    expect(taken.text).toContain(`id="f-pg_code-error">The pg_code ${m.pg.sandbox} is taken`);
    const arabic = await client.post("/dashboard/gateways?lang=ar", {
      pg_code: "Not A Code",
      kind: "sandbox",
      sandbox_currencies: "KWD",
    });
    expect(arabic.status).toBe(422);
    expect(arabic.text).toContain('<h2>هناك مشكلة</h2><ul lang="en" dir="ltr"><li>Gateway code: must be');
    expect(arabic.text).toContain('<p class="field-error" id="f-pg_code-error" lang="en" dir="ltr">');
    const ok = await client.post("/dashboard/gateways?lang=en", {
      pg_code: `sbx-${suffix}`,
      kind: "sandbox-queued",
      sandbox_currencies: "kwd usd",
    });
    expect(ok.status).toBe(303);
    await client.get("/dashboard/gateways?lang=en");
    expect(await adminGet(stack, m, `sbx-${suffix}`)).toMatchObject({
      kind: "sandbox-queued",
      currencies: ["KWD", "USD"],
      credentials: null,
    });
  });

  it("edits a KNET gateway with one new credential: the others are kept; then its host", async () => {
    const code = `knet-edit-${suffix}`;
    await addKnet(code);
    await client.get(`/dashboard/gateways/${code}`);
    const saved = await client.post(`/dashboard/gateways/${code}`, {
      name: "KNET renamed",
      knet_tranportal_id: "",
      knet_tranportal_password: "kn3t-N3w-Pass",
      knet_resource_key: "",
      knet_environment: "production",
    });
    expect(saved.status, saved.text.slice(0, 500)).toBe(303);
    expect((await client.get(saved.location!)).text).toContain(`Gateway ${code} saved.`);
    const [row] = await stack.db.query<GatewaySettingRow>(
      "select * from gateway_settings where pg_code = $1",
      [code],
    );
    expect(row!.name).toBe("KNET renamed");
    expect(row!.api_base_url).toBeNull();
    expect(openCredentials(createKeyring(SECRETS_KEY, []), row!)).toEqual({
      tranportal_id: KNET.knet_tranportal_id,
      tranportal_password: "kn3t-N3w-Pass",
      resource_key: KNET.knet_resource_key,
    });
    const page = await client.get(`/dashboard/gateways/${code}`);
    expect(page.text).toMatch(
      /id="f-knet_environment-production" name="knet_environment" value="production" checked/,
    );
    expectNoSecrets(page.text, "the edit page");

    // A refused edit keeps the name typed, empties the credential typed.
    const refused = await client.post(`/dashboard/gateways/${code}`, {
      name: "KNET again",
      knet_resource_key: "RK-short",
      knet_environment: "production",
    });
    expect(refused.status).toBe(422);
    expect(refused.text).toContain('id="f-knet_resource_key-error">Terminal resource key:');
    expect(refused.text).toContain('name="name" value="KNET again"');
    expectNoSecrets(refused.text, "the refused edit");

    // A stand-in's host under Advanced needs the credentials again (saved ones never go to a
    // new host); emptied, the environment decides again.
    const withoutCredentials = await client.post(`/dashboard/gateways/${code}`, {
      name: "KNET renamed",
      knet_environment: "production",
      knet_api_base_url: "http://127.0.0.1:9/knet",
    });
    expect(withoutCredentials.status).toBe(422);
    expect(withoutCredentials.text).toContain(
      'id="f-knet_tranportal_id-error">Tranportal ID: give it again with a new api_base_url',
    );
    expect((await adminGet(stack, m, code)).api_base_url).not.toBe("http://127.0.0.1:9/knet");
    const standIn = await client.post(`/dashboard/gateways/${code}`, {
      ...KNET,
      name: "KNET renamed",
      knet_environment: "production",
      knet_api_base_url: "http://127.0.0.1:9/knet",
    });
    expect(standIn.status).toBe(303);
    expect((await adminGet(stack, m, code)).api_base_url).toBe("http://127.0.0.1:9/knet");
    const list = await client.get("/dashboard/gateways");
    expect(list.text).toContain('<code class="url">http://127.0.0.1:9/knet</code>');
    const edit = await client.get(`/dashboard/gateways/${code}`);
    expect(edit.text).toContain('<details class="advanced" open>');
    await client.post(`/dashboard/gateways/${code}`, { name: "KNET renamed", knet_environment: "test" });
    expect((await adminGet(stack, m, code)).api_base_url).toBe("https://kpaytest.com.kw");
    await expect
      .poll(async () => (await client.get("/dashboard/audit")).text, { timeout: 5_000 })
      .toContain(`Changed a gateway <code dir="ltr">${code}</code>`);
    expectNoSecrets((await client.get("/dashboard/audit")).text, "the audit log");
  });

  it("edits a Stripe gateway's currencies without touching its keys", async () => {
    const code = `stripe-${suffix}`;
    await client.get(`/dashboard/gateways/${code}`);
    const r = await client.post(`/dashboard/gateways/${code}`, {
      name: "Stripe EU",
      stripe_secret_key: "",
      stripe_webhook_secret: "",
      stripe_currencies: "EUR",
      stripe_operation: "purchase",
      stripe_api_base_url: "",
    });
    expect(r.status).toBe(303);
    expect(await adminGet(stack, m, code)).toMatchObject({
      name: "Stripe EU",
      currencies: ["EUR"],
      operation: "purchase",
      credentials: { secret_key: "sk_test_…Zz09", webhook_secret: "set" },
    });
  });

  it("needs gateways.manage: no link, 403 for the pages and a forged POST, nothing saved", async () => {
    const other = await signedIn(stack, m.admin);
    const overview = await other.get("/dashboard/overview");
    expect(overview.text).not.toContain('href="/dashboard/gateways"');
    for (const path of [
      "/dashboard/gateways",
      "/dashboard/gateways/new",
      `/dashboard/gateways/${m.pg.sandbox}`,
    ]) {
      const page = await other.get(path);
      expect(page.status, path).toBe(403);
      expect(page.text).toContain("gateways.manage");
    }
    const forged = await other.post("/dashboard/gateways", {
      pg_code: `forged-${suffix}`,
      kind: "sandbox",
      sandbox_currencies: "KWD",
    });
    expect(forged.status).toBe(403);
    const edit = await other.post(`/dashboard/gateways/${m.pg.sandbox}`, {
      name: "forged",
      sandbox_currencies: "KWD",
    });
    expect(edit.status).toBe(403);
    const list = await client.get("/dashboard/gateways");
    expect(list.text).not.toContain(`forged-${suffix}`);
    expect((await adminGet(stack, m, m.pg.sandbox)).name).not.toBe("forged");
  });

  it("refuses a POST without the form's token or from another site; nothing is saved", async () => {
    await client.get("/dashboard/gateways/new");
    const fields = { pg_code: `csrf-${suffix}`, kind: "sandbox", sandbox_currencies: "KWD" };
    expect((await client.post("/dashboard/gateways", fields, { csrf: null })).status).toBe(403);
    expect(
      (await client.post("/dashboard/gateways", fields, { origin: "https://evil.example" })).status,
    ).toBe(403);
    expect(
      (await client.post(`/dashboard/gateways/${m.pg.sandbox}`, { name: "x" }, { csrf: "wrong" })).status,
    ).toBe(403);
    expect((await client.get("/dashboard/gateways")).text).not.toContain(`csrf-${suffix}`);
  });

  it("another merchant's gateway is not found", async () => {
    const other = await createMerchant(stack);
    const page = await client.get(`/dashboard/gateways/${other.pg.sandbox}`);
    expect(page.status).toBe(404);
    expect(page.text).toContain("There is no such gateway setting.");
    const post = await client.post(`/dashboard/gateways/${other.pg.sandbox}`, {
      name: "mine",
      sandbox_currencies: "KWD",
    });
    expect(post.status).toBe(404);
  });
});

describe.each(STORES)("dashboard gateways without SVC_SECRETS_KEY on %s", (store) => {
  let keyed: Stack;
  let keyless: Stack;
  let m: TestMerchant;
  let client: DashboardClient;
  let knetCode: string;
  beforeAll(async () => {
    keyed = await startStack(store);
    keyless = await startStack(store, { db: keyed.db, config: { secretsKey: "" } });
    m = await createMerchant(keyless);
    knetCode = `knet-keyed-${m.rootDomain.slice(5, 13)}`;
    // A KNET setting saved by a service that has the key (the same database).
    const created = await api(keyed, "POST", `/v1/admin/merchants/${m.id}/gateways`, {
      auth: bearer,
      body: {
        pg_code: knetCode,
        kind: "knet",
        currencies: ["KWD"],
        credentials: { tranportal_id: "TPID-1", tranportal_password: "pw", resource_key: "RK0123456789ABCD" },
      },
    });
    expect(created.status).toBe(201);
    const manager = await userWith(keyless, m, "gw", ["gateways.manage", "webhooks.manage"]);
    client = await signedIn(keyless, manager);
  });
  afterAll(async () => {
    await keyless?.close();
    await keyed?.close();
  });

  it("says so before anything is typed, answers a KNET form 503 with what to set, and saves nothing", async () => {
    const form = await client.get("/dashboard/gateways/new");
    expect(form.text).toContain("svc has no secrets key (SVC_SECRETS_KEY)");
    const code = `knet-nokey-${m.rootDomain.slice(5, 13)}`;
    const r = await client.post("/dashboard/gateways", {
      name: "KNET",
      pg_code: code,
      kind: "knet",
      ...KNET,
      knet_environment: "production",
    });
    expect(r.status).toBe(503);
    expect(r.text).toMatch(
      /<div class="notice error" role="alert" tabindex="-1" data-error-summary="true"><h2>Credentials cannot be saved<\/h2><ul><li>svc has no secrets key, so it cannot store gateway credentials. Set SVC_SECRETS_KEY to 32 random bytes in base64/,
    );
    expect(r.text).toContain(`name="pg_code" value="${code}"`);
    for (const input of credentialInputs(r.text)) expectEmpty(input);
    expectNoSecrets(r.text, "the 503 page");
    expect((await client.get("/dashboard/gateways")).text).not.toContain(code);
    const arabic = await client.post("/dashboard/gateways?lang=ar", {
      pg_code: code,
      kind: "knet",
      ...KNET,
      knet_environment: "production",
    });
    expect(arabic.status).toBe(503);
    expect(arabic.text).toContain("اضبط SVC_SECRETS_KEY");
    await client.get("/dashboard/gateways?lang=en");
  });

  it("a credential changed on an edit is 503 too; a test gateway and a name still change", async () => {
    await client.get(`/dashboard/gateways/${knetCode}`);
    const r = await client.post(`/dashboard/gateways/${knetCode}`, {
      name: "KNET",
      knet_tranportal_password: "kn3t-N3w-Pass",
      knet_environment: "production",
    });
    expect(r.status).toBe(503);
    expect(r.text).toContain("Set SVC_SECRETS_KEY");
    expectNoSecrets(r.text, "the 503 page");
    const renamed = await client.post(`/dashboard/gateways/${knetCode}`, {
      name: "KNET renamed",
      knet_environment: "production",
    });
    expect(renamed.status).toBe(303);
    expect((await adminGet(keyless, m, knetCode)).name).toBe("KNET renamed");
    const sandbox = await client.post("/dashboard/gateways", {
      pg_code: `sbx-nokey-${m.rootDomain.slice(5, 13)}`,
      kind: "sandbox",
      sandbox_currencies: "KWD",
    });
    expect(sandbox.status).toBe(303);
  });
});
