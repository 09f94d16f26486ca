/**
 * One database interface over two stores: embedded PGlite (the default, data under the data
 * dir) and PostgreSQL (`SVC_DATABASE_URL`, production). Both run the same SQL. Types are pinned
 * so both return the same JS values: int8 → number (amounts are kept below 2^53 by
 * @svc/protocol), numeric → string, timestamptz → Date.
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { CONFIG_DEFAULTS } from "../config.js";

export type Row = Record<string, unknown>;

export interface Queryable {
  query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface Db extends Queryable {
  readonly kind: "pglite" | "postgres";
  /** Runs `fn` in one transaction: everything it wrote commits together or not at all. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Runs a script of several statements (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * Subscribes to NOTIFY on `channel`; returns the unsubscribe function. `onLost` is called when
   * notifications may have been missed (the connection was lost, and again once it is back): a
   * subscriber that caches what notifications invalidate drops its cache then.
   */
  listen(
    channel: string,
    onPayload: (payload: string) => void,
    onLost?: () => void,
  ): Promise<() => Promise<void>>;
  /**
   * NOTIFY `channel` (empty payload) in a statement of its own. On PostgreSQL it uses a
   * connection of its own, so it never waits in the pool's queue behind the requests' queries.
   */
  notify(channel: string): Promise<void>;
  close(): Promise<void>;
}

const INT8_OID = 20;

