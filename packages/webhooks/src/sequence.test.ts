import { describe, expect, it } from "vitest";
import { createSequenceTracker, webhookMeta } from "./sequence.js";

describe("webhookMeta", () => {
  it("reads the event type and sequence from Node, Fetch and odd-cased headers", () => {
    expect(webhookMeta({ "svc-event-type": "operation", "svc-sequence": "3" })).toEqual({
      eventType: "operation",
      sequence: 3,
      version: "2026-11-24",
    });
    expect(webhookMeta(new Headers({ "SVC-Event-Type": "payment.paid", "Svc-Sequence": "1" }))).toEqual({
      eventType: "payment.paid",
      sequence: 1,
      version: "2026-11-24",
    });
    expect(webhookMeta({ "Svc-Sequence": "12" }).sequence).toBe(12);
  });
  it("a missing or malformed sequence is undefined", () => {
    for (const bad of [undefined, "", "0", "-1", "1.5", "01", "x", "99999999999999999"])
      expect(webhookMeta(bad === undefined ? {} : { "svc-sequence": bad }).sequence).toBeUndefined();
  });
});

describe("createSequenceTracker", () => {
  it("next, gap (naming the missing), repeat; parents apart", async () => {
    const t = createSequenceTracker();
    expect(await t.check("a", 1)).toEqual({ kind: "next", sequence: 1 });
    expect(await t.check("a", 2)).toEqual({ kind: "next", sequence: 2 });
    expect(await t.check("a", 5)).toEqual({ kind: "gap", sequence: 5, missing: [3, 4] });
    expect(await t.check("a", 4)).toEqual({ kind: "repeat", sequence: 4, last: 5 });
    expect(await t.check("a", 5)).toEqual({ kind: "repeat", sequence: 5, last: 5 });
    expect(await t.check("b", 2)).toEqual({ kind: "gap", sequence: 2, missing: [1] });
  });
  it("works on an async store; refuses a non-number", async () => {
    const data = new Map<string, number>();
    const t = createSequenceTracker({
      get: async (k) => data.get(k),
      set: async (k, v) => void data.set(k, v),
    });
    expect((await t.check("p", 1)).kind).toBe("next");
    expect(data.get("p")).toBe(1);
    await expect(t.check("p", 0)).rejects.toThrow(RangeError);
  });
});
