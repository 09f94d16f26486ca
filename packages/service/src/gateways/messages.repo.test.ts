/** gateway_messages: what gateways posted, kept per payment up to a bound (both stores). */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { STORES, testDb } from "../../../../test/support/stores.js";
import { gatewayMessagesRepo, MESSAGES_PER_REFERENCE } from "./messages.repo.js";

describe.each(STORES)("gateway messages on %s", (store) => {
  const post = (pgReference: string | null, n: number) => ({
    pgReference,
    raw: `Error=IPAY0100042&n=${n}`,
    decoded: { Error: "IPAY0100042" },
    outcome: "knet_error",
  });
  const count = async (pgCode: string, pgReference: string | null) => {
    const [row] = await (
      await testDb(store)
    ).query<{ n: number }>(
      "select count(*)::int as n from gateway_messages where pg_code = $1 and pg_reference is not distinct from $2",
      [pgCode, pgReference],
    );
    return Number(row!.n);
  };

  it(`keeps at most ${MESSAGES_PER_REFERENCE} per payment; other payments and unnamed ones are not limited by it`, async () => {
    const db = await testDb(store);
    const pgCode = `pg-${randomUUID()}`;
    const [flooded, other] = [randomUUID(), randomUUID()];
    for (let n = 0; n < MESSAGES_PER_REFERENCE + 5; n++)
      await gatewayMessagesRepo.insert(db, pgCode, post(flooded, n));
    expect(await count(pgCode, flooded)).toBe(MESSAGES_PER_REFERENCE);
    // The first ones are the ones kept (a gateway's own posts come first).
    const kept = await gatewayMessagesRepo.forReference(db, pgCode, flooded);
    expect(kept.map((m) => m.raw)).toContain("Error=IPAY0100042&n=0");
    expect(kept.map((m) => m.raw)).not.toContain(`Error=IPAY0100042&n=${MESSAGES_PER_REFERENCE}`);
    await gatewayMessagesRepo.insert(db, pgCode, post(other, 0));
    expect(await count(pgCode, other)).toBe(1);
    for (let n = 0; n < MESSAGES_PER_REFERENCE + 1; n++)
      await gatewayMessagesRepo.insert(db, pgCode, post(null, n));
    expect(await count(pgCode, null)).toBe(MESSAGES_PER_REFERENCE + 1);
  });
});
