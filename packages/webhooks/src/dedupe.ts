/**
 * `@svc/webhooks/dedupe`: run a handler once per `webhook-id`, since delivery is at least once.
 * A separate entry, so receivers that dedupe elsewhere (a unique key in their own database) do
 * not load it; its types are exported from the root too.
 *
 * @example
 * import { createDeduper } from "@svc/webhooks/dedupe";
 * const dedupe = createDeduper();
 *
 * @packageDocumentation
 */
/**
 * Where a deduper remembers webhook ids. Implement it on Redis (`SET key 1 NX PX ttl`), a SQL
 * table with a unique key, or anything with an atomic insert-if-absent.
 *
 * @example
 * const redisStore: DedupeStore = {
 *   setIfAbsent: async (key, ttlMs) => (await redis.set(`webhook:${key}`, "1", { NX: true, PX: ttlMs })) === "OK",
 *   delete: async (key) => void (await redis.del(`webhook:${key}`)),
 * };
 */
export interface DedupeStore {
  /** Records `key` for `ttlMs` if absent; true when it was absent (first delivery). Atomic. */
  setIfAbsent(key: string, ttlMs: number): boolean | Promise<boolean>;
  /** Forgets `key`, so a delivery whose handling failed is processed again on retry. */
  delete(key: string): void | Promise<void>;
}

/**
 * 72 hours. The service retries for about 27.6 h (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after
 * the first try, ±10 % jitter: at most ~30.3 h), so ids are remembered well past the last retry.
 * Manual replays from the dashboard can come later and are deliberate: after 72 h they are
 * processed again, which is what an operator replaying a message wants.
 *
 * @example
 * createDeduper({ store: redisStore, retentionMs: DEFAULT_DEDUPE_RETENTION_MS });
 */
export const DEFAULT_DEDUPE_RETENTION_MS = 72 * 60 * 60 * 1000;

/**
 * An in-memory {@link DedupeStore} for a single process. Expired ids are swept as new ones
 * arrive, so memory stays proportional to the traffic of the retention window.
 *
 * @example
 * const dedupe = createDeduper({ store: memoryDedupeStore() });
 */
export function memoryDedupeStore(now: () => number = Date.now): DedupeStore {
  const expiries = new Map<string, number>();
  return {
    setIfAbsent(key, ttlMs) {
      const t = now();
      // Map iterates in insertion order; with one TTL that is expiry order, so stop at the first
      // live id: a sweep usually looks at one entry.
      for (const [k, expiry] of expiries) {
        if (expiry > t) break;
        expiries.delete(k);
      }
      // An absent key compares as undefined > t, which is false.
      if ((expiries.get(key) as number) > t) return false;
      expiries.delete(key);
      expiries.set(key, t + ttlMs);
      return true;
    },
    delete(key) {
      expiries.delete(key);
    },
  };
}

/**
 * Skips deliveries already handled, keyed by `webhook-id`.
 *
 * @example
 * const dedupe: Deduper = createDeduper();
 * const { duplicate } = await dedupe.once(event.id, () => applyToOrder(event));
 */
export interface Deduper {
  /**
   * Runs `handler` unless `id` was handled within the retention. If `handler` throws, the id is
   * forgotten so the service's retry is handled again. Returns whether it ran.
   */
  once(id: string, handler: () => unknown): Promise<{ duplicate: boolean }>;
}

/**
 * Options of {@link createDeduper}.
 *
 * @example
 * const options: DeduperOptions = { store: redisStore, retentionMs: 7 * 24 * 60 * 60 * 1000 };
 * const dedupe = createDeduper(options);
 */
export interface DeduperOptions {
  /** Default: {@link memoryDedupeStore} (one process only; use a shared store with several). */
  store?: DedupeStore;
  /** Default {@link DEFAULT_DEDUPE_RETENTION_MS} (72 h), longer than the whole retry horizon. */
  retentionMs?: number;
}

/**
 * Delivery is at least once: the same message (same `webhook-id`) can arrive twice. This runs
 * your handler once per id.
 *
 * @example
 * const dedupe = createDeduper();
 * const event = await verifyWebhook(body, headers, secret);
 * const { duplicate } = await dedupe.once(event.id, () => applyToOrder(event));
 */
export function createDeduper(options: DeduperOptions = {}): Deduper {
  const store = options.store ?? memoryDedupeStore();
  const ttlMs = options.retentionMs ?? DEFAULT_DEDUPE_RETENTION_MS;
  return {
    async once(id, handler) {
      if (!(await store.setIfAbsent(id, ttlMs))) return { duplicate: true };
      try {
        await handler();
      } catch (err) {
        await store.delete(id);
        throw err;
      }
      return { duplicate: false };
    },
  };
}
