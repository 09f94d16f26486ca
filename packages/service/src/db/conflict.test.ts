import { describe, expect, it } from "vitest";
import { isTransactionConflict, retryConflicts } from "./conflict.js";

const pgError = (code: string, message = "deadlock detected") => Object.assign(new Error(message), { code });

describe("transactions undone by a conflict", () => {
  it("knows a deadlock and a serialization failure, also as a cause, and nothing else", () => {
    expect(isTransactionConflict(pgError("40P01"))).toBe(true);
    expect(isTransactionConflict(pgError("40001", "could not serialize access"))).toBe(true);
    expect(isTransactionConflict(new Error("batch failed", { cause: pgError("40P01") }))).toBe(true);
    expect(isTransactionConflict(pgError("23505", "duplicate key"))).toBe(false);
    expect(isTransactionConflict(pgError("57014", "canceling statement due to statement timeout"))).toBe(
      false,
    );
    expect(isTransactionConflict("40P01")).toBe(false);
    expect(isTransactionConflict(undefined)).toBe(false);
  });

  it("runs a transaction undone by a conflict again, up to five times in all", async () => {
    let runs = 0;
    const result = await retryConflicts(async () => {
      runs += 1;
      if (runs < 5) throw pgError("40P01");
      return "done";
    });
    expect([result, runs]).toEqual(["done", 5]);
    runs = 0;
    const last = pgError("40001");
    await expect(
      retryConflicts(async () => {
        runs += 1;
        throw last;
      }),
    ).rejects.toBe(last);
    expect(runs).toBe(5);
  });

  it("throws any other error at once", async () => {
    let runs = 0;
    const error = pgError("23505", "duplicate key");
    await expect(
      retryConflicts(async () => {
        runs += 1;
        throw error;
      }),
    ).rejects.toBe(error);
    expect(runs).toBe(1);
  });
});
