/**
 * Gateway settings with real credentials through the operator API, on both stores: write-only
 * (answers show hints), sealed at rest with a key id, refused without a key, changed in part,
 * rotated to a new key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, bearer, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { SECRETS_KEY, type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { createKeyring, generateSecretsKey } from "../secrets/keyring.js";
import { settingsRepo } from "../webhooks/settings.repo.js";
import { credentialsContext } from "./connection.js";
import { credentialsUnopenedLine } from "../server.js";

const KNET = {
  tranportal_id: "tp-id-0054321",
  tranportal_password: "Pw-k9!x2Q",
  resource_key: "K7c9Qw2Lm4Xz8Rt1",
};
const STRIPE = { secret_key: `sk_test_${"51Ab".repeat(6)}Zz09`, webhook_secret: `whsec_${"Q".repeat(32)}` };
const SECRETS = [KNET.tranportal_password, KNET.resource_key, STRIPE.secret_key, STRIPE.webhook_secret];

const noSecretIn = (text: string) => {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
};

describe.each(STORES)("gateway settings with credentials (%s)", (kind) => {
  let stack: Stack;
  let m: TestMerchant;
  const path = () => `/v1/admin/merchants/${m.id}/gateways`;

  beforeAll(async () => {
    stack = await startStack(kind);
    m = await createMerchant(stack);
  });
  afterAll(async () => stack?.close());

  it("creates KNET and Stripe settings whose answers show hints only, sealed at rest under the key", async () => {
    const knet = await api(stack, "POST", path(), {
      auth: bearer,
      body: {
        pg_code: `knet-${m.id.slice(4, 12)}`,
        kind: "knet",
        currencies: ["KWD"],
        credentials: KNET,
        environment: "test",
      },
    });
    expect(knet.status).toBe(201);
    expect(knet.json).toMatchObject({
      kind: "knet",
      api_base_url: "https://kpaytest.com.kw",
      credentials: { tranportal_id: "…4321", tranportal_password: "set", resource_key: "set" },
    });
    const stripe = await api(stack, "POST", path(), {
      auth: bearer,
      body: {
        pg_code: `stripe-${m.id.slice(4, 12)}`,
        kind: "stripe",
        currencies: ["USD", "KWD"],
        credentials: STRIPE,
      },
    });
    expect(stripe.status).toBe(201);
    expect(stripe.json.credentials).toEqual({ secret_key: "sk_test_…Zz09", webhook_secret: "set" });
    noSecretIn(knet.text + stripe.text);

    const listed = await api(stack, "GET", path(), { auth: bearer });
    const merchant = await api(stack, "GET", `/v1/admin/merchants/${m.id}`, { auth: bearer });
    noSecretIn(listed.text + merchant.text);
    expect(merchant.json.gateways.find((g: { kind: string }) => g.kind === "knet").credentials).toEqual(
      knet.json.credentials,
    );

    const [row] = await stack.db.query<{
      id: string;
      credentials: string;
      notification_secret: string | null;
    }>("select id, credentials, notification_secret from gateway_settings where pg_code = $1", [
      knet.json.pg_code,
    ]);
    const keyring = createKeyring(SECRETS_KEY);
    expect(row!.credentials).toMatch(new RegExp(`^svc1\\.${keyring.currentKeyId}\\.`));
    noSecretIn(row!.credentials);
    expect(row!.notification_secret).toBeNull();
    expect(JSON.parse(keyring.open(row!.credentials, credentialsContext(row!.id)))).toEqual(KNET);
  });

  it("refuses what the gateway would refuse, naming each field, and saves nothing", async () => {
    const pgCode = `bad-${m.id.slice(4, 12)}`;
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: "knet", currencies: ["USD"], credentials: KNET }, "currencies"],
      [{ kind: "knet", currencies: ["KWD"], operation: "authorize", credentials: KNET }, "operation"],
      [
        { kind: "knet", currencies: ["KWD"], credentials: { ...KNET, resource_key: "short" } },
        "credentials.resource_key",
      ],
      [
        { kind: "knet", currencies: ["KWD"], credentials: { tranportal_id: "x" } },
        "credentials.tranportal_password",
      ],
      [{ kind: "knet", currencies: ["KWD"], credentials: { ...KNET, extra: "y" } }, "credentials.extra"],
      [
        { kind: "stripe", currencies: ["USD"], credentials: { ...STRIPE, secret_key: "pk_test_123456789" } },
        "credentials.secret_key",
      ],
      [{ kind: "stripe", currencies: ["USD"], credentials: STRIPE, environment: "test" }, "environment"],
      [
        { kind: "knet", currencies: ["KWD"], credentials: KNET, api_base_url: "http://kpay.example" },
        "api_base_url",
      ],
      [{ kind: "sandbox", currencies: ["KWD"], credentials: { secret_key: "x" } }, "credentials"],
    ];
    for (const [body, field] of cases) {
      const r = await api(stack, "POST", path(), { auth: bearer, body: { pg_code: pgCode, ...body } });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(r.json.errors)).toContain(field);
      noSecretIn(r.text);
    }
    expect(await stack.db.query("select 1 from gateway_settings where pg_code = $1", [pgCode])).toHaveLength(
      0,
    );
  });

  it("changes part of the credentials, keeping the rest, and a stand-in's base URL", async () => {
    const pgCode = `knet2-${m.id.slice(4, 12)}`;
    await api(stack, "POST", path(), {
      auth: bearer,
      body: { pg_code: pgCode, kind: "knet", currencies: ["KWD"], credentials: KNET },
    });
    // Saved credentials never go to a new host: moving the setting to one needs every credential again.
    const moved = await api(stack, "PATCH", `${path()}/${pgCode}`, {
      auth: bearer,
      body: { credentials: { tranportal_password: "New-Pw-77" }, api_base_url: "http://127.0.0.1:9/" },
    });
    expect(moved.status).toBe(422);
    expect(Object.keys(moved.json.errors).sort()).toEqual([
      "credentials.resource_key",
      "credentials.tranportal_id",
    ]);
    expect(moved.json.errors["credentials.tranportal_id"][0]).toContain(
      "never sent to a host they were not given for",
    );
    noSecretIn(moved.text);
    const changed = await api(stack, "PATCH", `${path()}/${pgCode}`, {
      auth: bearer,
      body: {
        credentials: { ...KNET, tranportal_password: "New-Pw-77" },
        api_base_url: "http://127.0.0.1:9/",
      },
    });
    expect(changed.status).toBe(200);
    // KNET's own test host is not a new destination for them: no credential needed.
    const official = await api(stack, "PATCH", `${path()}/${pgCode}`, {
      auth: bearer,
      body: { environment: "test" },
    });
    expect(official.status).toBe(200);
    const partial = await api(stack, "PATCH", `${path()}/${pgCode}`, {
      auth: bearer,
      body: { api_base_url: "http://127.0.0.1:9/" },
    });
    expect(partial.status).toBe(422);
    expect(changed.json).toMatchObject({
      api_base_url: "http://127.0.0.1:9",
      credentials: { tranportal_id: "…4321" },
    });
    const [row] = await stack.db.query<{ id: string; credentials: string }>(
      "select id, credentials from gateway_settings where pg_code = $1",
      [pgCode],
    );
    const opened = JSON.parse(createKeyring(SECRETS_KEY).open(row!.credentials, credentialsContext(row!.id)));
    expect(opened).toEqual({ ...KNET, tranportal_password: "New-Pw-77" });
    const back = await api(stack, "PATCH", `${path()}/${pgCode}`, {
      auth: bearer,
      body: { api_base_url: null },
    });
    expect(back.json.api_base_url).toBeNull();
    const other = await createMerchant(stack);
    const foreign = await api(stack, "PATCH", `/v1/admin/merchants/${other.id}/gateways/${pgCode}`, {
      auth: bearer,
      body: { name: "mine now" },
    });
    expect(foreign.status).toBe(404);
    // A merchant that does not exist (say, a root domain given as its id) is a 404, not an empty list.
    const nobody = await api(stack, "GET", "/v1/admin/merchants/shop.example/gateways", { auth: bearer });
    expect(nobody.status).toBe(404);
    expect(nobody.json.detail).toContain("takes the merchant's id (mer_…)");
    expect(
      (await api(stack, "GET", `/v1/admin/merchants/${other.id}/gateways`, { auth: bearer })).status,
    ).toBe(200);
  });

  it("without SVC_SECRETS_KEY keeps serving but refuses to save a credential, saying what to set", async () => {
    const keyless = await startStack(kind, { db: stack.db, config: { secretsKey: "" } });
    try {
      const pgCode = `nokey-${m.id.slice(4, 12)}`;
      const r = await api(keyless, "POST", path(), {
        auth: bearer,
        body: { pg_code: pgCode, kind: "stripe", currencies: ["USD"], credentials: STRIPE },
      });
      expect(r.status).toBe(503);
      expect(r.json.code).toBe("secrets_key_missing");
      expect(r.json.detail).toContain("SVC_SECRETS_KEY");
      noSecretIn(r.text);
      expect(
        await stack.db.query("select 1 from gateway_settings where pg_code = $1", [pgCode]),
      ).toHaveLength(0);
      const sandbox = await api(keyless, "POST", path(), {
        auth: bearer,
        body: { pg_code: `sbx-${m.id.slice(4, 12)}`, kind: "sandbox", currencies: ["KWD"] },
      });
      expect(sandbox.status).toBe(201);
    } finally {
      await keyless.close();
    }
  });

  it("counts as moving real money only KNET's and Stripe's production hosts (Stripe: with a live key)", async () => {
    const owner = await createMerchant(stack);
    const tag = owner.id.slice(4, 12);
    const live = { ...STRIPE, secret_key: `sk_live_${"51Ab".repeat(6)}Lv01` };
    const settings: [string, Record<string, unknown>][] = [
      [`kprod-${tag}`, { kind: "knet", currencies: ["KWD"], credentials: KNET }],
      [`ktest-${tag}`, { kind: "knet", currencies: ["KWD"], credentials: KNET, environment: "test" }],
      [`slive-${tag}`, { kind: "stripe", currencies: ["USD"], credentials: live }],
      [`stest-${tag}`, { kind: "stripe", currencies: ["USD"], credentials: STRIPE }],
      [
        `sstand-${tag}`,
        { kind: "stripe", currencies: ["USD"], credentials: live, api_base_url: "http://127.0.0.1:9" },
      ],
      [`sbx-${tag}`, { kind: "sandbox", currencies: ["KWD"] }],
    ];
    for (const [pgCode, body] of settings) {
      const r = await api(stack, "POST", `/v1/admin/merchants/${owner.id}/gateways`, {
        auth: bearer,
        body: { pg_code: pgCode, ...body },
      });
      expect(r.status, pgCode).toBe(201);
    }
    const liveOf = async () => (await settingsRepo.routing(stack.db, owner.id, "e_commerce")).live.sort();
    expect(await liveOf()).toEqual([`kprod-${tag}`, `slive-${tag}`]);
    // The hint says the key's mode; a live key moved to a stand-in, or a test key, is a sandbox.
    const shown = await api(stack, "GET", `/v1/admin/merchants/${owner.id}/gateways/slive-${tag}`, {
      auth: bearer,
    });
    expect(shown.json.credentials.secret_key).toBe("sk_live_…Lv01");
    await api(stack, "PATCH", `/v1/admin/merchants/${owner.id}/gateways/kprod-${tag}`, {
      auth: bearer,
      body: { environment: "test" },
    });
    expect(await liveOf()).toEqual([`slive-${tag}`]);

    // A hint saved before keys showed their mode is written again when svc starts.
    await stack.db.query(
      `update gateway_settings set credentials_hint = '{"secret_key": "…Lv01", "webhook_secret": "set"}' where pg_code = $1`,
      [`slive-${tag}`],
    );
    expect(await liveOf()).toEqual([]);
    const restarted = await startStack(kind, { db: stack.db });
    try {
      await expect.poll(liveOf, { timeout: 5_000 }).toEqual([`slive-${tag}`]);
    } finally {
      await restarted.close();
    }
  });

  it("a partial change of credentials this service cannot open says why every field is needed", async () => {
    const pgCode = `knet3-${m.id.slice(4, 12)}`;
    await api(stack, "POST", path(), {
      auth: bearer,
      body: { pg_code: pgCode, kind: "knet", currencies: ["KWD"], credentials: KNET },
    });
    const other = await startStack(kind, { db: stack.db, config: { secretsKey: generateSecretsKey() } });
    try {
      const r = await api(other, "PATCH", `${path()}/${pgCode}`, {
        auth: bearer,
        body: { credentials: { tranportal_password: "Other-Pw-1" } },
      });
      expect(r.status).toBe(422);
      expect(r.json.errors.credentials[0]).toContain("cannot be opened with this service's SVC_SECRETS_KEY");
      expect(r.json.errors["credentials.tranportal_id"]).toEqual(["is required"]);
      noSecretIn(r.text);
      // What the start of such a process says (server.ts logs it as an error): which settings, and what to set.
      const { cannotOpen } = await other.service.app.services.gatewaySettings.refreshHints();
      expect(cannotOpen).toContain(pgCode);
      const line = credentialsUnopenedLine(cannotOpen, true);
      expect(line).toContain(pgCode);
      expect(line).toContain("SVC_SECRETS_PREVIOUS_KEYS");
    } finally {
      await other.close();
    }
  });

  it("rotates every credential to a new key; the old key can then go", async () => {
    const newKey = generateSecretsKey();
    const rotating = await startStack(kind, {
      db: stack.db,
      config: { secretsKey: newKey, secretsPreviousKeys: [SECRETS_KEY] },
    });
    try {
      const r = await api(rotating, "POST", "/v1/admin/secrets/rotate", { auth: bearer });
      expect(r.status).toBe(200);
      expect(r.json.resealed).toBeGreaterThanOrEqual(2);
      expect(r.json.cannot_open).toEqual([]);
      const again = await api(rotating, "POST", "/v1/admin/secrets/rotate", { auth: bearer });
      expect(again.json).toMatchObject({ resealed: 0, key_id: r.json.key_id });
      const onlyNew = createKeyring(newKey);
      for (const row of await stack.db.query<{ id: string; credentials: string }>(
        "select id, credentials from gateway_settings where merchant_id = $1 and credentials is not null",
        [m.id],
      ))
        expect(() => onlyNew.open(row.credentials, credentialsContext(row.id))).not.toThrow();
    } finally {
      await rotating.close();
    }
  });
});
