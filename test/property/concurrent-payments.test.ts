/**
 * 50 simultaneous payment attempts on one session make at most one payment: in svc's database
 * and at the gateway. On PostgreSQL the requests really run in parallel (a pool of connections);
 * PGlite serialises them, so the test runs there too but proves less.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, createTransaction, type TestMerchant } from "../support/merchant.js";
import { type Stack, startStack } from "../support/stack.js";
import { STORES } from "../support/stores.js";

const PARALLEL_ATTEMPTS = 50;

describe.each(STORES)("concurrent payment attempts on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(() => stack.close());

  it(`${PARALLEL_ATTEMPTS} parallel attempts on one session make exactly one payment`, async () => {
    const tx = (await createTransaction(stack, m)).json;
    const results = await Promise.all(
      Array.from({ length: PARALLEL_ATTEMPTS }, (_, i) =>
        api(stack, "POST", `/v1/checkout/${tx.session_id}/payments`, {
          auth: apiKey(m.publicKey),
          body: {
            form_of_payment: "wallet_a_pay",
            pg_code: m.pg.sandbox,
            payment_token: `device-token-${i}`,
          },
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    const succeeded = results.filter((r) => r.status === 200 && r.json.status === "success");
    expect(succeeded).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(PARALLEL_ATTEMPTS - 1);
    for (const r of results.filter((x) => x.status === 409))
      expect(["payment_in_progress", "invalid_state"]).toContain(r.json.code);
    const attempts = await stack.db.query("select status from payment_attempts where session_id = $1", [
      tx.session_id,
    ]);
    expect(attempts).toEqual([{ status: "approved" }]);
    const atGateway = (await (await fetch(`${stack.gatewayUrl}/dashboard/payments`)).json()) as {
      payments: { session_id: string }[];
    };
    expect(atGateway.payments.filter((p) => p.session_id === tx.session_id)).toHaveLength(1);
    const status = await api(stack, "GET", `/v1/payments/${tx.session_id}`, { auth: apiKey(m.privateKey) });
    expect(status.json).toMatchObject({ state: "paid", captured_amount: "10.500" });
  });
});
