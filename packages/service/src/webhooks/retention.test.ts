/**
 * Webhook retention: a message whose every delivery finished past the retention goes with its
 * deliveries and earlier attempts; anything waiting or finished within it stays; `svc-sequence`
 * goes on after a purge (from the floor kept, or from the highest delivery kept); a message goes
 * whole, and only when each (parent, URL) it tops goes whole; a delivery someone holds keeps its
 * message; a process purges at start.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Queryable } from "../db/client.js";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { explaining, type PlanNode, seqScanned } from "../../../../test/support/plans.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
import { enqueueMany } from "./outbox.js";
import { purgeOldWebhooks } from "./retention.js";

/** The default retention (config.webhookRetentionDays). */
const DAYS = 90;

describe.each(STORES)("webhook retention on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    [stack, receiver] = await Promise.all([startStack(store), startReceiver()]);
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });
  beforeEach(async () => {
    receiver.requests.length = 0;
    receiver.respond = () => ({ status: 200, body: "ok" });
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: `${receiver.url}/ops`,
      notify_api_initiated: true,
      retry_schedule_seconds: [1],
      timeout_seconds: 2,
    });
  });

  let parents = 0;
  const newParent = () => `sess_keep_${store}_${Date.now()}_${++parents}`;
  const config = { timeout_seconds: 2, retry_schedule_seconds: [1] };
  const url = (path: string) => `${receiver.url}${path}`;
  /** Writes one message of `parent` to each of `paths` and wakes the worker; returns its id. */
  async function send(parent: string, n: number, paths: string[], retry = config): Promise<string> {
    const [id] = await stack.db.tx((q) =>
      enqueueMany(q, [
        {
          message: {
            merchantId: m.id,
            kind: "operation",
            eventType: "operation",
            parentSessionId: parent,
            body: JSON.stringify({ parent, n }),
          },
          urls: paths.map(url),
          config: retry,
        },
      ]),
    );
    stack.service.app.services.outbox.committed();
    return id!;
  }
  const statuses = (id: string) =>
    stack.db
      .query<{ status: string }>(
        "select status from webhook_deliveries where message_id = $1 order by position",
        [id],
      )
      .then((rows) => rows.map((r) => r.status));
  /** Waits until every delivery of each message has succeeded. */
  async function settled(ids: string[]) {
    for (const id of ids)
      await expect
        .poll(async () => (await statuses(id)).every((s) => s === "succeeded"), { timeout: 10_000 })
        .toBe(true);
  }
  /** Makes the messages' deliveries `days` old: created and finished that long ago. */
  const age = (days: number, ...ids: string[]) =>
    stack.db.query(
      `update webhook_deliveries set created_at = now() - make_interval(days => $2),
              completed_at = now() - make_interval(days => $2), updated_at = now() - make_interval(days => $2)
        where message_id = any($1)`,
      [ids, days],
    );
  const kept = async (...ids: string[]) =>
    (
      await stack.db.query<{ message_id: string }>(
        "select distinct message_id from webhook_deliveries where message_id = any($1)",
        [ids],
      )
    )
      .map((r) => r.message_id)
      .sort();
  const floors = (parent: string) =>
    stack.db
      .query<{ url: string; sequence: number }>(
        "select url, sequence from webhook_sequence_floors where parent_session_id = $1 order by url",
        [parent],
      )
      .then((rows) => rows.map((r) => [r.url.slice(receiver.url.length), Number(r.sequence)]));
  /** [webhook-id, svc-sequence] of what `path` received for `parent`, in arrival order. */
  const received = (path: string, parent: string) =>
    receiver.requests
      .filter((r) => r.path === path && (r.json as { parent?: string } | undefined)?.parent === parent)
      .map((r) => [r.headers["webhook-id"], r.headers["svc-sequence"]]);

  it("a message finished past the retention goes with its deliveries and earlier attempts; one finished within it, or still retrying, stays; 0 keeps everything", async () => {
    // A retried delivery: its first attempt (500) is kept in webhook_attempts.
    let firstTry = true;
    receiver.respond = (r) => {
      if (r.path === "/flaky" && firstTry) {
        firstTry = false;
        return { status: 500, body: "once" };
      }
      return { status: 200, body: "ok" };
    };
    const gone = newParent();
    const retried = await send(gone, 1, ["/flaky"]);
    const second = await send(gone, 2, ["/flaky"]);
    const recent = newParent();
    const young = await send(recent, 1, ["/a"]);
    const busy = newParent();
    const before = await send(busy, 1, ["/busy"]);
    await settled([retried, second, young, before]);
    // The later one of `busy` is retrying for an hour.
    receiver.respond = (r) =>
      r.path === "/busy" ? { status: 500, body: "down" } : { status: 200, body: "ok" };
    const waiting = await send(busy, 2, ["/busy"], { timeout_seconds: 2, retry_schedule_seconds: [3600] });
    await expect.poll(() => statuses(waiting), { timeout: 10_000 }).toEqual(["retrying"]);
    const [delivery] = await stack.db.query<{ id: string }>(
      "select id from webhook_deliveries where message_id = $1",
      [retried],
    );
    const attempts = () =>
      stack.db.query("select 1 from webhook_attempts where delivery_id = $1", [delivery!.id]);
    expect(await attempts()).toHaveLength(1);

    await age(DAYS + 1, retried, second, before, waiting);
    await age(DAYS - 1, young);
    expect(await purgeOldWebhooks(stack.db, 0)).toBe(0);
    expect(await kept(retried, second, young, before, waiting)).toEqual(
      [retried, second, young, before, waiting].sort(),
    );

    expect(await purgeOldWebhooks(stack.db, DAYS)).toBe(3);
    // `gone`'s two went whole (its (parent, URL) has nothing left: its number is kept); `busy`'s
    // first went, its retrying one stays; the young one stays.
    expect(await kept(retried, second, young, before, waiting)).toEqual([young, waiting].sort());
    expect(await attempts()).toEqual([]);
    expect(await floors(gone)).toEqual([["/flaky", 2]]);
    expect(await floors(busy)).toEqual([]);
    // The API and the delivery log know nothing of it any more.
    const auth = apiKey(m.privateKey);
    expect((await api(stack, "GET", `/v1/webhooks/messages/${retried}`, { auth })).status).toBe(404);
    expect((await api(stack, "POST", `/v1/webhooks/messages/${retried}/replay`, { auth })).status).toBe(404);
    expect((await api(stack, "GET", `/v1/webhooks/messages/${young}`, { auth })).status).toBe(200);
  });

  it("svc-sequence goes on after a purge: from the number kept when a (parent, URL) went whole, from the highest kept otherwise", async () => {
    const auth = apiKey(m.privateKey);
    const refund = (sessionId: string) =>
      api(stack, "POST", "/v1/operations", {
        auth,
        body: { operation: "refund", session_id: sessionId, amount: "1.000" },
      });
    const messages = (parent: string) =>
      stack.db
        .query<{ id: string }>(
          "select id from webhook_messages where parent_session_id = $1 and kind = 'operation' order by created_at",
          [parent],
        )
        .then((rows) => rows.map((r) => r.id));
    const numbers = (parent: string) =>
      receiver.requests
        .filter((r) => r.path === "/ops" && r.json?.session_id === parent)
        .map((r) => r.headers["svc-sequence"]);
    const whole = (await paidParent(stack, m)).session_id;
    const part = (await paidParent(stack, m)).session_id;
    const top = (await paidParent(stack, m)).session_id;
    for (const parent of [whole, part, top]) {
      for (let i = 0; i < 2; i++) expect((await refund(parent)).status).toBe(200);
      await expect.poll(() => numbers(parent), { timeout: 10_000 }).toEqual(["1", "2"]);
    }
    const [wholeFirst, wholeSecond] = await messages(whole);
    const [partFirst, partSecond] = await messages(part);
    const [topFirst, topSecond] = await messages(top);
    await age(DAYS + 1, wholeFirst!, wholeSecond!, partFirst!, topSecond!);
    await purgeOldWebhooks(stack.db, DAYS);
    // `whole` went whole; `part` lost its first; `top` keeps both: its old one is its highest and
    // its first finished within the retention.
    expect(await messages(whole)).toEqual([]);
    expect(await messages(part)).toEqual([partSecond]);
    expect((await messages(top)).sort()).toEqual([topFirst, topSecond].sort());
    for (const parent of [whole, part, top]) {
      expect((await refund(parent)).status).toBe(200);
      await expect.poll(() => numbers(parent), { timeout: 10_000 }).toEqual(["1", "2", "3"]);
    }
  });

  it("a message goes whole, and only when each (parent, URL) it tops goes whole: keeping one keeps another", async () => {
    // Per parent, /b: first (1), then both (2); /a: both (1), then last (2). `both` tops /b,
    // `last` tops /a. Four parents: the purge meets each chain in the order of random message
    // ids, and must keep `last` whether it meets it before or after `both`.
    const chains = [];
    for (let i = 0; i < 4; i++) {
      const parent = newParent();
      const first = await send(parent, 1, ["/b"]);
      await settled([first]);
      const both = await send(parent, 2, ["/a", "/b"]);
      await settled([both]);
      const last = await send(parent, 3, ["/a"]);
      await settled([last]);
      expect(received("/a", parent).map(([, n]) => n)).toEqual(["1", "2"]);
      expect(received("/b", parent).map(([, n]) => n)).toEqual(["1", "2"]);
      chains.push({ parent, first, both, last });
    }
    const all = chains.flatMap((c) => [c.first, c.both, c.last]);
    // `first` finished within the retention: `both` stays (it tops /b), so `last` stays (it tops
    // /a, where `both` stays).
    await age(DAYS + 1, ...chains.flatMap((c) => [c.both, c.last]));
    await purgeOldWebhooks(stack.db, DAYS);
    expect(await kept(...all)).toEqual(all.sort());
    for (const c of chains) expect(await floors(c.parent)).toEqual([]);
    // Once `first` is past it too, all three go, and each URL keeps its number.
    await age(DAYS + 1, ...chains.map((c) => c.first));
    await purgeOldWebhooks(stack.db, DAYS);
    expect(await kept(...all)).toEqual([]);
    const { parent } = chains[0]!;
    expect(await floors(parent)).toEqual([
      ["/a", 2],
      ["/b", 2],
    ]);
    const next = await send(parent, 4, ["/a", "/b"]);
    await settled([next]);
    expect(received("/a", parent).at(-1)).toEqual([next, "3"]);
    expect(received("/b", parent).at(-1)).toEqual([next, "3"]);
  });

  it("purges running beside the producers and the worker: each parent's numbers still run 1, 2, 3… with no gap or repeat", async () => {
    const parents = Array.from({ length: 5 }, () => newParent());
    const ROUNDS = 8;
    let done = false;
    let purged = 0;
    // Everything of these parents that has finished is made old and purged, again and again,
    // while new messages of the same parents are written and delivered.
    const purging = (async () => {
      while (!done) {
        await stack.db.query(
          `update webhook_deliveries set created_at = now() - interval '100 days', completed_at = now() - interval '100 days'
            where parent_session_id = any($1) and status = 'succeeded'`,
          [parents],
        );
        purged += await purgeOldWebhooks(stack.db, DAYS);
        // A macrotask between rounds: PGlite answers in-process, and a loop of its answers alone
        // would keep timers (the worker's, the test's) from ever running.
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        await Promise.all(parents.map((parent) => send(parent, round, ["/race"])));
        await new Promise((r) => setTimeout(r, 20 + Math.random() * 60));
      }
      await expect
        .poll(() => parents.every((p) => received("/race", p).length >= ROUNDS), { timeout: 15_000 })
        .toBe(true);
    } finally {
      done = true;
      await purging;
    }
    expect(purged).toBeGreaterThan(0);
    for (const parent of parents)
      expect(received("/race", parent).map(([, n]) => Number(n))).toEqual(
        Array.from({ length: ROUNDS }, (_, i) => i + 1),
      );
    // Once all is delivered and old, each parent goes whole and keeps its last number; nothing of
    // this test is left for the ones after it to purge.
    await stack.db.query(
      `update webhook_deliveries set created_at = now() - interval '100 days', completed_at = now() - interval '100 days'
        where parent_session_id = any($1)`,
      [parents],
    );
    await purgeOldWebhooks(stack.db, DAYS);
    expect(
      await stack.db.query("select 1 from webhook_deliveries where parent_session_id = any($1)", [parents]),
    ).toEqual([]);
    for (const parent of parents) expect(await floors(parent)).toEqual([["/race", ROUNDS]]);
  });

  it.runIf(store === "postgres")(
    "a delivery someone else holds keeps its message; the next round takes it",
    async () => {
      const parent = newParent();
      const id = await send(parent, 1, ["/a", "/b"]);
      await settled([id]);
      await age(DAYS + 1, id);
      await stack.db.tx(async (q) => {
        await q.query("select 1 from webhook_deliveries where message_id = $1 and position = 2 for update", [
          id,
        ]);
        // The purge, on another connection, passes the message by instead of waiting or taking it in part.
        expect(await purgeOldWebhooks(stack.db, DAYS)).toBe(0);
        expect(await kept(id)).toEqual([id]);
      });
      expect(await purgeOldWebhooks(stack.db, DAYS)).toBe(1);
      expect(await kept(id)).toEqual([]);
    },
  );

  it.runIf(store === "postgres")(
    "on a long-running service's table, every statement of the purge reaches rows through an index",
    async () => {
      // 20,000 old finished messages, one parent each, each with ten earlier attempts.
      const tag = `plan_${Date.now()}`;
      await stack.db.query(
        `insert into webhook_deliveries (id, message_id, merchant_id, kind, event_type, body, parent_session_id, url,
                                         status, tries, timeout_seconds, retry_schedule_seconds, sequence,
                                         created_at, completed_at)
         select 'dlv_' || $2 || g, 'msg_' || $2 || g, $1, 'operation', 'operation', '{}', 'sess_' || $2 || g, $3,
                'succeeded', 1, 5, '{60}', 1, now() - interval '100 days', now() - interval '100 days'
           from generate_series(1, 20000) g`,
        [m.id, tag, url("/plan")],
      );
      await stack.db.query(
        `insert into webhook_attempts (delivery_id, attempted_at, status_code, latency_ms)
         select 'dlv_' || $1 || g, now() - interval '100 days', 500, 3
           from generate_series(1, 20000) g, generate_series(1, 10) n`,
        [tag],
      );
      await stack.db.query("analyze webhook_deliveries");
      await stack.db.query("analyze webhook_attempts");
      const plans: PlanNode[] = []; // each statement explained, then run
      const db = {
        ...explaining(stack.db, plans),
        tx: <T>(fn: (q: Queryable) => Promise<T>) => stack.db.tx((q) => fn(explaining(q, plans))),
      };
      expect(await purgeOldWebhooks(db, DAYS, { batch: 500, maxBatches: 2 })).toBe(1_000);
      // The merchants, then per batch: candidates, lock, counts, parents, floors, two deletes.
      expect(plans.length).toBeGreaterThanOrEqual(15);
      for (const plan of plans) {
        expect(seqScanned(plan)).not.toContain("webhook_deliveries");
        expect(seqScanned(plan)).not.toContain("webhook_attempts");
      }
      await purgeOldWebhooks(stack.db, DAYS, { batch: 5_000 });
      expect(
        await stack.db.query("select 1 from webhook_deliveries where message_id like $1 limit 1", [
          `msg_${tag}%`,
        ]),
      ).toEqual([]);
    },
  );

  it("a process deletes webhooks past the retention when it starts (and every 10 minutes after)", async () => {
    const parent = newParent();
    const id = await send(parent, 1, ["/a"]);
    await settled([id]);
    await age(DAYS + 1, id);
    const another = await startStack(store, { db: stack.db });
    try {
      await expect.poll(() => kept(id), { timeout: 10_000 }).toEqual([]);
    } finally {
      await another.close();
    }
  });
});
