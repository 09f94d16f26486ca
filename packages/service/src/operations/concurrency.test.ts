/** Concurrent operations on one parent can never exceed its totals (the reservation rule). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";

describe.each(STORES)("concurrent operations on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(() => stack.close());

  it("20 parallel refunds of a tenth of the amount: exactly 10 succeed", async () => {
    const parent = await paidParent(stack, m);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        api(stack, "POST", "/v1/operations", {
          auth: apiKey(m.privateKey),
          body: { operation: "refund", session_id: parent.session_id, amount: "1.050" },
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(10);
    const status = await api(stack, "GET", `/v1/payments/${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    expect(status.json).toMatchObject({ refunded_amount: "10.500", refundable_amount: "0.000" });
    expect(status.json.transactions).toHaveLength(10);
  });

  it("parallel captures and a void on one authorization never exceed it", async () => {
    const parent = await paidParent(stack, m, "authorize");
    const capture = () =>
      api(stack, "POST", "/v1/operations", {
        auth: apiKey(m.privateKey),
        body: { operation: "capture", session_id: parent.session_id, amount: "3.000" },
      });
    const results = await Promise.all([
      capture(),
      capture(),
      capture(),
      capture(),
      api(stack, "POST", "/v1/operations", {
        auth: apiKey(m.privateKey),
        body: { operation: "void", session_id: parent.session_id },
      }),
    ]);
    const status = await api(stack, "GET", `/v1/payments/${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    const captured = Number(status.json.captured_amount);
    const voided = Number(status.json.voided_amount);
    expect(captured + voided).toBeLessThanOrEqual(10.5);
    const ok = results.filter((r) => r.status === 200).map((r) => r.json.operation);
    // Either the void went first (then nothing is captured) or captures did (then no void).
    expect(ok.includes("void") ? ok.filter((o) => o === "capture").length : 0).toBe(0);
    expect(ok.filter((o) => o === "capture").length).toBeLessThanOrEqual(3);
  });
});
