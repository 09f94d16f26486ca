/** Concurrent operations on one parent can never exceed its totals (the reservation rule). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { operationsRepo } from "./operations.repo.js";

describe.each(STORES)("concurrent operations on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(() => stack.close());

  it("50 parallel refunds of a 25th of the amount: exactly 25 succeed", async () => {
    const parent = await paidParent(stack, m);
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        api(stack, "POST", "/v1/operations", {
          auth: apiKey(m.privateKey),
          body: { operation: "refund", session_id: parent.session_id, amount: "0.420" },
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(25);
    expect(statuses.filter((s) => s === 409)).toHaveLength(25);
    const status = await api(stack, "GET", `/v1/payments/${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    expect(status.json).toMatchObject({ refunded_amount: "10.500", refundable_amount: "0.000" });
    expect(status.json.transactions).toHaveLength(25);
  });

  it("an optimistic reservation writes nothing once the parent's version has moved on", async () => {
    const parent = await paidParent(stack, m);
    const read = await operationsRepo.parentForOperation(
      stack.db,
      m.id,
      { sessionId: parent.session_id },
      false,
    );
    const version = read!.parent.ops_version;
    const child = (n: number) => ({
      session_id: `sess_version_${n}_${parent.session_id}`,
      parent_session_id: parent.session_id,
      merchant_id: m.id,
      operation: "refund" as const,
      amount_minor: 1,
      currency_code: "KWD",
      state: "refund_pending",
      reference_number: `ref_version_${n}_${parent.session_id}`,
      source: "input" as const,
      via: "api" as const,
      initiator: null,
      pg_code: read!.parent.pg_code!,
      pg_response: {},
      gateway_operation_id: null,
    });
    // The first writer with the version it read wins and bumps the version…
    expect(await operationsRepo.insert(stack.db, child(1), version)).toMatchObject({ amount_minor: 1 });
    // …so a second one that read the same version writes nothing (it re-reads and retries).
    expect(await operationsRepo.insert(stack.db, child(2), version)).toBeUndefined();
    // A locked writer (no expected version) always writes, and bumps the version too.
    expect(await operationsRepo.insert(stack.db, child(3))).toBeDefined();
    const again = await operationsRepo.parentForOperation(
      stack.db,
      m.id,
      { sessionId: parent.session_id },
      false,
    );
    expect(again!.parent.ops_version).toBe(version + 2);
    expect(again!.childSums).toEqual([
      { operation: "refund", state: "refund_pending", amount_minor: 2, count: 2 },
    ]);
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
