/**
 * The stores every store/HTTP test runs against: PGlite always, PostgreSQL when `npm test`
 * started one (SVC_TEST_DATABASE_URL). Each test process shares one PGlite (it costs ~3.5 s and
 * ~800 MB to start) and gets its own PostgreSQL database. Tests isolate by creating their own
 * merchant, which tenancy already keeps apart.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { type Db, openPglite, openPostgres } from "../../packages/service/src/db/client.js";
import { migrate } from "../../packages/service/src/db/migrate.js";

export type StoreKind = "pglite" | "postgres";

export const STORES: StoreKind[] = process.env.SVC_TEST_DATABASE_URL ? ["pglite", "postgres"] : ["pglite"];

const opened = new Map<StoreKind, Promise<Db>>();

async function createPostgresDatabase(): Promise<string> {
  const adminUrl = process.env.SVC_TEST_DATABASE_URL!;
  const name = `svc_test_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The migrated database of `kind` for this test process. */
export function testDb(kind: StoreKind): Promise<Db> {
  let db = opened.get(kind);
  if (!db) {
    db = (async () => {
      const handle =
        kind === "pglite" ? await openPglite() : await openPostgres(await createPostgresDatabase(), 20);
      await migrate(handle);
      return handle;
    })();
    opened.set(kind, db);
  }
  return db;
}

/** A fresh PostgreSQL database URL (for tests that start the service as a separate process). */
export function freshPostgresUrl(): Promise<string> {
  return createPostgresDatabase();
}
