import { describe, expect, it } from "vitest";
import { newId, randomToken } from "./ids.js";

describe("ids", () => {
  it("are their prefix and 16 random bytes in lowercase base32, each one different", () => {
    // Many more than one 4 KiB draw of random bytes, so the pool is refilled several times.
    const ids = Array.from({ length: 3000 }, () => newId("sess"));
    for (const id of ids) expect(id).toMatch(/^sess_[a-z2-7]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("tokens of any size: from the pool, or drawn on their own past 256 bytes", () => {
    expect(randomToken(1)).toMatch(/^[a-z2-7]{2}$/);
    expect(randomToken(32)).toMatch(/^[a-z2-7]{52}$/);
    expect(randomToken(5)).toMatch(/^[a-z2-7]{8}$/);
    const big = randomToken(1024);
    expect(big).toMatch(/^[a-z2-7]{1639}$/);
    // Every 5-bit symbol turns up in a long token: the bytes are not zeros or a repeated block.
    expect(new Set(big).size).toBe(32);
  });
});
