/** pg_stat_statements for the diagnostics (bench/split-busy.ts, bench/drain.ts), when the cluster preloads it. */
import type { Db } from "../../packages/service/src/db/client.js";

/**
 * Creates the extension and resets it; false when the library is not preloaded
 * (`SVC_PG_OPTIONS="-c shared_preload_libraries=pg_stat_statements"`): the extension can be
 * created then, but its reset fails.
 */
export async function statementStats(db: Db): Promise<boolean> {
  return db
    .query("create extension if not exists pg_stat_statements")
    .then(() => db.query("select pg_stat_statements_reset()"))
    .then(
      () => true,
      () => false,
    );
}

/** The statements PostgreSQL spent most time in since the last call (each line indented), then a reset. */
export async function statements(db: Db, enabled: boolean, { top = 5, width = 48 } = {}): Promise<string> {
  if (!enabled) return "";
  const rows = await db.query<{ statement: string; calls: string; mean_us: string; total_ms: string }>(
    `select left(regexp_replace(query, '\\s+', ' ', 'g'), $1) as statement, calls::text,
            round(mean_exec_time::numeric * 1000)::text as mean_us, round(total_exec_time::numeric)::text as total_ms
       from pg_stat_statements where query not like '%pg_stat%' order by total_exec_time desc limit $2`,
    [width, top],
  );
  await db.query("select pg_stat_statements_reset()");
  return rows.map((r) => `\n      ${r.statement}: ${r.calls} × ${r.mean_us} µs = ${r.total_ms} ms`).join("");
}
