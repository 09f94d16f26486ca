/**
 * Starts the service: opens the store (PGlite under the data dir, or PostgreSQL), applies
 * migrations, builds the app and listens. Signals are the caller's (the CLI's) business.
 */
import { mkdir } from "node:fs/promises";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { buildApp } from "./app.js";
import { purgeStaleSignInFailures } from "./auth/lockout.js";
import { purgeOldWebhooks } from "./webhooks/retention.js";
import { purgeOldGatewayRecords } from "./gateways/retention.js";
import type { ServiceConfig } from "./config.js";
import { type Db, openDb, openPostgres, openWhenReachable } from "./db/client.js";
import { migrate } from "./db/migrate.js";
import { purgeExpiredKeys } from "./http/idempotency.js";
import { settlesWithin } from "./lifecycle.js";
import { GATEWAY_CONNECTORS } from "./gateways/connectors.js";
import { createGatewayRegistry } from "./gateways/registry.js";
import { createKeyring } from "./secrets/keyring.js";
import { createMetrics } from "./metrics/metrics.js";
import { notifyWorkers, OutboxSignal } from "./webhooks/outbox.js";
import { DeliveryWorker, WORKER_POOL_OPTIONS, WORKER_POOL_SIZE } from "./webhooks/worker.js";

const EXPIRY_SWEEP_MS = 30_000; // how often open sessions past expiration_time become `expired`
const STALE_PURGE_MS = 10 * 60_000; // how often expired idempotency keys and stale counters are deleted

/**
 * How long a shutdown waits for in-flight requests to finish: at least this, and always longer
 * than a gateway call may take (SVC_GATEWAY_TIMEOUT_MS), so a refund waiting on its gateway is
 * answered, not cut (its outcome would then be unknown until a retry or the sweep).
 */
const SHUTDOWN_GRACE_MIN_MS = 5_000;
const SHUTDOWN_GRACE_OVER_GATEWAY_MS = 2_000;

export interface RunningService {
  app: FastifyInstance;
  db: Db;
  /** The webhook delivery worker, unless SVC_ROLE=api. */
  worker: DeliveryWorker | undefined;
  url: string;
  close(): Promise<void>;
}

/**
 * What the start says when saved gateway credentials cannot be opened (sealed with a key this
 * process does not hold, or no key set): their payments and operations answer 503 until it is fixed.
 */
export function credentialsUnopenedLine(pgCodes: string[], keySet: boolean): string {
  const named =
    pgCodes.slice(0, 10).join(", ") + (pgCodes.length > 10 ? `, and ${pgCodes.length - 10} more` : "");
  return keySet
    ? `The credentials of ${pgCodes.length} gateway setting(s) (${named}) were sealed with a key this process does not hold: their payments and operations answer 503 gateway_credentials_unavailable. Set SVC_SECRETS_KEY to the key that sealed them, or add it to SVC_SECRETS_PREVIOUS_KEYS.`
    : `${pgCodes.length} gateway setting(s) (${named}) have sealed credentials and SVC_SECRETS_KEY is not set: their payments and operations answer 503 gateway_credentials_unavailable. Set SVC_SECRETS_KEY to the key that sealed them.`;
}

