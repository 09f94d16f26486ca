/**
 * Service configuration: one default per key (with why), overridden by SVC_* environment
 * variables, validated at start. Secrets never reach logs: use {@link redactConfig}.
 */
import path from "node:path";
import { createKeyring } from "./secrets/keyring.js";

/**
 * Defaults that parts of the service also use when built without a config (a test's worker, an
 * adapter made by hand): defined here, with the rest of the configuration, and imported there.
 */
export const CONFIG_DEFAULTS = {
  /** See {@link ServiceConfig.webhookPollMs}. */
  webhookPollMs: 1_000,
  /** See {@link ServiceConfig.gatewayTimeoutMs}. */
  gatewayTimeoutMs: 10_000,
  /** See {@link ServiceConfig.dbConnectTimeoutMs}. */
  dbConnectTimeoutMs: 5_000,
  /** See {@link ServiceConfig.dbStatementTimeoutMs}. */
  dbStatementTimeoutMs: 10_000,
} as const;

export interface ServiceConfig {
  /** HTTP port of the service API, dashboard and hosted pages. */
  port: number;
  /** Interface to bind; loopback by default so a dev machine exposes nothing. */
  host: string;
  /** Public base URL customers' browsers and gateways use to reach the service. */
  publicUrl: string;
  /** Port of the sandbox gateway listener (`svc dev` starts it). */
  gatewayPort: number;
  /** Base URL of the sandbox gateway the adapters talk to. */
  gatewayUrl: string;
  /** Secret the sandbox gateway signs its notifications with. */
  gatewayNotificationSecret: string;
  /** Embedded PGlite data lives here (and dev-credentials.json). */
  dataDir: string;
  /** PostgreSQL connection string; when set, PGlite is not used. */
  databaseUrl: string | undefined;
  /**
   * PostgreSQL only: a connection must be had within `dbConnectTimeoutMs` (5 s) and a statement
   * must answer within `dbStatementTimeoutMs` (10 s: the server cancels it, the client gives up a
   * second later if the server is not answering at all). Past either, the request answers 503
   * `database_unavailable` with Retry-After instead of waiting to the request timeout. Migrations
   * run without them. SVC_DB_CONNECT_TIMEOUT_MS, SVC_DB_STATEMENT_TIMEOUT_MS.
   */
  dbConnectTimeoutMs: number;
  dbStatementTimeoutMs: number;
  /**
   * PostgreSQL only: how long a process starting while the database cannot be reached yet (a
   * `docker compose up` that starts both at once, a database still recovering) keeps trying before
   * it gives up and exits with status 1 (SVC_DB_START_WAIT_MS, 60 s; 0: give up at once). A
   * database that answers but refuses svc (a wrong password, no such database) ends the start at
   * once: waiting would not change it.
   */
  dbStartWaitMs: number;
  /** Bearer token of the operator API (`/v1/admin/*`). Empty disables the operator API. */
  adminToken: string;
  /**
   * The key gateway credentials are sealed with at rest (AES-256-GCM): 32 random bytes, base64
   * (SVC_SECRETS_KEY; `svc dev` keeps one in its data dir). Empty: the service runs, but refuses
   * to save a credential (503 secrets_key_missing) and cannot use saved ones.
   */
  secretsKey: string;
  /**
   * Earlier keys, comma-separated (SVC_SECRETS_PREVIOUS_KEYS): they still open what they sealed
   * while `svc secrets rotate` seals it all again under the current key (docs/gateways.md, rotation).
   */
  secretsPreviousKeys: string[];
  /** Default lifetime of a checkout session when `expiration_time` is not given: 24 h. */
  defaultExpirationSeconds: number;
  /** api = HTTP only, worker = webhook delivery only, all = both (the default). */
  role: "api" | "worker" | "all";
  /** Allow webhook destinations on private/loopback addresses (dev and tests only). */
  webhookAllowPrivate: boolean;
  /**
   * How often the delivery worker looks for retries coming due and expired leases: 1 s. New
   * messages wake it at once (in-process and by LISTEN/NOTIFY), not by this timer.
   */
  webhookPollMs: number;
  /**
   * A webhook endpoint whose every attempt has failed for this long is disabled (and the
   * merchant's other endpoints get `webhook.endpoint_disabled`): 5 days, long enough to outlast a
   * weekend outage and the retry schedule's 10 h steps, short enough that a dead URL stops
   * costing attempts. SVC_WEBHOOK_DISABLE_AFTER_SECONDS. The seed's destinations are never disabled.
   */
  webhookDisableAfterSeconds: number;
  /**
   * A webhook message whose every delivery finished longer ago than this is deleted with its
   * deliveries and attempts (webhooks/retention.ts): 90 days, as long as a merchant looks back in
   * the delivery log and far longer than the retries and the disabled-endpoint replay need.
   * SVC_WEBHOOK_RETENTION_DAYS, 7–3650; 0 keeps every webhook.
   */
  webhookRetentionDays: number;
  /**
   * What gateways posted and the ids of the notifications applied are deleted once older than
   * this (gateways/retention.ts): 180 days, for reconciliation by hand, and far longer than any
   * gateway retries a notification. SVC_GATEWAY_RETENTION_DAYS, 7–3650; 0 keeps them all.
   */
  gatewayRetentionDays: number;
  /**
   * A reservation (`<operation>_pending`) older than this belongs to a request that died during
   * its gateway call; the reservation sweep asks the gateway again and settles it.
   */
  reservationTimeoutSeconds: number;
  /**
   * A queued operation (`<operation>_queued`: the gateway took it and finishes it later, e.g. a
   * Stripe refund still `pending`) whose final result has not been notified is asked of the gateway
   * at most this often: the notification may never come (a wrong signing secret, a disabled
   * endpoint, a lost event). SVC_QUEUED_CHECK_SECONDS, 600.
   */
  queuedCheckSeconds: number;
  /**
   * A gateway call without an answer after this is given up: 10 s. Its outcome is then unknown
   * (the gateway may have done it), so it is recovered by asking the gateway, never redone.
   */
  gatewayTimeoutMs: number;
  /** Idempotency keys are remembered this long: 24 h, as the contract promises. */
  idempotencyTtlSeconds: number;
  /**
   * A request holds its idempotency key this long: 60 s. A retry within it is 409; after it (the
   * request died), a retry takes the key over and finishes what the request started.
   */
  idempotencyLeaseSeconds: number;
  logLevel: "silent" | "error" | "warn" | "info" | "debug";
  /**
   * Whom to believe about the client's address (X-Forwarded-For), which the rate limits and the
   * lockout count by: `false` (the default: the socket's peer), `true` (any proxy), a number of
   * proxy hops, or a comma-separated list of proxy addresses/CIDRs (SVC_TRUST_PROXY). Behind a
   * load balancer, set it, or every client shares the balancer's address and its limits.
   */
  trustProxy: boolean | number | string;
  /**
   * Rate limits per fixed window (http/rate-limit.ts, docs/security.md): requests per client
   * address (2,000 per 10 s), per credential (1,000 per 10 s: 100/s sustained, like the large
   * providers' defaults; a public key counts per address) and failed authentications per address
   * (50 per 10 s). 0 turns one off. `svc dev` multiplies each by 10 unless set. Per process.
   */
  rateLimits: { windowSeconds: number; perAddress: number; perCredential: number; authFailures: number };
  /**
   * Connection hygiene (docs/security.md): the whole request, headers and body, must arrive within
   * `requestTimeoutMs` (30 s) and its headers within `headersTimeoutMs` (10 s); a keep-alive
   * connection idle between requests is closed after `keepAliveTimeoutMs` (10 s; set it above a
   * load balancer's idle timeout when behind one); a socket with no traffic at all for
   * `idleTimeoutMs` (60 s) is closed. Node checks the first two every second, so a client that
   * trickles or withholds its request is cut at most a second past its bound.
   */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  idleTimeoutMs: number;
  /**
   * Bearer token `/metrics` requires (SVC_METRICS_TOKEN). Empty: `/metrics` is open, as
   * Prometheus scrapers expect on a private network; set it whenever the service port is reachable
   * from outside (the metrics name no merchant data, but show volumes and failures).
   */
  metricsToken: string;
  /**
   * Serve the example shop at /example/ (`svc dev` only, never `svc serve`): it reads the demo
   * merchant's credentials from the data dir and creates a transaction with its private key on
   * every unauthenticated GET, which only a local development service may do.
   */
  exampleShop: boolean;
}

