/**
 * Idempotency that survives a lost answer: a key is bound to the operation its request reserved
 * (its recovery point), and a retry with the key finishes that operation — asking the gateway by
 * the operation's reference — instead of starting another. Also the key's edges: scope, refused
 * requests, byte-identical replays, canonical fingerprints. Real sandbox gateway over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "@svc/protocol";
import {
  api,
  apiKey,
  basic,
  bearer,
  createMerchant,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { paidParent, sandboxLedger } from "../../../../test/support/payments.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
import { hashApiKey } from "../auth/keys.js";
import { purgeExpiredKeys, requestFingerprint } from "../http/idempotency.js";
import { operationsRepo } from "./operations.repo.js";

/** How long svc remembers a key (config.idempotencyTtlSeconds). */
const DAY_SECONDS = 24 * 3600;
/** svc gives up on the gateway after this … */
const GATEWAY_TIMEOUT_MS = 400;
/** … and the slow sandbox answers after this (it has booked the operation at once). */
const SLOW_ANSWER_MS = 1_500;

describe.each(STORES)("idempotency and recovery on %s", (store) => {
  let stack: Stack;
  /** The same database, its gateway answering every operation after svc's timeout. */
  let slow: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    slow = await startStack(store, {
      db: stack.db,
      operationAnswerDelayMs: SLOW_ANSWER_MS,
      config: { gatewayTimeoutMs: GATEWAY_TIMEOUT_MS },
    });
    m = await createMerchant(stack);
    await configureWebhooks(stack, m, {
      operations_webhook_url: "http://127.0.0.1:9/ops",
      notify_api_initiated: true,
    });
  });
  afterAll(async () => {
    await slow?.close();
    await stack?.close();
  });

  const refund = (
    on: Stack,
    parent: string,
    key: string,
    options: { amount?: string; auth?: string; body?: string } = {},
  ) =>
    api(on, "POST", "/v1/operations", {
      auth: options.auth ?? apiKey(m.privateKey),
      body: options.body ?? { operation: "refund", session_id: parent, amount: options.amount ?? "1.000" },
      headers: { "idempotency-key": key },
    });
  const children = (parent: string) =>
    stack.db.query<{ session_id: string; state: string; reference_number: string }>(
      "select session_id, state, reference_number from operations where parent_session_id = $1 order by created_at",
      [parent],
    );
  const messagesOf = (parent: string) =>
    stack.db.query<{ reference_number: string }>(
      "select reference_number from webhook_messages where parent_session_id = $1 and kind = 'operation'",
      [parent],
    );
  /** Makes the merchant's key 25 h old: past its time. */
  const expire = (...keys: string[]) =>
    stack.db.query(
      "update idempotency_keys set created_at = now() - interval '25 hours' where merchant_id = $1 and key = any($2)",
      [m.id, keys],
    );
  const keyRows = (key: string) =>
    stack.db.query<{ credential: string; status: string; recovery_id: string | null }>(
      "select credential, status, recovery_id from idempotency_keys where merchant_id = $1 and key = $2",
      [m.id, key],
    );
  /** The sandbox gateway's own successful operations on the payment of `parent`. */
  const gatewayDone = async (parent: string, on: Stack = stack) =>
    (await sandboxLedger(on, parent)).filter((op) => op.status === "success");

  it("a gateway that refunds but answers after svc's timeout: 504, then the retry gets that refund — done once", async () => {
    const parent = (await paidParent(slow, m)).session_id;
    const key = newId("key");
    const first = await refund(slow, parent, key);
    expect(first.status, first.text).toBe(504);
    expect(first.json.code).toBe("gateway_outcome_unknown");
    expect(first.json.detail).toContain("same Idempotency-Key");
    // The gateway did it; svc keeps the reservation (it counts against the totals), bound to the key.
    expect(await gatewayDone(parent, slow)).toHaveLength(1);
    const [reserved] = await children(parent);
    expect(reserved).toMatchObject({
      state: "refund_pending",
      reference_number: first.json.reference_number,
    });
    expect(await keyRows(key)).toEqual([
      expect.objectContaining({ status: "in_progress", recovery_id: reserved!.session_id }),
    ]);

    // The retry asks the gateway by reference and finishes the same operation: 200, not a second refund.
    const retry = await refund(slow, parent, key);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(retry.json).toMatchObject({
      result: "success",
      reference_number: reserved!.reference_number,
      txn: { session_id: reserved!.session_id, state: "refunded", amount: "1.000" },
    });
    expect(await gatewayDone(parent, slow)).toHaveLength(1);
    expect(await children(parent)).toEqual([{ ...reserved, state: "refunded" }]);
    expect(await messagesOf(parent)).toEqual([{ reference_number: reserved!.reference_number }]);
    // From now on the answer is the stored one, byte for byte.
    const again = await refund(slow, parent, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(retry.text);
  });

  it("a retry while the first request runs is 409 and does nothing; afterwards the replay is byte-identical", async () => {
    // Default timeout (10 s): the slow gateway's answer arrives, 1.5 s late.
    const patient = await startStack(store, { db: stack.db, operationAnswerDelayMs: SLOW_ANSWER_MS });
    try {
      const parent = (await paidParent(patient, m)).session_id;
      const key = newId("key");
      const first = refund(patient, parent, key);
      // The first request holds its key once its reservation is written.
      for (let i = 0; i < 200 && (await children(parent)).length === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      const during = await refund(patient, parent, key);
      expect(during.status).toBe(409);
      expect(during.json.code).toBe("idempotency_key_in_use");
      expect(during.headers.get("retry-after")).toBe("1");
      const answered = await first;
      expect(answered.status).toBe(200);
      const after = await refund(patient, parent, key);
      expect(after.status).toBe(200);
      expect(after.headers.get("idempotent-replayed")).toBe("true");
      expect(after.text).toBe(answered.text);
      expect(await gatewayDone(parent, patient)).toHaveLength(1);
      expect(await children(parent)).toHaveLength(1);
    } finally {
      await patient.close();
    }
  });

  it("the fingerprint is canonical: the same body with its keys in another order is the same request", async () => {
    const parent = (await paidParent(stack, m)).session_id;
    const key = newId("key");
    const first = await refund(stack, parent, key, {
      body: `{"operation":"refund","session_id":"${parent}","amount":"1.000"}`,
    });
    expect(first.status).toBe(200);
    const reordered = await refund(stack, parent, key, {
      body: `{ "amount": "1.000", "session_id": "${parent}", "operation": "refund" }`,
    });
    expect(reordered.status).toBe(200);
    expect(reordered.headers.get("idempotent-replayed")).toBe("true");
    expect(reordered.text).toBe(first.text);
    expect(await gatewayDone(parent)).toHaveLength(1);
  });

  it("a key past its 24 h is a new key: claimed afresh, another body accepted, a new operation", async () => {
    const parent = (await paidParent(stack, m)).session_id;
    const key = newId("key");
    const first = await refund(stack, parent, key);
    expect(first.status).toBe(200);
    // Within its time, another body with the key is refused…
    expect((await refund(stack, parent, key, { amount: "2.000" })).json.code).toBe("idempotency_key_reused");
    // … and past it, the key is as good as new.
    await expire(key);
    const later = await refund(stack, parent, key, { amount: "2.000" });
    expect(later.status, later.text).toBe(200);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    expect(later.json.reference_number).not.toBe(first.json.reference_number);
    const [row] = await keyRows(key);
    expect(row).toMatchObject({ status: "done", recovery_id: later.json.txn.session_id });
    expect(await gatewayDone(parent)).toHaveLength(2);
    // The replay is now the second answer.
    const again = await refund(stack, parent, key, { amount: "2.000" });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(later.text);
  });

  it("keys past their 24 h are deleted in the background, a batch at a time; keys within it stay", async () => {
    const parent = (await paidParent(stack, m)).session_id;
    const keys = [newId("key"), newId("key"), newId("key"), newId("key")];
    for (const [i, key] of keys.entries())
      expect((await refund(stack, parent, key, { amount: `0.${i + 1}00` })).status).toBe(200);
    const [young, ...old] = keys;
    await expire(...old);
    // One batch of two, then the rest: the oldest go first, and the young key is never touched.
    expect(await purgeExpiredKeys(stack.db, DAY_SECONDS, { batch: 2, maxBatches: 1 })).toBe(2);
    expect((await purgeExpiredKeys(stack.db, DAY_SECONDS, { batch: 2 })) >= 1).toBe(true);
    for (const key of old) expect(await keyRows(key)).toEqual([]);
    expect(await keyRows(young!)).toHaveLength(1);
    // Within its time the young key still replays its answer; a purged key is as good as new.
    const replay = await refund(stack, parent, young!, { amount: "0.100" });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const again = await refund(stack, parent, old[0]!, { amount: "0.900" });
    expect(again.status, again.text).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(await gatewayDone(parent)).toHaveLength(5);
  });

  it("a process deletes expired keys and stale sign-in counters when it starts (and every 10 minutes after)", async () => {
    const parent = (await paidParent(stack, m)).session_id;
    const key = newId("key");
    expect((await refund(stack, parent, key)).status).toBe(200);
    await expire(key);
    const counter = `user:ghost-${newId("key")}`;
    await stack.db.query(
      "insert into dashboard_sign_in_failures (key, failures, last_failure_at) values ($1, 3, now() - interval '25 hours')",
      [counter],
    );
    const counterRows = () =>
      stack.db.query("select 1 from dashboard_sign_in_failures where key = $1", [counter]);
    const another = await startStack(store, { db: stack.db });
    try {
      await expect.poll(() => keyRows(key), { timeout: 10_000 }).toEqual([]);
      await expect.poll(counterRows, { timeout: 10_000 }).toEqual([]);
    } finally {
      await another.close();
    }
  });

  it.runIf(store === "postgres")(
    "the purge skips a key a request holds at that instant, and keeps one that request replaced",
    async () => {
      const parent = (await paidParent(stack, m)).session_id;
      const key = newId("key");
      expect((await refund(stack, parent, key)).status).toBe(200);
      await expire(key);
      // A transaction holds the expired key's row (as a request replacing it in place does) …
      await stack.db.tx(async (q) => {
        await q.query("select 1 from idempotency_keys where merchant_id = $1 and key = $2 for update", [
          m.id,
          key,
        ]);
        // … so the purge, on another connection, passes it by instead of waiting for it …
        await purgeExpiredKeys(stack.db, DAY_SECONDS);
        expect(await keyRows(key)).toHaveLength(1);
        // … and the request replaces it with a new key.
        await q.query("update idempotency_keys set created_at = now() where merchant_id = $1 and key = $2", [
          m.id,
          key,
        ]);
      });
      await purgeExpiredKeys(stack.db, DAY_SECONDS);
      expect(await keyRows(key)).toHaveLength(1);
    },
  );

  it("requests sent together with one key (one claim batch) refund once; the others are 409 or the replay", async () => {
    const parent = (await paidParent(stack, m)).session_id;
    const key = newId("key");
    const answers = await Promise.all(Array.from({ length: 6 }, () => refund(stack, parent, key)));
    const done = answers.filter((a) => a.status === 200);
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(done.filter((a) => a.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    for (const a of done) expect(a.text).toBe(done[0]!.text);
    for (const a of answers.filter((a) => a.status !== 200))
      expect(a.json.code).toBe("idempotency_key_in_use");
    expect(await gatewayDone(parent)).toHaveLength(1);
    expect(await children(parent)).toHaveLength(1);
  });

  it("a key belongs to its credential: the same key from another credential is another request", async () => {
    const parent = (await paidParent(stack, m)).session_id;
    const key = newId("key");
    const byKey = await refund(stack, parent, key);
    const byUser = await refund(stack, parent, key, { auth: basic(m.admin) });
    expect([byKey.status, byUser.status]).toEqual([200, 200]);
    expect(byUser.headers.get("idempotent-replayed")).toBeNull();
    expect(byUser.json.reference_number).not.toBe(byKey.json.reference_number);
    expect(await gatewayDone(parent)).toHaveLength(2);
    expect((await keyRows(key)).map((row) => row.credential.split(":")[0]).sort()).toEqual(["key", "user"]);
  });

  it("a refused request never reads, stores or poisons a key", async () => {
    const limited = { username: `viewer-${newId("key").slice(-8)}`, password: "viewer-password-long" };
    const created = await api(stack, "POST", `/v1/admin/merchants/${m.id}/users`, {
      auth: bearer,
      body: { ...limited, email: `${limited.username}@example.com`, permissions: ["payment.view"] },
    });
    expect(created.status).toBe(201);
    const parent = (await paidParent(stack, m)).session_id;
    // Refused first: nothing stored, so the key still works for the one who may refund.
    const key = newId("key");
    const refused = await refund(stack, parent, key, { auth: basic(limited) });
    expect(refused.status).toBe(403);
    expect(await keyRows(key)).toEqual([]);
    const wrongPassword = await refund(stack, parent, key, {
      auth: basic({ ...limited, password: "not-the-password" }),
    });
    expect(wrongPassword.status).toBe(401);
    expect(await keyRows(key)).toEqual([]);
    // Refused after another credential's success: 403, never that credential's stored 200.
    const done = await refund(stack, parent, key, { auth: basic(m.admin) });
    expect(done.status).toBe(200);
    const replayed = await refund(stack, parent, key, { auth: basic(limited) });
    expect(replayed.status).toBe(403);
    expect(replayed.headers.get("idempotent-replayed")).toBeNull();
    expect(await gatewayDone(parent)).toHaveLength(1);
  });

  /**
   * A request that died after its reservation: its key still in progress with a lapsed lease,
   * bound to a reservation the gateway has not seen yet.
   */
  async function diedAfterReserving(amountMinor: number) {
    const parent = (await paidParent(stack, m)).session_id;
    const key = newId("key");
    const body = { operation: "refund", session_id: parent, amount: (amountMinor / 1000).toFixed(3) };
    // The key as the dead request claimed it: by the same credential, with the same fingerprint.
    const credential = `key:${hashApiKey(m.privateKey)}`;
    await stack.db.query(
      `insert into idempotency_keys (merchant_id, credential, key, request_hash, status, locked_until)
       values ($1, $2, $3, $4, 'in_progress', now() - interval '1 second')`,
      [m.id, credential, key, requestFingerprint("POST", "/v1/operations", body)],
    );
    const child = await operationsRepo.insert(
      stack.db,
      {
        session_id: newId("sess"),
        parent_session_id: parent,
        merchant_id: m.id,
        operation: "refund",
        amount_minor: amountMinor,
        currency_code: "KWD",
        state: "refund_pending",
        reference_number: newId("ref"),
        source: "input",
        via: "api",
        initiator: null,
        pg_code: m.pg.sandbox,
        pg_response: {},
        gateway_operation_id: null,
      },
      null,
      { merchantId: m.id, credential, key },
    );
    expect(child).toBeDefined();
    await stack.db.query(
      "update operations set updated_at = now() - interval '1 day' where session_id = $1",
      [child!.session_id],
    );
    return { parent, key, child: child!, body };
  }

  it("the sweep settles a dead request's reservation first; the retry then finds it settled", async () => {
    const { parent, key, child, body } = await diedAfterReserving(2_000);
    expect(await stack.service.app.services.operations.sweepReservations()).toBeGreaterThanOrEqual(1);
    expect((await children(parent)).map((c) => c.state)).toEqual(["refunded"]);
    const retry = await refund(stack, parent, key, { body: JSON.stringify(body) });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json).toMatchObject({
      reference_number: child.reference_number,
      txn: { state: "refunded" },
    });
    expect(await gatewayDone(parent)).toHaveLength(1);
    expect(await messagesOf(parent)).toHaveLength(1);
  });

  it("the retry settles a dead request's reservation first; the sweep then finds nothing to do", async () => {
    const { parent, key, child, body } = await diedAfterReserving(2_000);
    const retry = await refund(stack, parent, key, { body: JSON.stringify(body) });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json.reference_number).toBe(child.reference_number);
    await stack.service.app.services.operations.sweepReservations();
    expect((await children(parent)).map((c) => c.state)).toEqual(["refunded"]);
    expect(await gatewayDone(parent)).toHaveLength(1);
    expect(await messagesOf(parent)).toHaveLength(1);
  });

  it("a dead request's reservation the gateway declines: the sweep deletes it and the key keeps the 402 for the retry", async () => {
    // Amounts ending in 13 minor units are the sandbox's decline.
    const { parent, key, body } = await diedAfterReserving(1_013);
    await stack.service.app.services.operations.sweepReservations();
    expect(await children(parent)).toEqual([]);
    const retry = await refund(stack, parent, key, { body: JSON.stringify(body) });
    expect(retry.status).toBe(402);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.json.code).toBe("operation_declined");
    expect(await children(parent)).toEqual([]);
    expect(await messagesOf(parent)).toEqual([]);
  });
});
