/**
 * The outbox signal: a local wake per commit, and coalesced NOTIFYs that always follow a commit
 * this process's worker does not take at once.
 */
import { describe, expect, it } from "vitest";
import { OutboxSignal } from "./outbox.js";

describe("OutboxSignal", () => {
  it("wakes this process at once and sends one NOTIFY per burst, always one started after the last commit", async () => {
    const started: number[] = [];
    const finish: (() => void)[] = [];
    let commits = 0;
    const signal = new OutboxSignal(() => {
      started.push(commits);
      return new Promise<void>((resolve) => finish.push(resolve));
    });
    let wakes = 0;
    signal.on("committed", () => (wakes += 1));
    const commit = () => {
      commits += 1;
      signal.committed();
    };
    commit();
    commit();
    commit();
    expect(wakes).toBe(3);
    // One NOTIFY in flight, started after the first commit; the next two wait for it.
    expect(started).toEqual([1]);
    finish.shift()!();
    await new Promise((r) => setTimeout(r, 0));
    // One more covers both, and it started after the last of them.
    expect(started).toEqual([1, 3]);
    finish.shift()!();
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual([1, 3]);
    commit();
    expect(started).toEqual([1, 3, 4]);
    finish.shift()!();
  });

  it("sends no NOTIFY while this process's worker takes commits at once, and does when it cannot or is gone", async () => {
    let notifies = 0;
    const signal = new OutboxSignal(async () => {
      notifies += 1;
    });
    let wakes = 0;
    signal.on("committed", () => (wakes += 1));
    let ready = true;
    const detach = signal.attachWorker(() => ready);
    signal.committed();
    signal.committed();
    expect([wakes, notifies]).toEqual([2, 0]);
    // Busy (no room, a backlog): the other processes' workers are woken.
    ready = false;
    signal.committed();
    expect([wakes, notifies]).toEqual([3, 1]);
    ready = true;
    // Another worker attached since: detaching the first leaves the second in place.
    const other = signal.attachWorker(() => true);
    detach();
    signal.committed();
    expect(notifies).toBe(1);
    other();
    await new Promise((r) => setTimeout(r, 0)); // the first NOTIFY is done: the next is not coalesced
    signal.committed();
    expect([wakes, notifies]).toEqual([5, 2]);
  });

  it("a failed NOTIFY does not stop the next one", async () => {
    let calls = 0;
    const signal = new OutboxSignal(async () => {
      calls += 1;
      throw new Error("connection lost");
    });
    signal.committed();
    await new Promise((r) => setTimeout(r, 0));
    signal.committed();
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toBe(2);
  });
});
