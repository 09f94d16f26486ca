/** The stores a bench runs on: PGlite always, PostgreSQL when Debian's binaries are installed. */

import { type Db, openPglite, openPostgres } from "../../packages/service/src/db/client.js";
import { migrate } from "../../packages/service/src/db/migrate.js";
import { PRODUCER_POOL } from "./produce.js";
import { WORKER_POOL_OPTIONS, WORKER_POOL_SIZE } from "../../packages/service/src/webhooks/worker.js";
import { DURABILITY_SETTINGS, findPgBin, startPostgres } from "../../scripts/postgres.mjs";

export interface BenchStore {
  kind: "pglite" | "postgres";
  open(): Promise<Db>;
  /** The delivery worker's handle on the same database (on PostgreSQL its own pool, as startService opens it). */
  reopen(db: Db): Promise<Db>;
  /** The connection URL of a PostgreSQL database opened here, for another process. */
  url(db: Db): string | undefined;
  stop(): void;
}

let postgres: Promise<{ url: string; stop(): void } | undefined> | undefined;
let settings: Record<string, string> | undefined;

/** The durability settings of the PostgreSQL this process benched on (undefined if it used none). */
export const postgresSettings = () => settings;

/**
 * One throwaway cluster per bench process, stopped at exit. Durable, as production runs
 * PostgreSQL: fsync, synchronous_commit and full_page_writes on (read back and reported).
 */
function cluster() {
  postgres ??= (async () => {
    const bin = findPgBin();
    if (!bin) {
      console.error("PostgreSQL binaries not found: the PostgreSQL benches are skipped.");
      return undefined;
    }
    const pg = await startPostgres(bin, { durable: true });
    process.once("exit", () => pg.stop());
    const db = await openPostgres(pg.url, 1);
    const rows = await db.query<{ name: string; setting: string }>(
      "select name, setting from pg_settings where name = any($1) order by name",
      [DURABILITY_SETTINGS],
    );
    await db.close();
    settings = Object.fromEntries(rows.map((r) => [r.name, r.setting]));
    return pg;
  })();
  return postgres;
}

let dbCounter = 0;

/** `SVC_BENCH_STORES=postgres` (or `pglite`) runs one store only, e.g. while profiling. */
const only = process.env.SVC_BENCH_STORES?.split(",");

export async function benchStores(): Promise<BenchStore[]> {
  return (await allStores()).filter((s) => !only || only.includes(s.kind));
}

async function allStores(): Promise<BenchStore[]> {
  const stores: BenchStore[] = [
    {
      kind: "pglite",
      open: async () => {
        const db = await openPglite();
        await migrate(db);
        return db;
      },
      reopen: async (db) => db,
      url: () => undefined,
      stop: () => {},
    },
  ];
  const urls = new WeakMap<Db, string>();
  const pg = only && !only.includes("postgres") ? undefined : await cluster();
  if (pg)
    stores.push({
      kind: "postgres",
      open: async () => {
        const name = `svc_bench_${process.pid}_${dbCounter++}`;
        const admin = await openPostgres(pg.url, 1);
        await admin.query(`create database ${name}`);
        await admin.close();
        const url = new URL(pg.url);
        url.pathname = `/${name}`;
        // Its pool is the producer's when the delivery bench produces in this process.
        const db = await openPostgres(url.toString(), PRODUCER_POOL);
        await migrate(db);
        urls.set(db, url.toString());
        return db;
      },
      // As startService opens the worker's: a pool of its own, commits not waiting for the flush,
      // no whole-table reads (WORKER_POOL_OPTIONS).
      reopen: async (db) => openPostgres(urls.get(db)!, WORKER_POOL_SIZE, WORKER_POOL_OPTIONS),
      url: (db) => urls.get(db),
      stop: () => {},
    });
  return stores;
}
