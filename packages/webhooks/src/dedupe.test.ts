import { describe, expect, it } from "vitest";
import {
  createDeduper,
  DEFAULT_DEDUPE_LEASE_MS,
  DEFAULT_DEDUPE_RETENTION_MS,
  type DedupeStore,
  memoryDedupeStore,
} from "./dedupe.js";

/** A memory store that records every call made to it. */
function recordingStore(now?: () => number) {
  const inner = memoryDedupeStore(now);
  const calls: string[] = [];
  const store: DedupeStore = {
    setIfAbsent: (key, ttlMs) => (calls.push(`setIfAbsent ${key} ${ttlMs}`), inner.setIfAbsent(key, ttlMs)),
    markDone: (key, ttlMs) => (calls.push(`markDone ${key} ${ttlMs}`), inner.markDone(key, ttlMs)),
    isDone: (key) => (calls.push(`isDone ${key}`), inner.isDone(key)),
    delete: (key) => (calls.push(`delete ${key}`), inner.delete(key)),
  };
  return { store, calls };
}

/** A handler that waits until released, and a promise of its start. */
function gatedHandler() {
  let enter!: () => void;
  let release!: (fail?: Error) => void;
  const entered = new Promise<void>((resolve) => (enter = resolve));
  const gate = new Promise<void>(
    (resolve, reject) => (release = (fail) => (fail ? reject(fail) : resolve())),
  );
  const handler = () => {
    enter();
    return gate;
  };
  return { handler, entered, release };
}

describe("createDeduper", () => {
  it("runs the handler once per webhook-id", async () => {
    const dedupe = createDeduper();
    let runs = 0;
    expect(await dedupe.once("msg_1", () => runs++)).toEqual({ duplicate: false, inProgress: false });
    expect(await dedupe.once("msg_1", () => runs++)).toEqual({ duplicate: true, inProgress: false });
    expect(await dedupe.once("msg_2", () => runs++)).toEqual({ duplicate: false, inProgress: false });
    expect(runs).toBe(2);
  });

  it("forgets the id when the handler fails, so the retry is handled", async () => {
    const dedupe = createDeduper();
    await expect(dedupe.once("msg_1", () => Promise.reject(new Error("db down")))).rejects.toThrow("db down");
    let ran = false;
    expect(await dedupe.once("msg_1", () => (ran = true))).toEqual({ duplicate: false, inProgress: false });
    expect(ran).toBe(true);
  });

  it("tells a retry of an id still being handled (in progress) from one already handled", async () => {
    const dedupe = createDeduper();
    const first = gatedHandler();
    const running = dedupe.once("msg_1", first.handler);
    await first.entered;
    let ran = false;
    expect(await dedupe.once("msg_1", () => (ran = true))).toEqual({ duplicate: true, inProgress: true });
    first.release();
    expect(await running).toEqual({ duplicate: false, inProgress: false });
    expect(await dedupe.once("msg_1", () => (ran = true))).toEqual({ duplicate: true, inProgress: false });
    expect(ran).toBe(false);
  });

  it("handles the next retry when the first handler fails after a retry was told it is in progress", async () => {
    const dedupe = createDeduper();
    const first = gatedHandler();
    const running = dedupe.once("msg_1", first.handler);
    await first.entered;
    expect((await dedupe.once("msg_1", () => {})).inProgress).toBe(true);
    first.release(new Error("db down"));
    await expect(running).rejects.toThrow("db down");
    let ran = false;
    expect(await dedupe.once("msg_1", () => (ran = true))).toEqual({ duplicate: false, inProgress: false });
    expect(ran).toBe(true);
  });

  it("lets a claim lapse after the lease, so a retry is handled when the first handler never ends", async () => {
    let now = 0;
    const dedupe = createDeduper({ store: memoryDedupeStore(() => now), leaseMs: 1000 });
    void dedupe.once("msg_1", () => new Promise(() => {})); // a process that died mid-handler
    await Promise.resolve();
    expect((await dedupe.once("msg_1", () => {})).inProgress).toBe(true);
    now = 999;
    expect((await dedupe.once("msg_1", () => {})).inProgress).toBe(true);
    now = 1000;
    let ran = false;
    expect(await dedupe.once("msg_1", () => (ran = true))).toEqual({ duplicate: false, inProgress: false });
    expect(ran).toBe(true);
  });

  it("passes its store the default lease for claims and the default retention (72 h) for handled ids", async () => {
    const { store, calls } = recordingStore();
    const dedupe = createDeduper({ store });
    await dedupe.once("a", () => {});
    await dedupe.once("a", () => {});
    expect(DEFAULT_DEDUPE_RETENTION_MS).toBe(72 * 60 * 60 * 1000);
    expect(calls).toEqual([
      `setIfAbsent a ${DEFAULT_DEDUPE_LEASE_MS}`,
      `markDone a ${DEFAULT_DEDUPE_RETENTION_MS}`,
      `setIfAbsent a ${DEFAULT_DEDUPE_LEASE_MS}`,
      "isDone a",
    ]);
  });

  it("retains ids longer than the whole retry horizon by default", () => {
    const retriesMs = (5 + 5 * 60 + 30 * 60 + (2 + 5 + 10 + 10) * 3600) * 1000 * 1.1;
    expect(DEFAULT_DEDUPE_RETENTION_MS).toBeGreaterThan(retriesMs);
  });

  it("uses a pluggable store with the given lease and retention", async () => {
    const { store, calls } = recordingStore();
    const dedupe = createDeduper({ store, retentionMs: 1234, leaseMs: 56 });
    expect((await dedupe.once("a", () => {})).duplicate).toBe(false);
    await expect(dedupe.once("b", () => Promise.reject(new Error("db down")))).rejects.toThrow();
    expect(calls).toEqual(["setIfAbsent a 56", "markDone a 1234", "setIfAbsent b 56", "delete b"]);
  });
});

describe("memoryDedupeStore", () => {
  it("tells claimed ids from handled ones, each until its own TTL", () => {
    let now = 0;
    const store = memoryDedupeStore(() => now);
    expect(store.setIfAbsent("a", 10)).toBe(true);
    expect(store.isDone("a")).toBe(false);
    store.markDone("a", 1000);
    expect([store.isDone("a"), store.setIfAbsent("a", 10)]).toEqual([true, false]);
    now = 999;
    expect(store.isDone("a")).toBe(true);
    now = 1000;
    expect(store.isDone("a")).toBe(false);
    expect(store.isDone("never")).toBe(false);
  });

  it("expires ids after their TTL and sweeps them", () => {
    let now = 0;
    const store = memoryDedupeStore(() => now);
    expect(store.setIfAbsent("a", 1000)).toBe(true);
    expect(store.setIfAbsent("a", 1000)).toBe(false);
    now = 1000;
    expect(store.setIfAbsent("a", 1000)).toBe(true);
    now = 100_000;
    expect(store.setIfAbsent("b", 1000)).toBe(true);
    expect(store.setIfAbsent("a", 1000)).toBe(true);
  });
});
