import { describe, expect, it } from "vitest";
import { batcher } from "./batch.js";

/** A statement stand-in that records each batch it ran and answers when told to. */
function recorder(answer: (items: number[]) => Promise<string[]> | string[] = (items) => items.map(String)) {
  const batches: number[][] = [];
  let inFlight = 0;
  let maxSeen = 0;
  const run = async (items: number[]) => {
    batches.push(items);
    maxSeen = Math.max(maxSeen, ++inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return await answer(items);
    } finally {
      inFlight -= 1;
    }
  };
  return { run, batches, maxSeen: () => maxSeen };
}

describe("batcher", () => {
  it("a call alone runs alone, at the end of the event-loop turn", async () => {
    const r = recorder();
    const call = batcher(r.run, { maxInFlight: 2 });
    expect(await call(1)).toBe("1");
    expect(r.batches).toEqual([[1]]);
  });

  it("calls made together go as one batch; those made meanwhile wait for a free slot", async () => {
    const r = recorder();
    const call = batcher(r.run, { maxInFlight: 1 });
    const first = Promise.all([1, 2, 3].map(call));
    await new Promise((resolve) => setImmediate(resolve)); // the first batch is now in flight
    const second = Promise.all([4, 5].map(call));
    expect(await first).toEqual(["1", "2", "3"]);
    expect(await second).toEqual(["4", "5"]);
    expect(r.batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    expect(r.maxSeen()).toBe(1);
  });

  it("never runs more batches at once than allowed, nor more items per batch", async () => {
    const r = recorder();
    const call = batcher(r.run, { maxInFlight: 2, maxBatch: 3 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => call(i)));
    expect(results).toEqual(Array.from({ length: 10 }, (_, i) => String(i)));
    expect(r.maxSeen()).toBe(2);
    expect(Math.max(...r.batches.map((b) => b.length))).toBe(3);
    expect(r.batches.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i));
  });

  it("a failed batch is run again item by item: only the failing item's caller gets the error", async () => {
    const r = recorder((items) => {
      if (items.includes(2)) throw new Error(`item 2 is bad (batch of ${items.length})`);
      return items.map(String);
    });
    const call = batcher(r.run, { maxInFlight: 1 });
    const results = await Promise.allSettled([1, 2, 3].map(call));
    expect(results).toEqual([
      { status: "fulfilled", value: "1" },
      { status: "rejected", reason: new Error("item 2 is bad (batch of 1)") },
      { status: "fulfilled", value: "3" },
    ]);
    expect(r.batches).toEqual([[1, 2, 3], [1], [2], [3]]);
    // The batcher keeps working afterwards.
    expect(await call(4)).toBe("4");
  });

  it("a batch that returns the wrong number of results fails its callers instead of misassigning", async () => {
    const call = batcher(async (items: number[]) => items.slice(1).map(String), { maxInFlight: 1 });
    const results = await Promise.allSettled([1, 2].map(call));
    expect(results.map((x) => x.status)).toEqual(["rejected", "rejected"]);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/a batch of 1 returned 0 results/);
  });
  it("an unreachable database fails the batch and every call queued behind it at once, not one timeout after another", async () => {
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    let down = true;
    const batches: number[][] = [];
    const call = batcher(
      async (items: number[]) => {
        batches.push(items);
        if (!down) return items.map(String);
        await stuck;
        throw new Error("Query read timeout");
      },
      { maxInFlight: 1 },
    );
    const first = Promise.allSettled([1, 2].map(call));
    await new Promise((resolve) => setImmediate(resolve)); // [1, 2] now waits on the database
    const queued = Promise.allSettled([3, 4].map(call));
    release();
    const all = [...(await first), ...(await queued)];
    expect(all.map((r) => (r.status === "rejected" ? String(r.reason) : r.status))).toEqual(
      Array(4).fill("Error: Query read timeout"),
    );
    // The queued calls were never sent: they would have met the same database.
    expect(batches).toEqual([[1, 2]]);
    // Once the database answers, the batcher runs calls again.
    down = false;
    expect(await call(5)).toBe("5");
    expect(batches).toEqual([[1, 2], [5]]);
  });
});