type Env = Record<string, string | undefined>;

function intFrom(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = env[key];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${key} must be an integer between ${min} and ${max}, got "${raw}"`);
  }
  return value;
}

/** Days to keep something: 0 (keep it for ever) or 7 to 3650. */
function retentionFrom(env: Env, key: string, fallback: number): number {
  const raw = env[key];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || (value !== 0 && (value < 7 || value > 3650))) {
    throw new Error(
      `${key} must be 0 (keep everything) or a number of days between 7 and 3650, got "${raw}"`,
    );
  }
  return value;
}

function boolFrom(env: Env, key: string, fallback: boolean): boolean {
  const raw = env[key];
  if (raw === undefined || raw === "") return fallback;
  if (raw === "true") return true;
  if (raw === "false") return false;
  throw new Error(`${key} must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, key: string, allowed: readonly T[], fallback: T): T {
  const raw = env[key];
  if (raw === undefined || raw === "") return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new Error(`${key} must be one of ${allowed.join(", ")}, got "${raw}"`);
  }
  return raw as T;
}

function trustProxyFrom(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === "" || raw === "false") return false;
  if (raw === "true") return true;
  if (/^\d{1,2}$/.test(raw)) return Number(raw);
  if (/^[0-9a-fA-F.:/, ]+$/.test(raw)) return raw;
  throw new Error(
    `SVC_TRUST_PROXY must be true, false, a number of proxy hops, or proxy addresses/CIDRs separated by commas, got "${raw}"`,
  );
}

