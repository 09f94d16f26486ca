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
 * Where a deduper remembers webhook ids: each id is either being handled (claimed) or done.
 * Implement it on Redis, a SQL table with a unique key, or anything with an atomic
 * insert-if-absent.
 *
 * @example
 * const redisStore: DedupeStore = {
 *   setIfAbsent: async (key, ttlMs) =>
 *     (await redis.set(`webhook:${key}`, "claimed", { NX: true, PX: ttlMs })) === "OK",
 *   markDone: async (key, ttlMs) => void (await redis.set(`webhook:${key}`, "done", { PX: ttlMs })),
 *   isDone: async (key) => (await redis.get(`webhook:${key}`)) === "done",
 *   delete: async (key) => void (await redis.del(`webhook:${key}`)),
 * };
 */
export interface DedupeStore {
  /**
   * Records `key` as claimed (being handled) for `ttlMs` if absent; true when it was absent, i.e.
   * this delivery is the one to handle it. Atomic.
   */
  setIfAbsent(key: string, ttlMs: number): boolean | Promise<boolean>;
  /** Records that `key` was handled, for `ttlMs` from now (replacing the claim). */
  markDone(key: string, ttlMs: number): void | Promise<void>;
  /** True when `key` is recorded as handled (not merely claimed) and has not expired. */
  isDone(key: string): boolean | Promise<boolean>;
  /** Forgets `key`, so a delivery whose handling failed is processed again on retry. */
  delete(key: string): void | Promise<void>;
}

/**
 * 72 hours. The service retries for about 27.6 h (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after
 * the first try, ±10 % jitter: at most ~30.3 h), so ids are remembered well past the last retry.
 * A longer retry schedule in the service's settings, or `Retry-After` answers of your endpoint
 * (honoured on 429 and 503, up to 24 h each), stretch that horizon: raise the retention with them.
 * Manual replays from the dashboard can come later and are deliberate: after 72 h they are
 * processed again, which is what an operator replaying a message wants.
 *
 * @example
 * createDeduper({ store: redisStore, retentionMs: DEFAULT_DEDUPE_RETENTION_MS });
 */
export const DEFAULT_DEDUPE_RETENTION_MS = 72 * 60 * 60 * 1000;

/**
 * 10 minutes: how long an id stays claimed while its handler has not finished. If the process
 * dies mid-handler (with a shared store), the claim lapses and a later retry is handled; a
 * handler that can run longer than this needs a longer lease, or a retry may run it again.
 *
 * @example
 * createDeduper({ store: redisStore, leaseMs: 2 * DEFAULT_DEDUPE_LEASE_MS });
 */
export const DEFAULT_DEDUPE_LEASE_MS = 10 * 60 * 1000;

/**
 * An in-memory {@link DedupeStore} for a single process. Expired ids are swept as new ones
 * arrive, so memory stays proportional to the traffic of the retention window.
 *
 * @example
 * const dedupe = createDeduper({ store: memoryDedupeStore() });
 */
export function memoryDedupeStore(now: () => number = Date.now): DedupeStore {
  const ids = new Map<string, { expiry: number; done: boolean }>();
  const live = (key: string) => {
    const id = ids.get(key);
    return id && id.expiry > now() ? id : undefined;
  };
  const set = (key: string, ttlMs: number, done: boolean) => {
    // Re-inserted, so the Map's order stays the order of writes.
    ids.delete(key);
    ids.set(key, { expiry: now() + ttlMs, done });
  };
  return {
    setIfAbsent(key, ttlMs) {
      const t = now();
      // Map iterates in write order, which is nearly expiry order (claims are rewritten as done
      // or deleted when their handler ends): stop at the first live id, so a sweep usually
      // looks at one entry. An id that outlives its place is still expired on lookup.
      for (const [k, id] of ids) {
        if (id.expiry > t) break;
        ids.delete(k);
      }
      if (live(key)) return false;
      set(key, ttlMs, false);
      return true;
    },
    markDone(key, ttlMs) {
      set(key, ttlMs, true);
    },
    isDone(key) {
      return live(key)?.done === true;
    },
    delete(key) {
      ids.delete(key);
    },
  };
}

/**
 * What {@link Deduper.once} did with a delivery.
 *
 * @example
 * const { duplicate, inProgress }: DedupeResult = await dedupe.once(event.id, () => applyToOrder(event));
 * if (inProgress) return new Response(null, { status: 409, headers: { "retry-after": "60" } });
 */
export interface DedupeResult {
  /** The id was seen before, so the handler did not run now. */
  duplicate: boolean;
  /**
   * A duplicate whose first delivery is still being handled (or died mid-way, until the lease
   * lapses). Do not answer 2xx: if that handler fails, this retry is the one that must handle
   * the message. Answer e.g. 409 so the service retries later.
   */
  inProgress: boolean;
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
   * Runs `handler` unless `id` was handled within the retention or is being handled now. If
   * `handler` throws, the id is forgotten so the service's retry is handled again.
   */
  once(id: string, handler: () => unknown): Promise<DedupeResult>;
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
  /** Default {@link DEFAULT_DEDUPE_LEASE_MS} (10 min): how long a handler may hold an id. */
  leaseMs?: number;
}

/**
 * Delivery is at least once: the same message (same `webhook-id`) can arrive twice, even while
 * its first delivery is still being handled (the service gives up waiting after its timeout and
 * retries). This runs your handler once per id, and tells a retry of an id still in progress
 * apart from one already handled: only the latter may be answered 2xx.
 *
 * @example
 * const dedupe = createDeduper();
 * const event = await verifyWebhook(body, headers, secret);
 * const { duplicate, inProgress } = await dedupe.once(event.id, () => applyToOrder(event));
 */
export function createDeduper(options: DeduperOptions = {}): Deduper {
  const store = options.store ?? memoryDedupeStore();
  const retentionMs = options.retentionMs ?? DEFAULT_DEDUPE_RETENTION_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_DEDUPE_LEASE_MS;
  return {
    async once(id, handler) {
      if (!(await store.setIfAbsent(id, leaseMs))) {
        return { duplicate: true, inProgress: !(await store.isDone(id)) };
      }
      try {
        await handler();
      } catch (err) {
        await store.delete(id);
        throw err;
      }
      await store.markDone(id, retentionMs);
      return { duplicate: false, inProgress: false };
    },
  };
}
