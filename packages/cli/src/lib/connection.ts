/**
 * Where a command that talks to a service sends its requests, and with which key: `--api-url` and
 * `--api-key`, else `SVC_API_URL` and `SVC_API_KEY`, else the credentials `svc dev` wrote beside
 * it (`<SVC_DATA_DIR or .svc>/dev-credentials.json`): run next to `npm start`, nothing to set.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";

export interface Connection {
  apiUrl: string;
  apiKey: string;
  /** The sandbox gateway (for triggers the gateway's own dashboard performs). */
  gatewayUrl: string;
  /** The public key and sandbox gateway codes, known only beside `svc dev` (or from --public-key). */
  publicKey?: string | undefined;
  pgCodes?: Partial<Record<PgCodeName, string>> | undefined;
  /** Where the values came from, for messages. */
  source: "options" | "environment" | "svc dev";
}

export type PgCodeName = "sandbox" | "sandbox_authorize" | "sandbox_queued" | "ndebit";

export interface ConnectionOptions {
  apiUrl?: string | undefined;
  apiKey?: string | undefined;
  gatewayUrl?: string | undefined;
}

interface DevCredentials {
  service_url?: string;
  admin_token?: string;
  webhook_secret?: string;
  private_key?: string;
  public_key?: string;
  pg_codes?: Partial<Record<PgCodeName, string>>;
}

export class UsageError extends Error {}

export async function resolveConnection(
  options: ConnectionOptions,
  env: Record<string, string | undefined>,
): Promise<Connection> {
  const dev = await readDevCredentials(env);
  const apiUrl = options.apiUrl ?? env.SVC_API_URL ?? dev?.service_url;
  const apiKey = options.apiKey ?? env.SVC_API_KEY ?? dev?.private_key;
  if (!apiUrl || !apiKey)
    throw new UsageError(
      "no service to talk to: pass --api-url and --api-key (or set SVC_API_URL and SVC_API_KEY), or run `npm start` (svc dev) in this directory first",
    );
  if (!/^https?:\/\//.test(apiUrl))
    throw new UsageError(`--api-url must start with http:// or https:// (got "${apiUrl}")`);
  const fromDev = dev?.private_key === apiKey;
  return {
    apiUrl: apiUrl.replace(/\/$/, ""),
    apiKey,
    gatewayUrl: (
      options.gatewayUrl ??
      env.SVC_GATEWAY_URL ??
      `http://127.0.0.1:${env.SVC_GATEWAY_PORT || "8081"}`
    ).replace(/\/$/, ""),
    publicKey: env.SVC_PUBLIC_KEY ?? (fromDev ? dev?.public_key : undefined),
    pgCodes: fromDev ? dev?.pg_codes : undefined,
    source:
      options.apiUrl || options.apiKey
        ? "options"
        : env.SVC_API_URL || env.SVC_API_KEY
          ? "environment"
          : "svc dev",
  };
}

async function readDevCredentials(
  env: Record<string, string | undefined>,
): Promise<DevCredentials | undefined> {
  const file = path.join(path.resolve(env.SVC_DATA_DIR || ".svc"), "dev-credentials.json");
  try {
    return JSON.parse(await readFile(file, "utf8")) as DevCredentials;
  } catch {
    return undefined;
  }
}

/** The signing secret of the `svc dev` merchant in this directory, if there is one. */
export async function devWebhookSecret(env: Record<string, string | undefined>): Promise<string | undefined> {
  return (await readDevCredentials(env))?.webhook_secret;
}

/**
 * The operator API's address and token: `--api-url`/`--admin-token`, else SVC_API_URL and
 * SVC_ADMIN_TOKEN, else `svc dev`'s credentials file.
 */
export async function resolveAdminConnection(
  options: { apiUrl?: string | undefined; adminToken?: string | undefined },
  env: Record<string, string | undefined>,
): Promise<{ apiUrl: string; adminToken: string }> {
  const dev = await readDevCredentials(env);
  const apiUrl = options.apiUrl ?? env.SVC_API_URL ?? dev?.service_url;
  const adminToken = options.adminToken ?? env.SVC_ADMIN_TOKEN ?? dev?.admin_token;
  if (!apiUrl || !adminToken)
    throw new UsageError(
      "no operator API to talk to: pass --api-url and --admin-token (or set SVC_API_URL and SVC_ADMIN_TOKEN), or run `npm start` (svc dev) in this directory first",
    );
  if (!/^https?:\/\//.test(apiUrl))
    throw new UsageError(`--api-url must start with http:// or https:// (got "${apiUrl}")`);
  return { apiUrl: apiUrl.replace(/\/$/, ""), adminToken };
}
