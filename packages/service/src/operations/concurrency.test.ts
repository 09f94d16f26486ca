/** Concurrent operations on one parent can never exceed its totals (the reservation rule). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
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
      { merchantId: m.id, sessionId: parent.session_id },
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
      { merchantId: m.id, sessionId: parent.session_id },
      false,
    );
    expect(again!.parent.ops_version).toBe(version + 2);
    expect(again!.childSums).toEqual([
      { operation: "refund", state: "refund_pending", amount_minor: 2, count: 2 },
    ]);

    // Batched: children of one parent that read the same version, in one statement: one wins,
    // as if they had come one after the other; a child of another parent is not affected.
    const other = await paidParent(stack, m, "sandbox", { order_no: `order-${parent.session_id}` });
    const otherRead = await operationsRepo.parentForOperation(
      stack.db,
      { merchantId: m.id, sessionId: other.session_id },
      false,
    );
    const batch = await operationsRepo.insertMany(stack.db, [
      { op: child(4), expectedVersion: version + 2 },
      { op: child(5), expectedVersion: version + 2 },
      {
        op: { ...child(6), parent_session_id: other.session_id },
        expectedVersion: otherRead!.parent.ops_version,
      },
      { op: child(7), expectedVersion: version + 2 },
    ]);
    expect(batch.filter((row, i) => row && i !== 2)).toHaveLength(1);
    expect(batch[2]).toMatchObject({ session_id: child(6).session_id, parent_session_id: other.session_id });
    const [after, otherAfter, missing] = await operationsRepo.parentsForOperation(stack.db, [
      { merchantId: m.id, sessionId: parent.session_id },
      { merchantId: m.id, orderNo: other.order_no! },
      { merchantId: m.id, sessionId: "sess_does_not_exist" },
    ]);
    expect(after!.parent.ops_version).toBe(version + 3);
    expect(after!.childSums).toEqual([
      { operation: "refund", state: "refund_pending", amount_minor: 3, count: 3 },
    ]);
    expect(otherAfter!.parent.session_id).toBe(other.session_id);
    expect(otherAfter!.childSums).toEqual([
      { operation: "refund", state: "refund_pending", amount_minor: 1, count: 1 },
    ]);
    expect(missing).toBeUndefined();

    // Finishing in one statement: each child once, from the state it was read in; a child that
    // comes twice is finished for one of its items only.
    const winner = batch.find((row, i) => row && i !== 2)!;
    const settle = (row: typeof winner, state: string) => ({
      child: row,
      state,
      pgResponse: { result: "SUCCESS" },
      operatedAt: new Date("2026-11-22T10:00:00Z"),
    });
    const finished = await operationsRepo.finishMany(stack.db, [
      settle(winner, "refunded"),
      settle(batch[2]!, "refunded"),
      settle(winner, "refunded"),
    ]);
    expect(finished.filter(Boolean)).toHaveLength(2);
    expect(finished[1]).toMatchObject({ state: "refunded", pg_response: { result: "SUCCESS" } });
    expect(finished[0] === undefined).toBe(finished[2] !== undefined);
    // Already settled: nothing changes a second time.
    expect(await operationsRepo.finishMany(stack.db, [settle(batch[2]!, "refunded")])).toEqual([undefined]);
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

describe.each(STORES)("batched operations with their webhooks on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
    // Nothing listens there: the test reads the outbox, not deliveries.
    await configureWebhooks(stack, m, {
      operations_webhook_url: "http://127.0.0.1:9/ops",
      notify_api_initiated: true,
    });
  });
  afterAll(() => stack.close());

  it("parallel refunds on several parents: each answer has exactly one message, with the answer as its body", async () => {
    const parents = await Promise.all(Array.from({ length: 4 }, () => paidParent(stack, m)));
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        api(stack, "POST", "/v1/operations", {
          auth: apiKey(m.privateKey),
          body: { operation: "refund", session_id: parents[i % 4]!.session_id, amount: "0.100" },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const messages = await stack.db.query<{
      reference_number: string;
      parent_session_id: string;
      body: string;
    }>(
      "select reference_number, parent_session_id, body from webhook_messages where merchant_id = $1 and kind = 'operation'",
      [m.id],
    );
    expect(messages).toHaveLength(40);
    const byReference = new Map(messages.map((row) => [row.reference_number, row]));
    for (const answer of answers) {
      const row = byReference.get(answer.json.reference_number as string);
      expect(row, `a message for ${answer.json.reference_number}`).toBeDefined();
      expect(row!.parent_session_id).toBe(answer.json.session_id); // the parent; `txn` is the child
      expect(JSON.parse(row!.body)).toEqual(answer.json);
    }
    // Each parent's totals add up: ten refunds of 0.100 each.
    for (const parent of parents) {
      const status = await api(stack, "GET", `/v1/payments/${parent.session_id}`, {
        auth: apiKey(m.privateKey),
      });
      expect(status.json.refunded_amount).toBe("1.000");
    }
  });
});
