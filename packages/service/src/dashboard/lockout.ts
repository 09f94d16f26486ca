/**
 * Backoff on repeated failed sign-ins, per username and per client address, stored in the
 * database so it holds across restarts and across several service processes. Past a threshold
 * each further failure doubles the lock (30 s, 1 min, 2 min … up to 15 min). While locked, the
 * password is not even checked, so guessing costs the attacker time, not us CPU. A success
 * clears the username's counter; counters forget failures older than a day.
 */
import type { Db } from "../db/client.js";

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

export function createLockout(db: Db, now: () => Date) {
  const keys = (username: string, ip: string) => [
    { key: `user:${username}`, threshold: USER_FAILURES_BEFORE_LOCK },
    { key: `ip:${ip}`, threshold: IP_FAILURES_BEFORE_LOCK },
  ];

  return {
    /** Seconds until sign-in may be tried again for this username or address; 0 when free. */
    async retryAfterSeconds(username: string, ip: string): Promise<number> {
      const rows = await db.query<{ locked_until: Date | null }>(
        "select locked_until from dashboard_sign_in_failures where key = any($1)",
        [keys(username, ip).map((k) => k.key)],
      );
      const at = now().getTime();
      const until = Math.max(0, ...rows.map((r) => r.locked_until?.getTime() ?? 0));
      return until > at ? Math.ceil((until - at) / 1000) : 0;
    },

    async recordFailure(username: string, ip: string): Promise<void> {
      const at = now();
      for (const { key, threshold } of keys(username, ip)) {
        const rows = await db.query<{ failures: number }>(
          `insert into dashboard_sign_in_failures (key, failures, last_failure_at) values ($1, 1, $2)
           on conflict (key) do update set
             failures = case when dashboard_sign_in_failures.last_failure_at < $3 then 1
                             else dashboard_sign_in_failures.failures + 1 end,
             last_failure_at = $2
           returning failures`,
          [key, at, new Date(at.getTime() - FORGET_AFTER_MS)],
        );
        const ms = lockMs(rows[0]!.failures, threshold);
        if (ms > 0)
          await db.query("update dashboard_sign_in_failures set locked_until = $2 where key = $1", [
            key,
            new Date(at.getTime() + ms),
          ]);
      }
    },

    async recordSuccess(username: string): Promise<void> {
      await db.query("delete from dashboard_sign_in_failures where key = $1", [`user:${username}`]);
    },
  };
}

export type Lockout = ReturnType<typeof createLockout>;
