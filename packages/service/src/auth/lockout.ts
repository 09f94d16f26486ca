/**
 * One lockout for every way a password is tried — the dashboard's sign-in form and Basic
 * credentials on the API — per username and per client address, stored in the database so it
 * holds across restarts and across several service processes.
 *
 * An attempt is **claimed before the password is checked**, atomically: the claim locks the
 * counter's row, refuses while a lock runs, and otherwise counts the attempt; the claim that
 * reaches the threshold sets the lock in the same transaction. So however many guesses arrive at
 * once, at most the threshold's worth of passwords are checked before the lock (no
 * check-then-record race). Past the threshold each further failure doubles the lock (30 s,
 * 1 min, 2 min … up to 15 min). A success clears the username's counter and takes its attempt
 * back from the address's; counters forget failures older than a day, and such a counter is
 * deleted in the background (purgeStaleSignInFailures).
 */
import type { Db, Queryable } from "../db/client.js";

export const USER_FAILURES_BEFORE_LOCK = 5;
/** Higher: one office behind one address must not lock itself out through one person's typos. */
export const IP_FAILURES_BEFORE_LOCK = 20;
export const BASE_LOCK_MS = 30_000;
export const MAX_LOCK_MS = 15 * 60_000;
const FORGET_AFTER_MS = 24 * 3600_000;

function lockMs(failures: number, threshold: number): number {
  if (failures < threshold) return 0;
  return Math.min(MAX_LOCK_MS, BASE_LOCK_MS * 2 ** Math.min(failures - threshold, 20));
}

/** What a claim decided: go ahead and check the password, or wait this many seconds. */
export type Claim = { ok: true } | { ok: false; retryAfterSeconds: number };

export function createLockout(db: Db, now: () => Date) {
  const keys = (username: string, ip: string) => [
    { key: `user:${username}`, threshold: USER_FAILURES_BEFORE_LOCK },
    { key: `ip:${ip}`, threshold: IP_FAILURES_BEFORE_LOCK },
  ];

  return {
    /** Seconds until a password may be tried again for this username or address; 0 when free. */
    async retryAfterSeconds(username: string, ip: string): Promise<number> {
      const rows = await db.query<{ locked_until: Date | null }>(
        "select locked_until from dashboard_sign_in_failures where key = any($1)",
        [keys(username, ip).map((k) => k.key)],
      );
      const at = now().getTime();
      const until = Math.max(
        0,
        ...rows.map((r) => (r.locked_until ? new Date(r.locked_until).getTime() : 0)),
      );
      return until > at ? Math.ceil((until - at) / 1000) : 0;
    },

    /**
     * Claims one password check for `username` from `ip`: refused while either is locked;
     * otherwise the attempt is counted (as a failure until {@link recordSuccess} says otherwise),
     * and the one that reaches a threshold sets the lock. One transaction, rows locked.
     */
    async claim(username: string, ip: string): Promise<Claim> {
      const at = now();
      return db.tx(async (q) => {
        const counters = keys(username, ip);
        // An existing counter is locked here, not only by the select below: the purge
        // (purgeStaleSignInFailures) passes a locked counter by, so it cannot delete one between
        // this statement and the select.
        for (const { key } of counters)
          await q.query(
            `insert into dashboard_sign_in_failures (key, failures, last_failure_at) values ($1, 0, $2)
             on conflict (key) do update set key = excluded.key`,
            [key, at],
          );
        // Rows locked in a fixed order (user, then ip), so two claims never deadlock.
        const rows = await q.query<{
          key: string;
          failures: number;
          last_failure_at: Date;
          locked_until: Date | null;
        }>(
          "select key, failures, last_failure_at, locked_until from dashboard_sign_in_failures where key = any($1) order by key desc for update",
          [counters.map((c) => c.key)],
        );
        const lockedUntil = Math.max(
          0,
          ...rows.map((r) => (r.locked_until ? new Date(r.locked_until).getTime() : 0)),
        );
        if (lockedUntil > at.getTime())
          return { ok: false, retryAfterSeconds: Math.ceil((lockedUntil - at.getTime()) / 1000) };
        for (const { key, threshold } of counters) {
          const row = rows.find((r) => r.key === key)!;
          const stale = new Date(row.last_failure_at).getTime() < at.getTime() - FORGET_AFTER_MS;
          const failures = (stale ? 0 : Number(row.failures)) + 1;
          const ms = lockMs(failures, threshold);
          await q.query(
            "update dashboard_sign_in_failures set failures = $2, last_failure_at = $3, locked_until = $4 where key = $1",
            [key, failures, at, ms > 0 ? new Date(at.getTime() + ms) : null],
          );
        }
        return { ok: true };
      });
    },

    /** The claimed attempt was the right password: the username starts afresh; the address gets its attempt back. */
    async recordSuccess(username: string, ip: string): Promise<void> {
      await db.tx(async (q) => {
        await q.query("delete from dashboard_sign_in_failures where key = $1", [`user:${username}`]);
        await q.query(
          `update dashboard_sign_in_failures set failures = greatest(failures - 1, 0),
                  locked_until = case when failures - 1 < $2 then null else locked_until end
            where key = $1`,
          [`ip:${ip}`, IP_FAILURES_BEFORE_LOCK],
        );
      });
    },
  };
}

export type Lockout = ReturnType<typeof createLockout>;

/**
 * Deletes the counters that count nothing any more: no failure for a day (a claim would start
 * them afresh) and no lock running. Every username tried used to leave its row for ever, so a
 * client guessing names grew the table without bound. A counter a claim holds at this instant
 * is passed by (`skip locked`). Returns how many went.
 */
export async function purgeStaleSignInFailures(db: Queryable, at: Date): Promise<number> {
  const rows = await db.query(
    `delete from dashboard_sign_in_failures where key in (
       select key from dashboard_sign_in_failures
        where last_failure_at < $1 and (locked_until is null or locked_until <= $2)
          for update skip locked)
     returning 1`,
    [new Date(at.getTime() - FORGET_AFTER_MS), at],
  );
  return rows.length;
}
