/**
 * Gateway retention: what gateways posted and the ids of the notifications applied go once older
 * than the retention, the oldest first, in batches, through each table's `received_at` index;
 * anything younger stays; 0 keeps everything; a process purges at start; a notification repeated
 * after its id is gone still has one effect.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reportSandboxOperation } from "../../../../test/support/gateway-notifications.js";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { explaining, type PlanNode, seqScanned } from "../../../../test/support/plans.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { purgeOldGatewayRecords } from "./retention.js";

/** The default retention (config.gatewayRetentionDays). */
const DAYS = 180;

describe.each(STORES)("gateway retention on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(() => stack?.close());

  /** A post and a notification id of this test, `ageDays` old; returns their ids. */
  async function received(tag: string, ageDays: number): Promise<{ post: string; notification: string }> {
    const post = `gmsg_${tag}_${randomUUID()}`;
    const notification = `ntf_${tag}_${randomUUID()}`;
    await stack.db.query(
      `insert into gateway_messages (id, pg_code, pg_reference, raw, decoded, outcome, received_at)
       values ($1, 'retention', $2, 'raw', '{}', 'applied', now() - make_interval(days => $3))`,
      [post, `ref_${tag}`, ageDays],
    );
    await stack.db.query(
      `insert into gateway_notifications (pg_code, notification_id, received_at)
       values ('retention', $1, now() - make_interval(days => $2))`,
      [notification, ageDays],
    );
    return { post, notification };
  }
  const kept = async (ids: { post: string; notification: string }[]) => {
    const posts = await stack.db.query<{ id: string }>("select id from gateway_messages where id = any($1)", [
      ids.map((i) => i.post),
    ]);
    const notifications = await stack.db.query<{ id: string }>(
      "select notification_id as id from gateway_notifications where notification_id = any($1)",
      [ids.map((i) => i.notification)],
    );
    return [...posts, ...notifications].map((r) => r.id).sort();
  };

  it("deletes the posts and notification ids older than the retention, and nothing younger", async () => {
    const old = [await received("old", DAYS + 30), await received("old", DAYS + 1)];
    const young = [await received("young", DAYS - 1), await received("young", 0)];
    // A long-running service's tables: many rows, few of them past the retention.
    await stack.db.query(
      `insert into gateway_messages (id, pg_code, pg_reference, raw, decoded, outcome)
       select 'gmsg_filler_' || g, 'retention', 'ref_filler_' || g, 'raw', '{}', 'applied' from generate_series(1, 5000) g`,
    );
    await stack.db.query(
      `insert into gateway_notifications (pg_code, notification_id)
       select 'retention', 'ntf_filler_' || g from generate_series(1, 5000) g`,
    );
    await stack.db.query("analyze gateway_messages");
    await stack.db.query("analyze gateway_notifications");
    const plans: PlanNode[] = [];
    const gone = await purgeOldGatewayRecords(explaining(stack.db, plans), DAYS);
    expect(gone).toBeGreaterThanOrEqual(4);
    expect(await kept(old)).toEqual([]);
    expect(await kept(young)).toEqual([...young.flatMap((y) => [y.post, y.notification])].sort());
    // Each table's purge reads its index, never the whole table (both grow with every gateway post).
    expect(plans.length).toBeGreaterThanOrEqual(2);
    for (const plan of plans) {
      expect(seqScanned(plan)).not.toContain("gateway_messages");
      expect(seqScanned(plan)).not.toContain("gateway_notifications");
    }
    await stack.db.query("delete from gateway_messages where id like 'gmsg_filler_%'");
    await stack.db.query("delete from gateway_notifications where notification_id like 'ntf_filler_%'");
  });

  it("0 keeps everything", async () => {
    const old = await received("kept", DAYS * 10);
    expect(await purgeOldGatewayRecords(stack.db, 0)).toBe(0);
    expect(await kept([old])).toHaveLength(2);
    await purgeOldGatewayRecords(stack.db, DAYS);
    expect(await kept([old])).toEqual([]);
  });

  it("goes in batches, the oldest first, and a round takes at most its batches", async () => {
    const rows = [];
    for (let i = 0; i < 3; i++) rows.push(await received("batch", DAYS + 10 - i));
    // One batch of two rows per table: the two oldest of each go, the third waits.
    expect(await purgeOldGatewayRecords(stack.db, DAYS, { batch: 2, maxBatches: 1 })).toBe(4);
    expect(await kept(rows)).toEqual([rows[2]!.post, rows[2]!.notification].sort());
    expect(await purgeOldGatewayRecords(stack.db, DAYS, { batch: 2 })).toBe(2);
    expect(await kept(rows)).toEqual([]);
  });

  it("a notification repeated after its id is gone still has one effect", async () => {
    const paid = await paidParent(stack, m, "sandbox", { amount: "10.000" });
    // The gateway resends the very same notification (its id and its operation) after svc has
    // purged its record of that id.
    const sent = { gatewayOperationId: `op_${randomUUID()}`, notificationId: `ntf_${randomUUID()}` };
    const first = await reportSandboxOperation(stack, m.pg.sandbox, paid.session_id, "refund", "1.000", sent);
    expect(first.json).toMatchObject({ outcome: "applied" });
    await stack.db.query(
      "update gateway_notifications set received_at = now() - make_interval(days => $1) where pg_code = $2",
      [DAYS + 1, m.pg.sandbox],
    );
    await purgeOldGatewayRecords(stack.db, DAYS);
    const known = async () =>
      (
        await stack.db.query<{ n: number }>(
          "select count(*)::int as n from gateway_notifications where pg_code = $1 and notification_id = $2",
          [m.pg.sandbox, sent.notificationId],
        )
      )[0]!.n;
    expect(await known()).toBe(0);
    // Its id is unknown now, so it is read again: its operation is recorded already.
    const again = await reportSandboxOperation(stack, m.pg.sandbox, paid.session_id, "refund", "1.000", sent);
    expect(again.json).toMatchObject({ outcome: "duplicate" });
    expect(await known()).toBe(1);
    const payment = (
      await api(stack, "GET", `/v1/payments/${paid.session_id}`, { auth: apiKey(m.privateKey) })
    ).json;
    expect(payment.transactions.filter((t: { operation: string }) => t.operation === "refund")).toHaveLength(
      1,
    );
  });

  it("a process purges at start", async () => {
    const old = await received("start", DAYS + 1);
    const another = await startStack(store, { db: stack.db });
    try {
      await expect.poll(() => kept([old]), { timeout: 10_000 }).toEqual([]);
    } finally {
      await another.close();
    }
  });
});
