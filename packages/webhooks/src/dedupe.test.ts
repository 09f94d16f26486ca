import { describe, expect, it } from "vitest";
import { createDeduper, DEFAULT_DEDUPE_RETENTION_MS, type DedupeStore, memoryDedupeStore } from "./dedupe.js";

describe("createDeduper", () => {
  it("runs the handler once per webhook-id", async () => {
    const dedupe = createDeduper();
    let runs = 0;
    expect(await dedupe.once("msg_1", () => runs++)).toEqual({ duplicate: false });
    expect(await dedupe.once("msg_1", () => runs++)).toEqual({ duplicate: true });
    expect(await dedupe.once("msg_2", () => runs++)).toEqual({ duplicate: false });
    expect(runs).toBe(2);
  });

  it("forgets the id when the handler fails, so the retry is handled", async () => {
    const dedupe = createDeduper();
    await expect(dedupe.once("msg_1", () => Promise.reject(new Error("db down")))).rejects.toThrow("db down");
    let ran = false;
    expect(await dedupe.once("msg_1", () => (ran = true))).toEqual({ duplicate: false });
    expect(ran).toBe(true);
  });

  it("retains ids longer than the whole retry horizon by default", () => {
    const retriesMs = (5 + 5 * 60 + 30 * 60 + (2 + 5 + 10 + 10) * 3600) * 1000 * 1.1;
    expect(DEFAULT_DEDUPE_RETENTION_MS).toBeGreaterThan(retriesMs);
  });

  it("uses a pluggable store with the retention as TTL", async () => {
    const calls: [string, number][] = [];
    const store: DedupeStore = {
      setIfAbsent: async (key, ttl) => {
        calls.push([key, ttl]);
        return calls.length === 1;
      },
      delete: () => {},
    };
    const dedupe = createDeduper({ store, retentionMs: 1234 });
    expect((await dedupe.once("a", () => {})).duplicate).toBe(false);
    expect((await dedupe.once("a", () => {})).duplicate).toBe(true);
    expect(calls).toEqual([
      ["a", 1234],
      ["a", 1234],
    ]);
  });
});

describe("memoryDedupeStore", () => {
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
