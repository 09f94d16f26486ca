/**
 * Batches one kind of statement across concurrent requests: calls arriving while earlier batches
 * are in flight wait and go together, as one statement, when a slot frees. Under load many
 * requests share one round trip, one transaction and one commit; alone, a call waits only for
 * the end of the current event-loop turn. (Group commit, done in the application.)
 *
 * A batch that fails is run again one item at a time, so one item's error (or a deadlock
 * between two processes' batches) reaches only the callers it concerns. A batch that fails
 * because the database is unreachable fails its callers and every call queued behind it at once,
 * so no call waits for the database longer than one statement's timeouts.
 *
 * @example
 * const finish = batcher((items: Finish[]) => repo.finishMany(db, items), { maxInFlight: 2 });
 * const done = await finish({ sessionId, state }); // this item's result
 */
import { isDatabaseUnavailable } from "./client.js";

export interface BatcherOptions {
  /** Batches running at once. 1 keeps one process's batches from ever waiting on each other. */
  maxInFlight: number;
  /** Items per statement at most (the statement's arrays grow with it). */
  maxBatch?: number;
}

/**
 * `run` gets the items in arrival order and must return one result per item, in the same order.
 * Returns the function callers use instead of running the statement themselves.
 */
export function batcher<I, O>(
  run: (items: I[]) => Promise<O[]>,
  { maxInFlight, maxBatch = 256 }: BatcherOptions,
): (item: I) => Promise<O> {
  interface Waiting {
    item: I;
    resolve: (result: O) => void;
    reject: (error: unknown) => void;
  }
  let queue: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  const runChecked = async (items: I[]) => {
    const results = await run(items);
    if (results.length !== items.length)
      throw new Error(`a batch of ${items.length} returned ${results.length} results`);
    return results;
  };

  const settle = async (batch: Waiting[]) => {
    try {
      const results = await runChecked(batch.map((w) => w.item));
      batch.forEach((w, i) => w.resolve(results[i]!));
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        // Alone, each item would only meet the same unreachable database again, once per item.
        // The calls queued meanwhile fail now too: sent after this batch, each would wait out its
        // own timeouts on top of the time they waited for it (a request would answer its 503 after
        // twice the documented wait). Their callers answer 503 with Retry-After and retry.
        const waiting = queue;
        queue = [];
        for (const w of [...batch, ...waiting]) w.reject(error);
        return;
      }
      if (batch.length === 1) return batch.forEach((w) => w.reject(error));
      // Alone, each item gets its own result or its own error.
      await Promise.all(
        batch.map((w) =>
          runChecked([w.item]).then(
            ([result]) => w.resolve(result!),
            (itemError: unknown) => w.reject(itemError),
          ),
        ),
      );
    }
  };

  const flush = () => {
    scheduled = false;
    while (queue.length > 0 && inFlight < maxInFlight) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      inFlight += 1;
      void settle(batch).finally(() => {
        inFlight -= 1;
        schedule();
      });
    }
  };

  // Calls made in the same event-loop turn (many answers read from one socket) go together.
  const schedule = () => {
    if (!scheduled && queue.length > 0 && inFlight < maxInFlight) {
      scheduled = true;
      setImmediate(flush);
    }
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      schedule();
    });
}