/** Reads the configuration from `env` (default: process.env), throwing a clear error on bad values. */
export function loadConfig(env: Env = process.env, overrides: Partial<ServiceConfig> = {}): ServiceConfig {
  const port = intFrom(env, "SVC_PORT", 8080, 0, 65535);
  const gatewayPort = intFrom(env, "SVC_GATEWAY_PORT", 8081, 0, 65535);
  const host = env.SVC_HOST || "127.0.0.1";
  const config: ServiceConfig = {
    port,
    host,
    publicUrl: (env.SVC_PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, ""),
    gatewayPort,
    gatewayUrl: (env.SVC_GATEWAY_URL || `http://127.0.0.1:${gatewayPort}`).replace(/\/$/, ""),
    gatewayNotificationSecret: env.SVC_GATEWAY_SECRET || "",
    dataDir: path.resolve(env.SVC_DATA_DIR || ".svc"),
    databaseUrl: env.SVC_DATABASE_URL || undefined,
    dbConnectTimeoutMs: intFrom(
      env,
      "SVC_DB_CONNECT_TIMEOUT_MS",
      CONFIG_DEFAULTS.dbConnectTimeoutMs,
      100,
      600_000,
    ),
    dbStatementTimeoutMs: intFrom(
      env,
      "SVC_DB_STATEMENT_TIMEOUT_MS",
      CONFIG_DEFAULTS.dbStatementTimeoutMs,
      100,
      600_000,
    ),
    dbStartWaitMs: intFrom(env, "SVC_DB_START_WAIT_MS", 60_000, 0, 3_600_000),
    adminToken: env.SVC_ADMIN_TOKEN || "",
    secretsKey: (env.SVC_SECRETS_KEY || "").trim(),
    secretsPreviousKeys: (env.SVC_SECRETS_PREVIOUS_KEYS || "")
      .split(",")
      .map((k) => k.trim())
      .filter(Boolean),
    defaultExpirationSeconds: intFrom(env, "SVC_DEFAULT_EXPIRATION_SECONDS", 24 * 3600, 60, 30 * 24 * 3600),
    role: oneOf(env, "SVC_ROLE", ["api", "worker", "all"] as const, "all"),
    webhookAllowPrivate: boolFrom(env, "SVC_WEBHOOK_ALLOW_PRIVATE", false),
    webhookPollMs: intFrom(env, "SVC_WEBHOOK_POLL_MS", CONFIG_DEFAULTS.webhookPollMs, 50, 3_600_000),
    webhookDisableAfterSeconds: intFrom(
      env,
      "SVC_WEBHOOK_DISABLE_AFTER_SECONDS",
      5 * 24 * 3600,
      1,
      365 * 24 * 3600,
    ),
    webhookRetentionDays: retentionFrom(env, "SVC_WEBHOOK_RETENTION_DAYS", 90),
    gatewayRetentionDays: retentionFrom(env, "SVC_GATEWAY_RETENTION_DAYS", 180),
    idempotencyTtlSeconds: 24 * 3600,
    idempotencyLeaseSeconds: intFrom(env, "SVC_IDEMPOTENCY_LEASE_SECONDS", 60, 1, 3600),
    gatewayTimeoutMs: intFrom(env, "SVC_GATEWAY_TIMEOUT_MS", CONFIG_DEFAULTS.gatewayTimeoutMs, 100, 120_000),
    reservationTimeoutSeconds: intFrom(env, "SVC_RESERVATION_TIMEOUT_SECONDS", 120, 1, 24 * 3600),
    queuedCheckSeconds: intFrom(env, "SVC_QUEUED_CHECK_SECONDS", 600, 1, 7 * 24 * 3600),
    logLevel: oneOf(env, "SVC_LOG_LEVEL", ["silent", "error", "warn", "info", "debug"] as const, "info"),
    metricsToken: env.SVC_METRICS_TOKEN || "",
    trustProxy: trustProxyFrom(env.SVC_TRUST_PROXY),
    rateLimits: {
      windowSeconds: intFrom(env, "SVC_RATE_LIMIT_WINDOW_SECONDS", 10, 1, 3600),
      perAddress: intFrom(env, "SVC_RATE_LIMIT_PER_ADDRESS", 2_000, 0, 1_000_000_000),
      perCredential: intFrom(env, "SVC_RATE_LIMIT_PER_CREDENTIAL", 1_000, 0, 1_000_000_000),
      authFailures: intFrom(env, "SVC_RATE_LIMIT_AUTH_FAILURES", 50, 0, 1_000_000_000),
    },
    requestTimeoutMs: intFrom(env, "SVC_REQUEST_TIMEOUT_MS", 30_000, 1_000, 600_000),
    headersTimeoutMs: intFrom(env, "SVC_HEADERS_TIMEOUT_MS", 10_000, 1_000, 600_000),
    keepAliveTimeoutMs: intFrom(env, "SVC_KEEP_ALIVE_TIMEOUT_MS", 10_000, 1_000, 600_000),
    idleTimeoutMs: intFrom(env, "SVC_IDLE_TIMEOUT_MS", 60_000, 1_000, 3_600_000),
    // No variable turns it on: only `svc dev` does, by override.
    exampleShop: false,
    ...overrides,
  };
  if (config.headersTimeoutMs > config.requestTimeoutMs)
    throw new Error("SVC_HEADERS_TIMEOUT_MS must not be more than SVC_REQUEST_TIMEOUT_MS");
  if (config.databaseUrl !== undefined) {
    const problem = databaseUrlProblem(config.databaseUrl);
    if (problem) throw new Error(`SVC_DATABASE_URL ${problem}`);
  }
  if (!/^https?:\/\//.test(config.publicUrl))
    throw new Error("SVC_PUBLIC_URL must start with http:// or https://");
  // A malformed key is refused at start (with what to set), not at the first credential saved.
  createKeyring(config.secretsKey || undefined, config.secretsPreviousKeys);
  return config;
}

/**
 * What is wrong with a PostgreSQL URL, in words (never the URL itself: it may hold the password).
 * Without its scheme the driver reads `db.example:5432/svc` as a socket path and quietly connects
 * to a local server; a `#`, `/` or `@` left raw in the password cuts the URL short.
 */
function databaseUrlProblem(url: string): string | undefined {
  if (!/^postgres(ql)?:\/\//.test(url))
    return "must start with postgres:// or postgresql://, e.g. postgres://svc:password@db.internal:5432/svc";
  try {
    new URL(url);
  } catch {
    return "is not a valid URL: percent-encode any of : / ? # [ ] @ % in the user name or password (e.g. # as %23)";
  }
  return undefined;
}

/** The configuration with secrets masked, for logs. */
export function redactConfig(config: ServiceConfig): Record<string, unknown> {
  // Its length only: a token's first characters narrow a guess, and say nothing an operator needs.
  const mask = (s: string | undefined) => (s ? `***(${s.length} chars)` : s);
  return {
    ...config,
    adminToken: mask(config.adminToken),
    metricsToken: mask(config.metricsToken),
    gatewayNotificationSecret: mask(config.gatewayNotificationSecret),
    secretsKey: config.secretsKey ? "***" : "",
    secretsPreviousKeys: config.secretsPreviousKeys.map(() => "***"),
    // The password in the authority (user:pw@) and in the query (?password=, as libpq takes it).
    databaseUrl: config.databaseUrl
      ?.replace(/\/\/([^:@/]+):[^@]*@/, "//$1:***@")
      .replace(/([?&]password=)[^&]*/gi, "$1***"),
  };
}
