/**
 * The demo merchant of `svc dev`, seeded idempotently: a second start on the same data keeps the
 * merchant, its keys and its data. Keys are stored hashed, so the credentials file is where the
 * dev keys live; if it is lost, fresh keys (and a fresh dashboard password) are issued for the
 * same merchant, whose data stays.
 */
import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { PERMISSIONS } from "@svc/protocol";
import type { FastifyInstance } from "fastify";
import { hashApiKey } from "../auth/keys.js";
import { hashPassword } from "../auth/passwords.js";
import type { ServiceConfig } from "../config.js";
import { sandboxSettingSecret } from "../gateways/sandbox/signature.js";
import { type GatewaySettingRow, merchantsRepo } from "../merchants/merchants.repo.js";

export interface DevCredentials {
  service_url: string;
  merchant_id: string;
  private_key: string;
  public_key: string;
  webhook_secret: string;
  admin_token: string;
  dashboard: { username: string; password: string };
  pg_codes: {
    sandbox: string;
    sandbox_authorize: string;
    sandbox_queued: string;
    ndebit: string;
    knet: string;
    stripe: string;
  };
  /** Not in the public contract: the sandbox gateway's notification secret, kept across restarts. */
  gateway_notification_secret: string;
  /** Not in the public contract: the demo KNET terminal, which the local KNET stand-in knows. */
  knet_terminal?: DemoKnetTerminal;
  /** Not in the public contract: the demo Stripe account, which the local Stripe stand-in knows. */
  stripe_account?: DemoStripeAccount;
}

/** The Stripe account of the demo merchant's `stripe` setting and of `svc dev`'s Stripe stand-in. */
export interface DemoStripeAccount {
  secretKey: string;
  webhookSecret: string;
}

/** A fresh demo Stripe account (keys only the stand-in knows; never a real Stripe key). */
export function newDemoStripeAccount(): DemoStripeAccount {
  return {
    secretKey: `sk_test_svcdev${randomBytes(12).toString("hex")}`,
    webhookSecret: `whsec_${randomBytes(24).toString("base64")}`,
  };
}

/** The KNET terminal of the demo merchant's `knet` setting and of `svc dev`'s KNET stand-in. */
export interface DemoKnetTerminal {
  tranportalId: string;
  password: string;
  resourceKey: string;
}

/** A fresh demo terminal (the stand-in is the only one that knows it). */
export function newDemoKnetTerminal(): DemoKnetTerminal {
  return {
    tranportalId: `demo${randomBytes(3).toString("hex")}`,
    password: randomBytes(6).toString("base64url").slice(0, 12),
    resourceKey: randomBytes(8).toString("hex"),
  };
}

const CREDENTIALS_FILE = "dev-credentials.json";
const DEMO_USERNAME = "demo";
const DEMO_CURRENCIES = ["KWD", "USD", "EUR", "SAR", "AED", "BHD", "OMR", "QAR", "GBP", "JPY"];
const DEMO_GATEWAYS = [
  { key: "sandbox", kind: "sandbox", operation: "purchase", name: "Sandbox" },
  { key: "sandbox_authorize", kind: "sandbox", operation: "authorize", name: "Sandbox (authorise)" },
  { key: "sandbox_queued", kind: "sandbox-queued", operation: "purchase", name: "Sandbox (queued)" },
  { key: "ndebit", kind: "ndebit", operation: "purchase", name: "National debit" },
] as const;

export async function readCredentials(dataDir: string): Promise<DevCredentials | undefined> {
  try {
    return JSON.parse(await readFile(path.join(dataDir, CREDENTIALS_FILE), "utf8")) as DevCredentials;
  } catch {
    return undefined;
  }
}

export async function writeCredentials(dataDir: string, credentials: DevCredentials): Promise<string> {
  const file = path.join(dataDir, CREDENTIALS_FILE);
  await writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  return file;
}

