/**
 * One database interface over two stores: embedded PGlite (the default, data under the data
 * dir) and PostgreSQL (`SVC_DATABASE_URL`, production). Both run the same SQL. Types are pinned
 * so both return the same JS values: int8 → number (amounts are kept below 2^53 by
 * @svc/protocol), numeric → string, timestamptz → Date.
 */
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";

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
  /** Subscribes to NOTIFY on `channel`; returns the unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
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

/**
 * Statements with parameters run as named prepared statements: PostgreSQL parses and plans each
 * once per connection instead of on every call (planning the operations path's joins cost more
 * than running them). One name per distinct SQL text, for the life of the process.
 */
class PreparedNames {
  private readonly names = new Map<string, string>();
  private counter = 0;
  constructor(private readonly max = 2_000) {}

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

  /** A fresh name for `sql`: connections prepare it again (after a schema change). */
  rename(sql: string): string {
    const name = `svc_${++this.counter}`;
    this.names.set(sql, name);
    return name;
  }
}

/**
 * PostgreSQL refuses a prepared statement whose result columns changed since it was prepared
 * (a migration added a column to a `select *` table while this process ran).
 */
function isStalePlan(error: unknown): boolean {
  return (error as { code?: string }).code === "0A000" && String(error).includes("cached plan");
}

export interface PostgresOptions {
  /**
   * `false`: this pool's commits do not wait for their WAL flush (`synchronous_commit = off`).
   * For the delivery worker's pool only: a crash of the database server can lose its last
   * fraction of a second of claims and outcomes — deliveries sent again, never a message lost —
   * and never anything another pool committed (see docs/webhooks.md, Delivery).
   */
  synchronousCommit?: boolean;
}

export async function openPostgres(
  connectionString: string,
  poolSize = 10,
  { synchronousCommit = true }: PostgresOptions = {},
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
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    types,
    options: `-c plan_cache_mode=force_generic_plan${synchronousCommit ? "" : " -c synchronous_commit=off"}`,
  });
  const prepared = new PreparedNames();
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on("error", () => {});
  await pool.query("select 1");
  const listeners: pg.PoolClient[] = [];
  let notifier: Promise<pg.Client> | undefined;
  return {
    kind: "postgres",
    query: async (sql, params) => {
      try {
        return (await pool.query(prepared.config(sql, params))).rows;
      } catch (error) {
        if (!isStalePlan(error)) throw error;
        // Outside a transaction the statement can simply run again, prepared under a new name.
        prepared.rename(sql);
        return (await pool.query(prepared.config(sql, params))).rows;
      }
    },
    tx: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query("begin");
        const result = await fn({
          query: async (sql, params) => {
            try {
              return (await client.query(prepared.config(sql, params))).rows;
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
        await client.query("rollback").catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    exec: async (sql) => {
      await pool.query(sql);
    },
    listen: async (channel, onPayload) => {
      const client = await pool.connect();
      listeners.push(client);
      client.on("notification", (msg) => {
        if (msg.channel === channel) onPayload(msg.payload ?? "");
      });
      await client.query(`listen ${pg.escapeIdentifier(channel)}`);
      return async () => {
        await client.query(`unlisten ${pg.escapeIdentifier(channel)}`).catch(() => {});
        listeners.splice(listeners.indexOf(client), 1);
        client.release();
      };
    },
    notify: async (channel) => {
      notifier ??= (async () => {
        const client = new pg.Client({ connectionString });
        // A dropped connection is replaced on the next notify.
        client.on("error", () => (notifier = undefined));
        await client.connect();
        return client;
      })();
      try {
        await (await notifier).query("select pg_notify($1, '')", [channel]);
      } catch (error) {
        const failed = notifier;
        notifier = undefined;
        void failed?.then((c) => c.end()).catch(() => {});
        throw error;
      }
    },
    close: async () => {
      for (const client of listeners.splice(0)) client.release();
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
}): Promise<Db> {
  return options.databaseUrl ? openPostgres(options.databaseUrl) : openPglite(options.dataDir);
}