export async function startService(
  config: ServiceConfig,
  options: {
    db?: Db;
    now?: () => Date;
    /**
     * Hears of each try at a PostgreSQL that cannot be reached yet while the start waits for it
     * (SVC_DB_START_WAIT_MS): the reason, when the next try is, when the start gives up.
     */
    onDatabaseWait?: (reason: unknown, retryInMs: number, giveUpInMs: number) => void;
  } = {},
): Promise<RunningService> {
  // PGlite keeps its data under the data dir, which need not exist yet.
  if (!options.db && !config.databaseUrl) await mkdir(config.dataDir, { recursive: true });
  const timeouts = {
    connectTimeoutMs: config.dbConnectTimeoutMs,
    statementTimeoutMs: config.dbStatementTimeoutMs,
  };
  // A database that cannot be reached yet (started beside svc, still recovering) is waited for.
  const db =
    options.db ??
    (await openWhenReachable(
      () =>
        openDb({
          databaseUrl: config.databaseUrl,
          dataDir: path.join(config.dataDir, "pgdata"),
          timeouts,
        }),
      {
        waitMs: config.databaseUrl ? config.dbStartWaitMs : 0,
        ...(options.onDatabaseWait ? { onWait: options.onDatabaseWait } : {}),
      },
    ));
  // Migrations may rightly run longer than any request's statement (an index on a big table):
  // on PostgreSQL they get a connection of their own without the statement timeout.
  // A failure closes the store's pool too: the process then exits at once, not after its idle timeout.
  try {
    if (db.kind === "postgres" && config.databaseUrl && !options.db) {
      const migrating = await openPostgres(config.databaseUrl, 1, { statementTimeoutMs: 0 });
      try {
        await migrate(migrating);
      } finally {
        await migrating.close();
      }
    } else await migrate(db);
  } catch (error) {
    if (!options.db) await db.close();
    throw error;
  }
  // On PostgreSQL (SVC_DATABASE_URL), the worker has a pool of its own whose commits do
  // not wait for their WAL flush: its claims and outcomes are at-least-once bookkeeping (a server
  // crash can only make it send a delivery again), and waiting on the disk for them put every
  // claim's flush on the path of every message, in the queue with the producers' flushes. Its
  // statements plan no whole-table reads (WORKER_POOL_OPTIONS; docs/webhooks.md).
  const workerDb =
    config.role === "api"
      ? undefined
      : db.kind === "postgres" && config.databaseUrl
        ? await openPostgres(config.databaseUrl, WORKER_POOL_SIZE, { ...WORKER_POOL_OPTIONS, ...timeouts })
        : db;
  const keyring = createKeyring(config.secretsKey || undefined, config.secretsPreviousKeys);
  const gateways = createGatewayRegistry({
    sandboxBaseUrl: config.gatewayUrl,
    timeoutMs: config.gatewayTimeoutMs,
    keyring,
    factories: GATEWAY_CONNECTORS,
  });
  const outbox = new OutboxSignal(db.kind === "postgres" ? notifyWorkers(db) : undefined);
  const metrics = createMetrics();
  const app = await buildApp(config, {
    db,
    gateways,
    outbox,
    metrics,
    keyring,
    ...(options.now ? { now: options.now } : {}),
  });
  // A start that fails from here on (a port in use, the worker's first LISTEN refused) must not
  // leave a process that listens and answers ready with no worker and no sweeps: everything it
  // opened is closed and the error thrown, so `svc serve` exits.
  const abandon = async (error: unknown): Promise<never> => {
    await app.close();
    await gateways.close();
    if (workerDb && workerDb !== db) await workerDb.close();
    if (!options.db) await db.close();
    throw error;
  };
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await abandon(error);
  }
  // SVC_ROLE: api = HTTP only; worker = delivery (HTTP serves health and metrics); all = both.
  const worker =
    workerDb &&
    new DeliveryWorker(workerDb, {
      allowPrivate: config.webhookAllowPrivate,
      fallbackPollMs: config.webhookPollMs,
      metrics,
      signal: outbox,
      onError: (err) => app.log.warn({ err }, "webhook delivery worker error"),
    });
  try {
    await worker?.start();
  } catch (error) {
    await abandon(error);
  }
  void app.services.gatewaySettings
    .refreshHints()
    .then(({ cannotOpen }) => {
      if (cannotOpen.length > 0)
        app.log.error(credentialsUnopenedLine(cannotOpen, Boolean(config.secretsKey)));
    })
    .catch((err: unknown) => app.log.warn({ err }, "gateway credential hints not refreshed"));
  const sweep = setInterval(() => {
    app.services.checkout
      .expireDueSessions()
      .catch((err: unknown) => app.log.warn({ err }, "expiry sweep failed"));
  }, EXPIRY_SWEEP_MS);
  sweep.unref();
  // Reservations and payment attempts left by a request that died during its gateway call:
  // settled at start (a restart after a crash) and then periodically, often enough that none
  // waits much longer than the reservation timeout. Queued operations whose result was never
  // notified are asked of their gateway in the same round (each at most every SVC_QUEUED_CHECK_SECONDS).
  const sweepReservations = () =>
    Promise.all([
      app.services.operations
        .sweepReservations()
        .catch((err: unknown) => app.log.warn({ err }, "reservation sweep failed")),
      app.services.operations
        .sweepQueued()
        .catch((err: unknown) => app.log.warn({ err }, "queued operation sweep failed")),
      app.services.checkout
        .sweepAttempts(config.reservationTimeoutSeconds)
        .catch((err: unknown) => app.log.warn({ err }, "payment attempt sweep failed")),
    ]);
  void sweepReservations();
  const reservationSweep = setInterval(
    sweepReservations,
    Math.min(30_000, Math.max(1_000, (config.reservationTimeoutSeconds * 1000) / 2)),
  );
  reservationSweep.unref();
  // Endpoints failing for the configured period are disabled by the processes that deliver, and
  // `svc listen` endpoints abandoned by a killed CLI deleted.
  const endpointSweep =
    worker &&
    setInterval(
      () => {
        app.services.endpoints
          .disableFailing()
          .catch((err: unknown) => app.log.warn({ err }, "endpoint disabling sweep failed"));
        app.services.endpoints
          .removeAbandonedCli()
          .catch((err: unknown) => app.log.warn({ err }, "abandoned svc listen endpoint sweep failed"));
      },
      Math.min(60_000, Math.max(1_000, (config.webhookDisableAfterSeconds * 1000) / 4)),
    );
  endpointSweep?.unref();
  // Rows that count nothing any more, deleted in the background so no table grows without bound:
  // idempotency keys past their time (the table keeps about a day), sign-in failure counters
  // idle for a day, webhooks and gateways' posts past their retention (docs/operations.md, "What
  // svc keeps, and for how long").
  const purged = (what: string, purge: () => Promise<number>) =>
    purge()
      .then((count) => {
        if (count > 0) app.log.info({ purged: count }, `${what} deleted`);
      })
      .catch((err: unknown) => app.log.warn({ err }, `${what}: purge failed`));
  const purgeStale = () =>
    Promise.all([
      purged("expired idempotency keys", () => purgeExpiredKeys(db, config.idempotencyTtlSeconds)),
      purged("stale sign-in failure counters", () =>
        purgeStaleSignInFailures(db, (options.now ?? (() => new Date()))()),
      ),
      purged("webhook messages past their retention", () =>
        purgeOldWebhooks(db, config.webhookRetentionDays),
      ),
      purged("gateway messages and notification ids past their retention", () =>
        purgeOldGatewayRecords(db, config.gatewayRetentionDays),
      ),
    ]);
  void purgeStale();
  const stalePurge = setInterval(purgeStale, STALE_PURGE_MS);
  stalePurge.unref();
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  return {
    app,
    db,
    worker,
    url: `http://${config.host}:${port}`,
    async close() {
      clearInterval(sweep);
      clearInterval(reservationSweep);
      clearInterval(stalePurge);
      if (endpointSweep) clearInterval(endpointSweep);
      // Drain in-flight requests, but never wait forever on a stuck client or peer: after the
      // grace period the remaining sockets are cut, so a shutdown always completes. The worker
      // stops meanwhile, not first: its attempts in flight (each up to its endpoint's timeout)
      // once kept the process taking new requests for up to 15 s before the drain began.
      const graceMs = Math.max(
        SHUTDOWN_GRACE_MIN_MS,
        config.gatewayTimeoutMs + SHUTDOWN_GRACE_OVER_GATEWAY_MS,
      );
      await Promise.all([
        (async () => {
          await worker?.stop();
          if (workerDb && workerDb !== db) await workerDb.close();
        })(),
        (async () => {
          await settlesWithin(app.close(), graceMs);
          app.server.closeAllConnections();
        })(),
      ]);
      if (!(await settlesWithin(gateways.close(), SHUTDOWN_GRACE_MIN_MS))) {
        app.log.warn("gateway connections did not drain in time; closing anyway");
      }
      if (!options.db) await db.close();
    },
  };
}