export async function seedDemoMerchant(
  app: FastifyInstance,
  config: ServiceConfig,
  previous: DevCredentials | undefined,
  /**
   * `svc dev`'s stand-ins: the demo merchant gets a `knet` setting pointed at the KNET one and a
   * `stripe` setting pointed at the Stripe one.
   */
  standIns: {
    knet?: { url: string; terminal: DemoKnetTerminal };
    stripe?: { url: string; account: DemoStripeAccount };
  } = {},
): Promise<DevCredentials> {
  const { knet, stripe } = standIns;
  const { merchants } = app.services;
  const q = app.services.db;
  const rootDomain = new URL(config.publicUrl).host;
  let merchant = await merchantsRepo.findMerchantByDomain(q, rootDomain);
  let privateKey = previous?.private_key;
  let publicKey = previous?.public_key;
  let password = previous?.dashboard.password;

  if (!merchant) {
    const created = await merchants.createMerchant({ root_domain: rootDomain, name: "Demo shop" });
    merchant = (await merchantsRepo.findMerchant(q, created.id))!;
    privateKey = created.private_key;
    publicKey = created.public_key;
    password = undefined;
  }
  const keyValid = async (key: string | undefined) =>
    key !== undefined &&
    (
      await q.query(
        "select 1 from api_keys where key_hash = $1 and merchant_id = $2 and revoked_at is null",
        [hashApiKey(key), merchant!.id],
      )
    ).length > 0;
  if (!(await keyValid(privateKey)))
    privateKey = (await merchants.createKey(merchant.id, "private", "svc dev")).key;
  if (!(await keyValid(publicKey)))
    publicKey = (await merchants.createKey(merchant.id, "public", "svc dev")).key;

  const user = (
    await q.query<{ id: number; merchant_id: string }>(
      "select id, merchant_id from users where username = $1",
      [DEMO_USERNAME],
    )
  )[0];
  if (!user) {
    password = randomBytes(9).toString("base64url");
    await merchants.createUser(merchant.id, {
      username: DEMO_USERNAME,
      email: "demo@example.com",
      password,
      first_name: "Demo",
      last_name: "User",
      permissions: [...PERMISSIONS],
    });
  } else {
    // Every permission, including ones added since this data dir was made (gateways.manage).
    await q.query("update users set permissions = $2 where id = $1", [user.id, [...PERMISSIONS]]);
  }
  if (user && (!password || user.merchant_id !== merchant.id)) {
    password = randomBytes(9).toString("base64url");
    await q.query("update users set password_hash = $2 where id = $1", [
      user.id,
      await hashPassword(password),
    ]);
  }

  const existing = await merchantsRepo.listGateways(q, merchant.id);
  const pgCodes = {} as DevCredentials["pg_codes"];
  for (const g of DEMO_GATEWAYS) {
    const code = g.key;
    const mine = existing.find(
      (s) => s.pg_code === code || s.pg_code === `${code}-${merchant!.id.slice(4, 10)}`,
    );
    if (mine) {
      pgCodes[g.key] = mine.pg_code;
      // Data from before per-setting secrets held the master secret itself: give it its own.
      if (config.gatewayNotificationSecret)
        await q.query("update gateway_settings set notification_secret = $2 where id = $1", [
          mine.id,
          sandboxSettingSecret(config.gatewayNotificationSecret, mine.pg_code),
        ]);
      continue;
    }
    const taken = await merchantsRepo.findGatewayByCode(q, code);
    const pgCode = taken ? `${code}-${merchant.id.slice(4, 10)}` : code;
    await app.services.gatewaySettings.create(merchant.id, {
      pg_code: pgCode,
      kind: g.kind,
      operation: g.operation,
      currencies: DEMO_CURRENCIES,
      name: g.name,
      ...(g.kind === "sandbox"
        ? { wallet_a_merchant_identifier: `merchant.${rootDomain.replace(/[:]/g, ".")}` }
        : {}),
    });
    pgCodes[g.key] = pgCode;
  }
  // Only the settings svc dev made itself (their codes are in the credentials file) are brought up
  // to date: a KNET or Stripe setting the developer added, with their own test keys, is theirs.
  const ours = (code: string | undefined) => existing.find((s) => s.pg_code === code);
  if (knet)
    pgCodes.knet = await seedStandInSetting(app, merchant.id, ours(previous?.pg_codes.knet), {
      kind: "knet",
      name: "KNET (local stand-in)",
      currencies: ["KWD"],
      url: knet.url,
      credentials: {
        tranportal_id: knet.terminal.tranportalId,
        tranportal_password: knet.terminal.password,
        resource_key: knet.terminal.resourceKey,
      },
    });
  // Cards on svc's hosted card page.
  if (stripe)
    pgCodes.stripe = await seedStandInSetting(app, merchant.id, ours(previous?.pg_codes.stripe), {
      kind: "stripe",
      name: "Stripe (local stand-in)",
      currencies: ["KWD", "USD"],
      url: stripe.url,
      credentials: { secret_key: stripe.account.secretKey, webhook_secret: stripe.account.webhookSecret },
    });

  const secret = (
    await q.query<{ secret: string }>(
      "select secret from webhook_secrets where merchant_id = $1 order by created_at desc limit 1",
      [merchant.id],
    )
  )[0]!.secret;

  return {
    service_url: config.publicUrl,
    merchant_id: rootDomain,
    private_key: privateKey!,
    public_key: publicKey!,
    webhook_secret: secret,
    admin_token: config.adminToken,
    dashboard: { username: DEMO_USERNAME, password: password! },
    pg_codes: pgCodes,
    gateway_notification_secret: config.gatewayNotificationSecret,
    ...(knet ? { knet_terminal: knet.terminal } : {}),
    ...(stripe ? { stripe_account: stripe.account } : {}),
  };
}

/** A stand-in's setting as `svc dev` makes it: its kind (and the code it asks for), name, currencies. */
interface StandInSetting {
  kind: "knet" | "stripe";
  name: string;
  currencies: string[];
  url: string;
  credentials: Record<string, string>;
}

/**
 * The demo merchant's setting for one of `svc dev`'s stand-ins (KNET, Stripe), pointed at it: its
 * port may change between starts, and its credentials are the ones in the credentials file.
 * `mine` (the setting svc dev made, by the code in the credentials file) is brought up to date;
 * without one a setting is created, coded as the kind unless that code is taken.
 */
async function seedStandInSetting(
  app: FastifyInstance,
  merchantId: string,
  mine: GatewaySettingRow | undefined,
  setting: StandInSetting,
): Promise<string> {
  const { gatewaySettings } = app.services;
  const { kind, name, currencies, url, credentials } = setting;
  if (mine) {
    await gatewaySettings.update(merchantId, mine.pg_code, { api_base_url: url, credentials });
    return mine.pg_code;
  }
  const taken = await merchantsRepo.findGatewayByCode(app.services.db, kind);
  const pgCode = taken ? `${kind}-${merchantId.slice(4, 10)}` : kind;
  await gatewaySettings.create(merchantId, {
    pg_code: pgCode,
    kind,
    operation: "purchase",
    currencies,
    name,
    api_base_url: url,
    credentials,
  });
  return pgCode;
}
