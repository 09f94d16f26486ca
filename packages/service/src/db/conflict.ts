/**
 * Transactions PostgreSQL undid to break a conflict between concurrent ones: a deadlock (two
 * transactions each waiting for a row the other holds, `40P01`) or a serialization failure
 * (`40001`). Nothing of the undone transaction was kept, and the same transaction run again
 * almost always succeeds, because the other one has by then finished (docs/architecture.md,
 * "Transactions that collide").
 */
import type { Db, Queryable } from "./client.js";

/** PostgreSQL's SQLSTATEs for a transaction undone to break a conflict. */
const CONFLICT_CODES = ["40P01", "40001"];

/**
 * How many times {@link retryConflicts} runs a transaction at most. Each pause doubles (10–20 ms,
 * then 20–40…, 150–300 ms in all), so the other transaction, by then granted what it waited
 * for, has the time to finish first even on a busy machine.
 */
const CONFLICT_ATTEMPTS = 5;

/** True for an error (or its cause) that says PostgreSQL undid the transaction to break a conflict. */
export function isTransactionConflict(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (CONFLICT_CODES.includes((e as { code?: unknown }).code as string)) return true;
  }
  return false;
}

/**
 * Runs `transaction` again when PostgreSQL undid it to break a conflict, up to five times
 * in all, after a short random pause that doubles each time (so two colliding callers do not
 * collide again in step). Only for a transaction whose every effect is in the database: running
 * it again must be exactly as if it ran once. Any other error, or the last conflict, is thrown.
 *
 * @example
 * await retryConflicts(() => db.tx((q) => deliveryRepo.record(q, batch)));
 */
export async function retryConflicts<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= CONFLICT_ATTEMPTS || !isTransactionConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** (attempt - 1) * (1 + Math.random())));
    }
  }
}

/**
 * `db.tx(fn)` run again when PostgreSQL undid it to break a conflict ({@link retryConflicts}):
 * every effect of `fn` must be in the database.
 *
 * @example
 * await retriedTx(db, (q) => endpointsRepo.failWaiting(q, id, "endpoint deleted"));
 */
export function retriedTx<T>(db: Pick<Db, "tx">, fn: (q: Queryable) => Promise<T>): Promise<T> {
  return retryConflicts(() => db.tx(fn));
}
