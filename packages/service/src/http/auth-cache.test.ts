/**
 * API keys are cached per process, and revocation still takes effect everywhere: the revoking
 * process forgets the key at once, every other process when the NOTIFY of the revocation arrives.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, bearer, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";

describe.each(STORES)("API key cache on %s", (store) => {
  let a: Stack;
  let b: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    a = await startStack(store);
    // A second service on the same database, as a second API process would be.
    b = await startStack(store, { db: a.db });
    m = await createMerchant(a);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  const lookup = (stack: Stack, key: string) =>
    api(stack, "GET", "/v1/payments?order_no=none", { auth: apiKey(key) });

  it("a key revoked through one process stops working on the other, which had it cached", async () => {
    const created = await api(a, "POST", `/v1/admin/merchants/${m.id}/keys`, {
      auth: bearer,
      body: { kind: "private", label: "cached" },
    });
    const key = created.json.key as string;
    // Both processes now hold the key in their cache.
    expect((await lookup(a, key)).status).toBe(404);
    expect((await lookup(b, key)).status).toBe(404);
    expect(
      (await api(a, "DELETE", `/v1/admin/merchants/${m.id}/keys/${created.json.id}`, { auth: bearer }))
        .status,
    ).toBe(204);
    // The revoking process has forgotten it already,
    expect((await lookup(a, key)).status).toBe(401);
    // and the other one forgets it as soon as the notification arrives (well within the cache's 5 s).
    const deadline = Date.now() + 2_000;
    let status = (await lookup(b, key)).status;
    while (status !== 401 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      status = (await lookup(b, key)).status;
    }
    expect(status).toBe(401);
  });
});
