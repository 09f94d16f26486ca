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
  /**
   * Runs one statement. `name` makes it a prepared statement on PostgreSQL (parsed and planned
   * once per connection, then only bound and executed): for statements run many times a second
   * with the same text. PGlite ignores it.
   */
  query<T = Row>(sql: string, params?: readonly unknown[], name?: string): Promise<T[]>;
}

export interface Db extends Queryable {
  readonly kind: "pglite" | "postgres";
  /** Runs `fn` in one transaction: everything it wrote commits together or not at all. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Runs a script of several statements (migrations). */
  exec(sql: string): Promise<void>;
  /** Subscribes to NOTIFY on `channel`; returns the unsubscribe function. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
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
    close: () => lite.close(),
  };
}

export async function openPostgres(connectionString: string, poolSize = 10): Promise<Db> {
  const types = {
    getTypeParser: ((oid: number, format?: string) =>
      oid === INT8_OID
        ? parseInt8
        : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
  };
  const pool = new pg.Pool({ connectionString, max: poolSize, types });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on("error", () => {});
  await pool.query("select 1");
  const listeners: pg.PoolClient[] = [];
  return {
    kind: "postgres",
    query: async (sql, params, name) =>
      (await pool.query({ name, text: sql, values: params as unknown[] | undefined })).rows,
    tx: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query("begin");
        const result = await fn({
          query: async (sql, params, name) =>
            (await client.query({ name, text: sql, values: params as unknown[] | undefined })).rows,
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
    close: async () => {
      for (const client of listeners.splice(0)) client.release();
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