function parseInt8(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${value} is outside the safe integer range`);
  return n;
}

export async function openPglite(dataDir?: string): Promise<Db> {
  const lite = await PGlite.create(dataDir ? { dataDir } : {});
  // PGlite parses int8 itself; pin it through the same function as pg so both agree.
  const parsers = { [INT8_OID]: parseInt8 };
  const run = async <T>(q: Pick<PGlite, "query">, sql: string, params?: readonly unknown[]) =>
    (await q.query<T>(sql, params as unknown[] | undefined, { parsers })).rows;
  return {
    kind: "pglite",
    query: (sql, params) => run(lite, sql, params),
    tx: (fn) => lite.transaction((t) => fn({ query: (sql, params) => run(t, sql, params) })),
    exec: async (sql) => {
      await lite.exec(sql);
    },
    listen: async (channel, onPayload) => {
      const unlisten = await lite.listen(channel, onPayload);
      return async () => unlisten();
    },
    notify: async (channel) => {
      await lite.query("select pg_notify($1, '')", [channel]);
    },
    close: () => lite.close(),
  };
}

/** A result's columns as node-postgres keeps them to build its rows (pg's Result, read once per statement). */
interface ResultShape {
  fields: pg.FieldDef[];
  parsers: unknown;
  prebuilt: unknown;
}

/** What a pg Query is made of beyond its typings (pg/lib/query.js and result.js, node-postgres 8). */
interface QueryInternals {
  _result: { fields: unknown; _parsers: unknown; _prebuiltEmptyResultObject: unknown };
  _accumulateRows: unknown;
  prepare(connection: { describe: (...args: unknown[]) => void }): void;
}
const PgQuery = pg.Query as unknown as new (config: pg.QueryConfig) => QueryInternals;
const noDescribe = () => {};

/**
 * A named statement run without asking PostgreSQL to describe its result again. node-postgres
 * sends a Describe with every execution of a prepared statement and builds the result's column
 * list (a Field object a column, a parser list, an empty row to copy) from the answer each time:
 * for the delivery worker's claim, about 5 KB allocated a message at 1,000 messages/s (the row
 * descriptions were the whole difference between its allocation and the baseline outbox's,
 * docs/benchmarks.md, 2026-11-29). A prepared statement's result columns cannot change (PostgreSQL
 * refuses to run one whose would: isStalePlan), so the shape read from its first execution
 * (`ResultShape`) serves every later one, on any connection of the pool: rows are built exactly
 * as node-postgres builds them, from the same parsers.
 *
 * The Describe is left out by calling node-postgres's own `prepare` with the connection's
 * `describe` silenced for that call; should a later node-postgres stop calling it there, the
 * description arrives and is used as before (`handleRowDescription` sets the columns anew).
 */
class DescribedQuery extends PgQuery {
  constructor(config: pg.QueryConfig, shape: ResultShape) {
    super(config);
    this._result.fields = shape.fields;
    this._result._parsers = shape.parsers;
    this._result._prebuiltEmptyResultObject = shape.prebuilt;
    // Set by handleRowDescription when a description arrives: keep the rows.
    this._accumulateRows = true;
  }

  override prepare(connection: { describe: (...args: unknown[]) => void }): void {
    const describe = connection.describe;
    connection.describe = noDescribe;
    try {
      super.prepare(connection);
    } finally {
      connection.describe = describe;
    }
  }
}

/**
 * Statements with parameters run as named prepared statements: PostgreSQL parses and plans each
 * once per connection instead of on every call (planning the operations path's joins cost more
 * than running them). One name per distinct SQL text, for the life of the process. After its
 * first execution a statement runs without its result being described again (DescribedQuery).
 */
class PreparedNames {
  private readonly names = new Map<string, string>();
  private readonly shapes = new Map<string, ResultShape>();
  private counter = 0;
  constructor(private readonly max = 2_000) {}

  /** Runs `sql` on the pool or a client: described from its first execution's columns once it has one. */
  async run<T>(
    on: pg.Pool | pg.PoolClient,
    sql: string,
    params: readonly unknown[] | undefined,
  ): Promise<T[]> {
    const config = this.config(sql, params);
    const name = config.name;
    const shape = name === undefined ? undefined : this.shapes.get(name);
    if (shape) {
      const query = new DescribedQuery(config, shape);
      // A submittable: pool.query and client.query answer through the callback.
      const result = await new Promise<pg.QueryResult>((resolve, reject) =>
        (
          on.query as (
            q: unknown,
            values: undefined,
            cb: (e: Error | undefined, r: pg.QueryResult) => void,
          ) => void
        ).call(on, query, undefined, (error, r) => (error ? reject(error) : resolve(r))),
      );
      return result.rows as T[];
    }
    const result = await on.query(config);
    if (name !== undefined && this.names.get(sql) === name) {
      const r = result as unknown as { _parsers: unknown; _prebuiltEmptyResultObject: unknown };
      this.shapes.set(name, {
        fields: result.fields,
        parsers: r._parsers,
        prebuilt: r._prebuiltEmptyResultObject,
      });
    }
    return result.rows as T[];
  }

  /** The query config for `sql`; unnamed (parsed each time) without parameters or past `max` texts. */
  config(sql: string, params: readonly unknown[] | undefined): pg.QueryConfig {
    const values = params as unknown[] | undefined;
    if (!values?.length) return { text: sql, values };
    let name = this.names.get(sql);
    if (!name) {
      if (this.names.size >= this.max) return { text: sql, values };
      name = this.rename(sql);
    }
    return { name, text: sql, values };
  }

  /** A fresh name for `sql`: connections prepare it again (after a schema change), described anew. */
  rename(sql: string): string {
    const old = this.names.get(sql);
    if (old !== undefined) this.shapes.delete(old);
    const name = `svc_${++this.counter}`;
    this.names.set(sql, name);
    return name;
  }
}

/**
 * A statement text built from parts (variants of one statement), built once per `key` and then
 * handed out as the same string. A text built on every call is a new string each time, which
 * PreparedNames' lookup (a Map keyed by the text) flattens into a copy and hashes again: for the
 * delivery worker's claim, built per call, that was about 4 KB allocated a message at 1,000
 * messages/s (docs/benchmarks.md, 2026-11-29). `key` names the statement and its variant.
 */
export function statementText(key: string, build: () => string): string {
  let text = statementTexts.get(key);
  if (text === undefined) statementTexts.set(key, (text = build()));
  return text;
}
const statementTexts = new Map<string, string>();

/**
 * PostgreSQL refuses a prepared statement whose result columns changed since it was prepared
 * (a migration added a column to a `select *` table while this process ran).
 */
function isStalePlan(error: unknown): boolean {
  return (error as { code?: string }).code === "0A000" && String(error).includes("cached plan");
}

/**
 * Bounds on waiting for PostgreSQL (docs/operations.md, "When the database fails"): a connection
 * must be had from the pool within `connectTimeoutMs` (a server that is down or refuses
 * connections), and a statement must answer within `statementTimeoutMs` — enforced by the server
 * (`statement_timeout`) and, a second later, by the client (a server that stopped answering
 * without closing its sockets, a network partition). 0 turns one off (migrations).
 */
export const DB_TIMEOUT_DEFAULTS = {
  connectTimeoutMs: CONFIG_DEFAULTS.dbConnectTimeoutMs,
  statementTimeoutMs: CONFIG_DEFAULTS.dbStatementTimeoutMs,
} as const;
/** How much later the client gives up on a statement than the server's own timeout. */
const CLIENT_GRACE_MS = 1_000;
/** How long a NOTIFY may take before its connection is given up (and made again on the next). */
const NOTIFY_TIMEOUT_MS = 2_000;
/**
 * How long a connection may be idle before TCP keepalive probes its peer. Node then sends ten
 * probes a second apart (TCP_KEEPCNT, TCP_KEEPINTVL), so a connection whose peer vanished without
 * closing it (a partition, a database host gone in a failover) fails within ~20 s, instead of the
 * kernel's default two hours and more: the LISTEN connections are made again then.
 */
export const KEEPALIVE_IDLE_MS = 10_000;
/** How soon a lost LISTEN connection is tried again, and how far that backs off. */
const RELISTEN_MIN_MS = 100;
const RELISTEN_MAX_MS = 5_000;

/**
 * True for an error that says the database cannot be reached or did not answer in time (the
 * request may be tried again later), as opposed to an error in the statement itself.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      // Connection exceptions (08…), shutdown / crash / starting up (57P01–57P03), too many
      // connections (53300), a statement canceled by statement_timeout (57014), a server that
      // only reads (25006: a replica not yet promoted, during a failover at the same address).
      if (/^08/.test(code) || ["57P01", "57P02", "57P03", "53300", "57014", "25006"].includes(code))
        return true;
      if (
        [
          "ECONNREFUSED",
          "ECONNRESET",
          "ETIMEDOUT",
          "EPIPE",
          "ENOTFOUND",
          "EAI_AGAIN",
          "EHOSTUNREACH",
        ].includes(code)
      )
        return true;
    }
    if (
      /Connection terminated|timeout exceeded when trying to connect|Query read timeout|not queryable|Connection ended unexpectedly|the database system is (starting up|shutting down|in recovery)/i.test(
        e.message,
      )
    )
      return true;
  }
  return false;
}

/** How soon a start tries the database again, and how far that backs off. */
const START_RETRY_MIN_MS = 250;
const START_RETRY_MAX_MS = 5_000;

/**
 * Runs `open` (opening the store at a process's start) until it succeeds, trying again while
 * the database cannot be reached ({@link isDatabaseUnavailable}: refused, not found, starting up,
 * timed out) for up to `waitMs`, backing off from 250 ms to 5 s. Any other error (a wrong
 * password, a database that does not exist) is thrown at once, as is the last one once the
 * time is up. `onWait` hears of each failed try and the wait before the next.
 */
export async function openWhenReachable<T>(
  open: () => Promise<T>,
  {
    waitMs,
    onWait,
  }: { waitMs: number; onWait?: (error: unknown, retryInMs: number, giveUpInMs: number) => void },
): Promise<T> {
  const giveUpAt = Date.now() + waitMs;
  for (let delay = START_RETRY_MIN_MS; ; delay = Math.min(delay * 2, START_RETRY_MAX_MS)) {
    try {
      return await open();
    } catch (error) {
      const left = giveUpAt - Date.now();
      if (!isDatabaseUnavailable(error) || left <= 0) throw error;
      const retryIn = Math.min(delay, left);
      onWait?.(error, retryIn, left);
      await new Promise((resolve) => setTimeout(resolve, retryIn));
    }
  }
}

/** True for an error PostgreSQL (or PGlite) answered a statement with: it has a SQLSTATE and a severity. */
export function isDatabaseError(error: unknown): boolean {
  const e = error as { code?: unknown; severity?: unknown } | null;
  return (
    typeof e === "object" &&
    e !== null &&
    typeof e.code === "string" &&
    /^[0-9A-Z]{5}$/.test(e.code) &&
    typeof e.severity === "string"
  );
}

export interface PostgresOptions {
  /** See {@link DB_TIMEOUT_DEFAULTS}. */
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
  /**
   * `false`: this pool's commits do not wait for their WAL flush (`synchronous_commit = off`).
   * For the delivery worker's pool only: a crash of the database server can lose its last
   * fraction of a second of claims and outcomes — deliveries sent again, never a message lost —
   * and never anything another pool committed (see docs/webhooks.md, Delivery).
   */
  synchronousCommit?: boolean;
  /**
   * `false`: this pool's statements do not read a table whole where an index can serve them
   * (`enable_seqscan = off`). For the delivery worker's pool: each of its statements is built to
   * go through an index, and a prepared statement keeps the generic plan it got first. Planned
   * while `webhook_deliveries` was recorded as empty (a vacuum of the empty table: a fresh
   * database, or the retention purge having deleted every delivery), the claim scanned the whole
   * table for every candidate row, 2 ms a claim at 5,000 rows and growing, until autovacuum next
   * analysed the table (docs/webhooks.md).
   */
  seqScans?: boolean;
}

export async function openPostgres(
  connectionString: string,
  poolSize = 10,
  {
    synchronousCommit = true,
    seqScans = true,
    connectTimeoutMs = DB_TIMEOUT_DEFAULTS.connectTimeoutMs,
    statementTimeoutMs = DB_TIMEOUT_DEFAULTS.statementTimeoutMs,
  }: PostgresOptions = {},
): Promise<Db> {
  const types = {
    getTypeParser: ((oid: number, format?: string) =>
      oid === INT8_OID
        ? parseInt8
        : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
  };
  // Generic plans: every statement here is a point lookup or a small indexed range, whose generic
  // plan is as good as a custom one, and PostgreSQL otherwise re-plans statements whose generic
  // plan it estimates dearer (the operations path's parent lookup) on every call.
  // No JIT: PostgreSQL compiles a plan whose estimated cost passes jit_above_cost on every
  // execution, and estimates made before a table's first ANALYZE can be huge. The delivery claim
  // after a 30,000-message drain (no autovacuum yet) was estimated at 1.5 M, so each claim took
  // 75–95 ms (750–890 ms of JIT under EXPLAIN ANALYZE) for about 1 ms of work and webhooks
  // arrived 137–261 ms late (median) at 1,000/s (2026-11-27). Nothing svc runs is the long analytical query JIT pays for.
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    types,
    options: `-c plan_cache_mode=force_generic_plan -c jit=off${synchronousCommit ? "" : " -c synchronous_commit=off"}${seqScans ? "" : " -c enable_seqscan=off"}`,
    connectionTimeoutMillis: connectTimeoutMs,
    ...(statementTimeoutMs > 0
      ? { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + CLIENT_GRACE_MS }
      : {}),
    // Notices a peer that vanished (a failover, a partition) on idle sockets too.
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
  });
  const prepared = new PreparedNames();
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on("error", () => {});
  // Nor one that breaks while it is checked out (a transaction, a statement in flight): node-postgres
  // emits `error` on the client then, and without a listener that ends the process. The statement
  // itself fails with the error, which is what the request sees.
  pool.on("connect", (client) => client.on("error", () => {}));
  try {
    await pool.query("select 1");
  } catch (error) {
    // Nothing may stay open behind a failed start (a start that waits for the database opens
    // one pool per try).
    await pool.end().catch(() => {});
    throw error;
  }
  const listeners = new Set<{ stop(): Promise<void> }>();
  let notifier: Promise<pg.Client> | undefined;
  return {
    kind: "postgres",
    query: async (sql, params) => {
      try {
        return await prepared.run(pool, sql, params);
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        // Outside a transaction the statement can simply run again, prepared under a new name.
        prepared.rename(sql);
        return await prepared.run(pool, sql, params);
      }
    },
    tx: async (fn) => {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query("begin");
        const result = await fn({
          query: async (sql, params) => {
            try {
              return await prepared.run(client, sql, params);
            } catch (error) {
              // The transaction is lost, but the next one prepares the statement afresh.
              if (isStalePlan(error)) prepared.rename(sql);
              throw error;
            }
          },
        });
        await client.query("commit");
        return result;
      } catch (error) {
        // A connection that failed for the database's sake, or cannot even roll back, is broken:
        // it is destroyed, not reused (the server rolls back what it held). No rollback is sent
        // on it: on a server that stopped answering, that would wait out the timeout again.
        broken =
          isDatabaseUnavailable(error) ||
          (await client.query("rollback").then(
            () => false,
            () => true,
          ));
        throw error;
      } finally {
        client.release(broken);
      }
    },
    exec: async (sql) => {
      await pool.query(sql);
    },
    listen: async (channel, onPayload, onLost) => {
      // A connection of its own, outside the pool, for as long as the subscription lasts. When it
      // is lost (the server restarted, a failover, a partition) it is made again with backoff, and
      // `onLost` tells the subscriber that notifications may have been missed meanwhile.
      let client: pg.Client | undefined;
      let stopped = false;
      let delayMs = RELISTEN_MIN_MS;
      const subscribe = async (): Promise<pg.Client> => {
        const c = new pg.Client({
          connectionString,
          connectionTimeoutMillis: connectTimeoutMs,
          keepAlive: true,
          keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
        });
        c.on("error", () => {});
        c.on("notification", (msg) => {
          if (msg.channel === channel) onPayload(msg.payload ?? "");
        });
        try {
          await c.connect();
          await c.query(`listen ${pg.escapeIdentifier(channel)}`);
        } catch (error) {
          await c.end().catch(() => {});
          throw error;
        }
        c.once("end", () => {
          if (stopped) return;
          client = undefined;
          onLost?.();
          void resubscribe();
        });
        return c;
      };
      const resubscribe = async (): Promise<void> => {
        while (!stopped && !client) {
          await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
          if (stopped) return;
          try {
            client = await subscribe();
            delayMs = RELISTEN_MIN_MS;
            onLost?.(); // anything sent while it was away: the subscriber catches up now
          } catch {
            delayMs = Math.min(RELISTEN_MAX_MS, delayMs * 2);
          }
        }
      };
      client = await subscribe();
      const handle = { stop: async () => {} };
      handle.stop = async () => {
        stopped = true;
        listeners.delete(handle);
        const c = client;
        client = undefined;
        await c?.end().catch(() => {});
      };
      listeners.add(handle);
      return handle.stop;
    },
    notify: async (channel) => {
      notifier ??= (async () => {
        // Bounded like every statement: a NOTIFY that hung on a silent connection (a partition,
        // a host gone) once held the outbox's signal busy for good, and no wake was sent again.
        const client = new pg.Client({
          connectionString,
          connectionTimeoutMillis: connectTimeoutMs,
          query_timeout: NOTIFY_TIMEOUT_MS,
          keepAlive: true,
          keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
        });
        // A dropped connection is replaced on the next notify.
        client.on("error", () => (notifier = undefined));
        await client.connect();
        return client;
      })();
      try {
        // One simple-protocol message (the channel is an identifier, not a parameter): a wake is
        // sent after nearly every commit, and a parameterised statement cost five.
        await (await notifier).query(`notify ${pg.escapeIdentifier(channel)}`);
      } catch (error) {
        const failed = notifier;
        notifier = undefined;
        void failed?.then((c) => c.end()).catch(() => {});
        throw error;
      }
    },
    close: async () => {
      await Promise.all([...listeners].map((l) => l.stop()));
      const current = notifier;
      notifier = undefined;
      await current?.then((c) => c.end()).catch(() => {});
      await pool.end();
    },
  };
}

/** Opens PostgreSQL when a URL is given, else PGlite under `dataDir` (in memory when undefined). */
export function openDb(options: {
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  timeouts?: Pick<PostgresOptions, "connectTimeoutMs" | "statementTimeoutMs">;
}): Promise<Db> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl, 10, options.timeouts)
    : openPglite(options.dataDir);
}
