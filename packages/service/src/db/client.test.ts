/** Named (prepared) statements: the same results as unnamed ones, in and out of transactions. */
import { describe, expect, it } from "vitest";
import { STORES, testDb } from "../../../../test/support/stores.js";

describe.each(STORES)("db client on %s", (store) => {
  it("a named statement runs again with other parameters, through the pool and in transactions", async () => {
    const db = await testDb(store);
    const sql = "select $1::int + 1 as n, $2::text[] as a";
    const runs = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        db.query<{ n: number; a: string[] }>(sql, [i, [`x${i}`]], "test_named"),
      ),
    );
    expect(runs.map((r) => r[0])).toEqual(Array.from({ length: 12 }, (_, i) => ({ n: i + 1, a: [`x${i}`] })));
    const inTx = await db.tx(async (q) => [
      ...(await q.query<{ n: number }>(sql, [41, []], "test_named")),
      ...(await q.query<{ n: number }>(sql, [1, ["y"]], "test_named")),
    ]);
    expect(inTx).toEqual([
      { n: 42, a: [] },
      { n: 2, a: ["y"] },
    ]);
    // A failing named statement rolls its transaction back like any other.
    await expect(db.tx((q) => q.query(sql, ["not a number", []], "test_named"))).rejects.toThrow();
    expect(await db.query(sql, [0, null], "test_named")).toEqual([{ n: 1, a: null }]);
  });
});
