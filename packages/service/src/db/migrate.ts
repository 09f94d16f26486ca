/**
 * Applies `migrations/NNNN_name.sql` in order, each once, all pending ones in one transaction,
 * recorded in `schema_migrations`. An advisory lock makes concurrent starts (several workers on one
 * PostgreSQL) apply each migration exactly once.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Db } from "./client.js";

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");
const MIGRATION_LOCK_KEY = 7_211_965; // arbitrary, constant: the advisory lock id of migrations

export async function listMigrations(): Promise<string[]> {
  return (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
}

export async function migrate(db: Db): Promise<string[]> {
  const applied: string[] = [];
  await db.tx(async (q) => {
    await q.query(`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    await q.query(
      "create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())",
    );
    const done = new Set(
      (await q.query<{ name: string }>("select name from schema_migrations")).map((r) => r.name),
    );
    for (const name of await listMigrations()) {
      if (done.has(name)) continue;
      const sql = await readFile(path.join(MIGRATIONS_DIR, name), "utf8");
      for (const statement of splitStatements(sql)) await q.query(statement);
      await q.query("insert into schema_migrations (name) values ($1)", [name]);
      applied.push(name);
    }
  });
  return applied;
}

/** True when every migration file has been applied (the readiness check). */
export async function migrationsApplied(db: Db): Promise<boolean> {
  const rows = await db.query<{ name: string }>("select name from schema_migrations");
  const done = new Set(rows.map((r) => r.name));
  return (await listMigrations()).every((m) => done.has(m));
}

/** Splits a migration on `;` at line ends; migrations keep one statement per `;`-terminated block. */
function splitStatements(sql: string): string[] {
  return sql
    .replace(/^\s*--.*$/gm, "")
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
