/** Creates a merchant with gateways and users through the operator API, as an operator would. */
import { randomBytes } from "node:crypto";
import type { Stack } from "./stack.js";
import { ADMIN_TOKEN } from "./stack.js";

export interface TestMerchant {
  id: string;
  rootDomain: string;
  privateKey: string;
  publicKey: string;
  webhookSecret: string;
  pg: { sandbox: string; authorize: string; queued: string; ndebit: string };
  /** Basic credentials of a user with every permission. */
  admin: { username: string; password: string };
}

/** Only the service's URL is used: a Stack, or a service running in its own process. */
export type ServiceUrl = Pick<Stack, "url">;

export async function api(
  stack: ServiceUrl,
  method: string,
  path: string,
  options: { auth?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
      ...(options.auth ? { authorization: options.auth } : {}),
      ...options.headers,
    },
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === "string"
          ? options.body
          : JSON.stringify(options.body),
    redirect: "manual",
  });
  const text = await response.text();
  // Tests read arbitrary response bodies field by field; their assertions are the type check.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

export const bearer = `Bearer ${ADMIN_TOKEN}`;
export const apiKey = (key: string) => `Api-Key ${key}`;
export const basic = (u: { username: string; password: string }) =>
  `Basic ${Buffer.from(`${u.username}:${u.password}`).toString("base64")}`;

const CURRENCIES = ["KWD", "USD", "JPY", "EUR", "BHD"];

/** `rootDomain`: e.g. the service's own host (`127.0.0.1:<port>`), the SDK's merchantId in browser tests. */
export async function createMerchant(
  stack: ServiceUrl,
  options: { rootDomain?: string } = {},
): Promise<TestMerchant> {
  const suffix = randomBytes(4).toString("hex");
  const rootDomain = options.rootDomain ?? `shop-${suffix}.example.com`;
  const created = await api(stack, "POST", "/v1/admin/merchants", {
    auth: bearer,
    body: { root_domain: rootDomain },
  });
  if (created.status !== 201) throw new Error(`merchant: ${created.status} ${created.text}`);
  const id = created.json.id as string;
  const pg = {
    sandbox: `sandbox-${suffix}`,
    authorize: `auth-${suffix}`,
    queued: `queued-${suffix}`,
    ndebit: `ndebit-${suffix}`,
  };
  const gateways = [
    {
      pg_code: pg.sandbox,
      kind: "sandbox",
      operation: "purchase",
      wallet_a_merchant_identifier: `merchant.${suffix}`,
    },
    { pg_code: pg.authorize, kind: "sandbox", operation: "authorize" },
    { pg_code: pg.queued, kind: "sandbox-queued", operation: "purchase" },
    { pg_code: pg.ndebit, kind: "ndebit", operation: "purchase" },
  ];
  for (const g of gateways) {
    const r = await api(stack, "POST", `/v1/admin/merchants/${id}/gateways`, {
      auth: bearer,
      body: { ...g, currencies: CURRENCIES },
    });
    if (r.status !== 201) throw new Error(`gateway: ${r.status} ${r.text}`);
  }
  const admin = { username: `admin-${suffix}`, password: `pw-${suffix}-long-enough` };
  const user = await api(stack, "POST", `/v1/admin/merchants/${id}/users`, {
    auth: bearer,
    body: {
      ...admin,
      email: `admin-${suffix}@example.com`,
      first_name: "Ada",
      last_name: "Admin",
      permissions: [
        "payment.create",
        "payment.refund",
        "payment.capture",
        "payment.void",
        "payment.view",
        "webhooks.manage",
      ],
    },
  });
  if (user.status !== 201) throw new Error(`user: ${user.status} ${user.text}`);
  return {
    id,
    rootDomain,
    privateKey: created.json.private_key,
    publicKey: created.json.public_key,
    webhookSecret: created.json.webhook_secret,
    pg,
    admin,
  };
}

/** Creates a parent transaction with the private key; `overrides` replace fields of a valid body. */
export async function createTransaction(
  stack: ServiceUrl,
  m: TestMerchant,
  overrides: Record<string, unknown> = {},
) {
  const body = {
    type: "e_commerce",
    pg_codes: [m.pg.sandbox],
    amount: "10.500",
    currency_code: "KWD",
    ...overrides,
  };
  return api(stack, "POST", "/v1/checkout", { auth: apiKey(m.privateKey), body });
}
