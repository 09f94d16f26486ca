/**
 * A PostgreSQL crash that does not pause the test: SIGQUIT to the postmaster, which is what
 * `pg_ctl stop -m immediate` sends (PostgreSQL's "immediate shutdown": every server process exits
 * at once, clients' connections are cut, the next start recovers from the WAL).
 *
 * scripts/postgres.mjs `crash()` runs pg_ctl synchronously and so blocks the test's event loop for
 * 100 ms or more (runuser, pg_ctl's start, its wait for the shutdown): a load the test generates
 * stops meanwhile, the services finish what they had, and the crash lands on idle connections.
 * Signalled from here, it lands on statements and transactions in flight, as under real load.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Queryable } from "../../packages/service/src/db/client.js";

/** The postmaster of the cluster `db` is connected to (the test must be its owner or root). */
export async function postmasterPid(db: Queryable): Promise<number> {
  const [row] = await db.query<{ dir: string }>("select current_setting('data_directory') as dir");
  return Number(readFileSync(path.join(row!.dir, "postmaster.pid"), "utf8").split("\n")[0]);
}

/** Crashes the cluster whose postmaster is `pid` now; resolves when it is gone. */
export async function crashPostmaster(pid: number, timeoutMs = 10_000): Promise<void> {
  process.kill(pid, "SIGQUIT");
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ESRCH") return;
      throw error;
    }
    if (Date.now() > deadline)
      throw new Error(`the postmaster ${pid} still runs ${timeoutMs} ms after SIGQUIT`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
