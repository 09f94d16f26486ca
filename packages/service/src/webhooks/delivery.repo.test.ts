/**
 * The worker's SQL on both stores: batched outcome recording keeps every attempt, and the claim
 * and record statements reach rows through indexes, never a scan of the whole deliveries table
 * (whose size is every delivery of the retention period, 90 days by default).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { explain, type PlanNode, planNodes, seqScanned } from "../../../../test/support/plans.js";
import { STORES, testDb } from "../../../../test/support/stores.js";
import type { Db, Queryable } from "../db/client.js";
import { type ClaimedDelivery, type DeliveryOutcome, deliveryRepo, originOf } from "./delivery.repo.js";
import { endpointsRepo } from "./endpoints.repo.js";
import { enqueue, enqueueMany } from "./outbox.js";
import { DEFAULT_RETRY_SCHEDULE_SECONDS } from "./retry-policy.js";
import { seedOutboxMerchant } from "../../../../test/support/outbox-merchant.js";

const config = { timeout_seconds: 5, retry_schedule_seconds: [60] };

describe.each(STORES)("delivery SQL on %s", (store) => {
  let db: Db;
  let merchantId: string;
  let url: string;
  beforeAll(async () => {
    db = await testDb(store);
    merchantId = await seedOutboxMerchant(db, "mer_repo", "whsec_AAAA");
    url = `http://127.0.0.1:9/${merchantId}`;
  });

  const enqueueOne = (parent: string) =>
    db.tx((q) =>
      enqueue(
        q,
        {
          merchantId,
          kind: "operation",
          eventType: "operation",
          parentSessionId: parent,
          body: `{"p":"${parent}"}`,
        },
        [url],
        config,
      ),
    );
  const outcome = (
    d: Pick<ClaimedDelivery, "id" | "tries" | "tid" | "message_id" | "parent_session_id" | "url" | "seq"> & {
      kept_attempt?: boolean;
    },
    status: DeliveryOutcome["status"],
    extra: Partial<DeliveryOutcome> = {},
  ): DeliveryOutcome => ({
    id: d.id,
    tid: d.tid,
    messageId: d.message_id,
    parentSessionId: d.parent_session_id,
    url: d.url,
    seq: d.seq,
    tries: d.tries,
    keptAttempt: d.kept_attempt ?? false,
    status,
    nextAttemptAt: status === "retrying" ? new Date(Date.now() + 60_000) : null,
    attemptedAt: new Date(),
    statusCode: status === "succeeded" ? 200 : 500,
    latencyMs: 12,
    error: status === "succeeded" ? null : "HTTP 500",
    responseBody: status === "succeeded" ? "ok" : "boom",
    ...extra,
  });
  const mine = async (q: Queryable, limit = 500) =>
    (await deliveryRepo.claim(q, limit)).filter((d) => d.url === url);
  /** An endpoint of the merchant's (a claim checks a delivery's endpoint is there, enabled, at its URL). */
  const newEndpoint = async (id: string, at: string, enabled = true) =>
    (
      await endpointsRepo.insert(db, {
        id,
        merchant_id: merchantId,
        kind: "endpoint",
        url: at,
        description: "",
        event_types: null,
        headers: {},
        enabled,
        payload_version: "2026-11-24",
        include_metadata: false,
      })
    ).id;
  /** What the service does when an endpoint's URL changes: the endpoint, then what waits for it. */
  const moveEndpoint = (endpointId: string, to: string) =>
    db.tx(async (q) => {
      await q.query("update webhook_endpoints set url = $2 where id = $1", [endpointId, to]);
      return endpointsRepo.moveWaiting(q, endpointId, to);
    });

  it("enqueues many messages in one statement: each with its deliveries, in the order given", async () => {
    const parent = `sess_many_${store}`;
    const message = (n: number) => ({
      merchantId,
      kind: "operation" as const,
      eventType: "operation" as const,
      parentSessionId: parent,
      childSessionId: `sess_child_${n}`,
      referenceNumber: `ref_${n}`,
      result: "success",
      body: `{"n":${n}}`,
    });
    const other = `${url}/other`;
    const ids = await db.tx((q) =>
      enqueueMany(q, [
        { message: message(1), urls: [url, other], config },
        { message: message(2), urls: [], config },
        {
          message: message(3),
          urls: [url],
          config: { timeout_seconds: 7, retry_schedule_seconds: [1, 2, 3] },
        },
      ]),
    );
    expect(ids[0]).toMatch(/^msg_/);
    expect(ids[1]).toBeUndefined();
    expect(ids[2]).toMatch(/^msg_/);
    const rows = await db.query<{
      message_id: string;
      url: string;
      status: string;
      timeout_seconds: number;
      retry_schedule_seconds: number[];
      body: string;
      reference_number: string;
    }>(
      `select d.message_id, d.url, d.status, d.timeout_seconds, d.retry_schedule_seconds, m.body, m.reference_number
         from webhook_deliveries d join webhook_messages m on m.id = d.message_id
        where d.parent_session_id = $1 order by d.seq`,
      [parent],
    );
    expect(rows).toEqual([
      {
        message_id: ids[0],
        url,
        status: "pending",
        timeout_seconds: 5,
        retry_schedule_seconds: [60],
        body: '{"n":1}',
        reference_number: "ref_1",
      },
      {
        message_id: ids[0],
        url: other,
        status: "pending",
        timeout_seconds: 5,
        retry_schedule_seconds: [60],
        body: '{"n":1}',
        reference_number: "ref_1",
      },
      {
        message_id: ids[2],
        url,
        status: "pending",
        timeout_seconds: 7,
        retry_schedule_seconds: [1, 2, 3],
        body: '{"n":3}',
        reference_number: "ref_3",
      },
    ]);
    // A message with nowhere to go is not stored at all.
    expect(await db.query("select 1 from webhook_messages where reference_number = 'ref_2'")).toEqual([]);
    // None at all: no statement, nothing stored.
    expect(await enqueueMany(db, [{ message: message(4), urls: [], config }])).toEqual([undefined]);
    // Cleaned up: later tests here count the pending deliveries.
    await db.query("delete from webhook_deliveries where parent_session_id = $1", [parent]);
  });

  it("one claim of several merchants' deliveries gives each its own merchant's secrets, newest first, expired ones left out", async () => {
    const other = await seedOutboxMerchant(db, "mer_repo_keys", "whsec_OLD");
    await db.query(
      `update webhook_secrets set created_at = now() - interval '1 hour', expires_at = now() + interval '1 hour'
        where merchant_id = $1`,
      [other],
    );
    await db.query(
      `insert into webhook_secrets (id, merchant_id, secret, created_at, expires_at) values
         ($2, $1, 'whsec_NEW', now(), null),
         ($3, $1, 'whsec_GONE', now() - interval '2 hours', now() - interval '1 minute')`,
      [other, `key_new_${other}`, `key_gone_${other}`],
    );
    const keysUrl = `http://127.0.0.1:9/keys_${store}`;
    const parent = `sess_keys_${store}`;
    for (const m of [merchantId, other, merchantId, other])
      await enqueue(
        db,
        {
          merchantId: m,
          kind: "operation",
          eventType: "operation",
          parentSessionId: `${parent}_${m}_${Math.random()}`,
          body: "{}",
        },
        [keysUrl],
        config,
      );
    const expected = (d: ClaimedDelivery) =>
      d.parent_session_id.includes(other) ? ["whsec_NEW", "whsec_OLD"] : ["whsec_AAAA"];
    class Rollback extends Error {}
    // Held (in its transaction, rolled back: nothing written) and leased.
    await db
      .tx(async (q) => {
        const held = (await deliveryRepo.claimHeld(q, 500)).deliveries.filter((d) => d.url === keysUrl);
        expect(held).toHaveLength(4);
        for (const d of held) expect(d.secrets).toEqual(expected(d));
        throw new Rollback();
      })
      .catch((error: unknown) => {
        if (!(error instanceof Rollback)) throw error;
      });
    const leased = (await deliveryRepo.claim(db, 500)).filter((d) => d.url === keysUrl);
    expect(leased).toHaveLength(4);
    for (const d of leased) expect(d.secrets).toEqual(expected(d));
    await db.query("delete from webhook_deliveries where url = $1", [keysUrl]);
  });

  it("a claim gives each delivery its schedule (the default one when the row has none) and shares frozen lists; a merchant without a secret in force gets none", async () => {
    const bare = await seedOutboxMerchant(db, "mer_repo_bare", "whsec_BARE");
    await db.query(
      "update webhook_secrets set expires_at = now() - interval '1 second' where merchant_id = $1",
      [bare],
    );
    const listsUrl = `http://127.0.0.1:9/lists_${store}`;
    const cases = [
      { m: merchantId, schedule: [...DEFAULT_RETRY_SCHEDULE_SECONDS] },
      { m: merchantId, schedule: [5, 300, 1800] },
      { m: merchantId, schedule: [5, 300, 1800] },
      { m: bare, schedule: [60] },
    ];
    for (const [i, c] of cases.entries())
      await enqueue(
        db,
        {
          merchantId: c.m,
          kind: "operation",
          eventType: "operation",
          parentSessionId: `sess_lists_${store}_${i}`,
          body: "{}",
        },
        [listsUrl],
        { timeout_seconds: 5, retry_schedule_seconds: c.schedule },
      );
    // The default schedule is not written on the row: the claim fills it in.
    const [unwritten] = await db.query<{ n: number }>(
      "select count(*)::int as n from webhook_deliveries where url = $1 and retry_schedule_seconds is null",
      [listsUrl],
    );
    expect(unwritten!.n).toBe(1);
    const claimed = (await deliveryRepo.claim(db, 500)).filter((d) => d.url === listsUrl);
    claimed.sort((x, y) => x.parent_session_id.localeCompare(y.parent_session_id));
    expect(claimed.map((d) => [d.retry_schedule_seconds, d.secrets])).toEqual([
      [DEFAULT_RETRY_SCHEDULE_SECONDS, ["whsec_AAAA"]],
      [[5, 300, 1800], ["whsec_AAAA"]],
      [[5, 300, 1800], ["whsec_AAAA"]],
      [[60], []],
    ]);
    // One list per distinct value, shared by the rows and frozen: no delivery can change another's.
    expect(claimed[1]!.retry_schedule_seconds).toBe(claimed[2]!.retry_schedule_seconds);
    expect(claimed[1]!.secrets).toBe(claimed[2]!.secrets);
    for (const d of claimed)
      expect(Object.isFrozen(d.secrets) && Object.isFrozen(d.retry_schedule_seconds)).toBe(true);
    await db.query("delete from webhook_deliveries where url = $1", [listsUrl]);
  });

  it("records an outcome whose error holds a lone surrogate or a NUL, with the rest of its batch", async () => {
    const parents = ["odd", "even"].map((p) => `sess_text_${p}_${store}_${Date.now()}`);
    for (const p of parents) await enqueueOne(p);
    const claimed = (await mine(db)).filter((d) => parents.includes(d.parent_session_id));
    expect(claimed).toHaveLength(2);
    const [odd, even] = parents.map((p) => claimed.find((d) => d.parent_session_id === p)!);
    await deliveryRepo.record(db, [
      outcome(odd!, "failed", { error: "bad \ud800 answer\0 here", responseBody: "x" }),
      outcome(even!, "succeeded"),
    ]);
    const rows = await db.query<{ id: string; status: string; last_error: string | null }>(
      "select id, status, last_error from webhook_deliveries where id = any($1) order by id",
      [[odd!.id, even!.id]],
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, [r.status, r.last_error]]))).toEqual({
      [odd!.id]: ["failed", "bad \ufffd answer here"],
      [even!.id]: ["succeeded", null],
    });
  });

  it("records a batch of outcomes: every attempt with its details, each delivery's new state", async () => {
    const parents = ["a", "b", "c", "d"].map((p) => `sess_repo_${p}_${Date.now()}`);
    for (const p of parents) await enqueueOne(p);
    // A later message for parent c waits behind c's first one (ordering).
    await enqueueOne(parents[2]!);
    const claimed = await mine(db);
    expect(claimed).toHaveLength(4);
    const byParent = new Map(
      await Promise.all(
        claimed.map(async (d) => {
          const [row] = await db.query<{ parent_session_id: string }>(
            "select parent_session_id from webhook_deliveries where id = $1",
            [d.id],
          );
          return [row!.parent_session_id, d] as const;
        }),
      ),
    );
    const [a, b, c, d] = parents.map((p) => byParent.get(p)!);
    expect(claimed.every((x) => x.secrets[0] === "whsec_AAAA" && x.tries === 1)).toBe(true);
    const outcomes = [
      outcome(a!, "succeeded"),
      outcome(b!, "failed", { statusCode: 410, error: "HTTP 410 Gone" }),
      outcome(c!, "retrying"),
      // Taken over by another worker (tries moved on): the state stays, the attempt is kept.
      outcome({ ...d!, tries: d!.tries - 1 }, "failed", { statusCode: null, error: "late" }),
    ];
    await db.tx((q) => deliveryRepo.record(q, outcomes));

    const states = await db.query<{ id: string; status: string; last_status_code: number | null }>(
      "select id, status, last_status_code from webhook_deliveries where id = any($1)",
      [[a!.id, b!.id, c!.id, d!.id]],
    );
    expect(Object.fromEntries(states.map((s) => [s.id, [s.status, s.last_status_code]]))).toEqual({
      [a!.id]: ["succeeded", 200],
      [b!.id]: ["failed", 410],
      [c!.id]: ["retrying", 500],
      [d!.id]: ["pending", null],
    });
    const attempts = await db.query<Record<string, unknown>>(
      `select delivery_id, status_code, latency_ms, error, response_body
         from webhook_delivery_attempts where delivery_id = any($1) order by delivery_id`,
      [[a!.id, b!.id, c!.id, d!.id]],
    );
    const order = [a!.id, b!.id, c!.id, d!.id];
    attempts.sort((x, y) => order.indexOf(x.delivery_id as string) - order.indexOf(y.delivery_id as string));
    expect(attempts).toEqual([
      { delivery_id: a!.id, status_code: 200, latency_ms: 12, error: null, response_body: "ok" },
      { delivery_id: b!.id, status_code: 410, latency_ms: 12, error: "HTTP 410 Gone", response_body: "boom" },
      { delivery_id: c!.id, status_code: 500, latency_ms: 12, error: "HTTP 500", response_body: "boom" },
      { delivery_id: d!.id, status_code: null, latency_ms: 12, error: "late", response_body: "boom" },
    ]);
    // c's later message was pushed back with c's retry: not due now.
    const [later] = await db.query<{ due: boolean }>(
      `select next_attempt_at >= $2 as due from webhook_deliveries
        where parent_session_id = $1 and url = $3 and id <> $4`,
      [parents[2], outcomes[2]!.nextAttemptAt, url, c!.id],
    );
    expect(later).toEqual({ due: true });
    expect(deliveryRepo.needsTransaction(outcomes)).toBe(true);
    expect(deliveryRepo.needsTransaction([outcomes[0]!, outcomes[1]!])).toBe(false);
  });

  it("keeps every attempt of a retried and replayed delivery: the latest on its row, the earlier ones moved out", async () => {
    await enqueueOne(`sess_repo_retried_${Date.now()}`);
    const attemptsOf = (id: string) =>
      db.query<{ status_code: number; error: string | null; response_body: string }>(
        `select status_code, error, response_body from webhook_delivery_attempts
          where delivery_id = $1 order by attempted_at`,
        [id],
      );
    const movedOut = async (id: string) =>
      (
        await db.query<{ n: number }>(
          "select count(*)::int4 as n from webhook_attempts where delivery_id = $1",
          [id],
        )
      )[0]!.n;
    const [first] = await mine(db);
    expect(first!.kept_attempt).toBe(false);
    await db.tx((q) =>
      deliveryRepo.record(q, [outcome(first!, "retrying", { attemptedAt: new Date(Date.now() - 2000) })]),
    );
    // The first attempt is on the row: nothing was inserted for it.
    expect(await movedOut(first!.id)).toBe(0);
    expect(await attemptsOf(first!.id)).toEqual([
      { status_code: 500, error: "HTTP 500", response_body: "boom" },
    ]);

    await db.query(
      "update webhook_deliveries set next_attempt_at = now() - interval '1 second' where id = $1",
      [first!.id],
    );
    const [second] = await mine(db);
    expect(second).toMatchObject({ id: first!.id, tries: 2, kept_attempt: true });
    await deliveryRepo.record(db, [
      outcome(second!, "succeeded", { attemptedAt: new Date(Date.now() - 1000) }),
    ]);
    expect(await movedOut(first!.id)).toBe(1);
    expect(await attemptsOf(first!.id)).toEqual([
      { status_code: 500, error: "HTTP 500", response_body: "boom" },
      { status_code: 200, error: null, response_body: "ok" },
    ]);

    // A replay starts the tries again; the row's attempt still moves out when the next is recorded.
    await db.query(
      "update webhook_deliveries set status = 'pending', tries = 0, next_attempt_at = now() where id = $1",
      [first!.id],
    );
    const [replayed] = await mine(db);
    expect(replayed).toMatchObject({ id: first!.id, tries: 1, kept_attempt: true });
    await deliveryRepo.record(db, [
      outcome(replayed!, "failed", { statusCode: 410, error: "HTTP 410 Gone" }),
    ]);
    expect(await movedOut(first!.id)).toBe(2);
    expect((await attemptsOf(first!.id)).map((a) => a.status_code)).toEqual([500, 200, 410]);
  });

  it("an attempt whose delivery was sent elsewhere meanwhile is logged with the URL it went to", async () => {
    await enqueueOne(`sess_repo_moved_${Date.now()}`);
    const [d] = await mine(db);
    // While it was in flight, its endpoint was disabled (ending it), moved and the message
    // replayed: the row is pending again at the new URL, with no try counted.
    const moved = `${url}/moved`;
    await db.query(
      "update webhook_deliveries set url = $2, status = 'pending', tries = 0, lease_until = null where message_id = $1",
      [d!.message_id, moved],
    );
    await deliveryRepo.record(db, [outcome(d!, "failed", { statusCode: 410, error: "HTTP 410 Gone" })]);
    const [row] = await db.query<{ url: string; status: string; tries: number }>(
      "select url, status, tries from webhook_deliveries where message_id = $1",
      [d!.message_id],
    );
    expect(row).toEqual({ url: moved, status: "pending", tries: 0 });
    const attempts = await db.query<{ url: string; status_code: number }>(
      "select url, status_code from webhook_delivery_attempts where delivery_id = $1",
      [d!.id],
    );
    expect(attempts).toEqual([{ url, status_code: 410 }]);
  });

  it("a delivery in flight when its endpoint moves goes to the new URL at once; its open attempt is logged at the old URL", async () => {
    const messageId = await enqueueOne(`sess_repo_inflight_${Date.now()}`);
    const endpointId = await newEndpoint(`ep_inflight_${store}_${Date.now()}`, url);
    await db.query("update webhook_deliveries set endpoint_id = $2 where message_id = $1", [
      messageId,
      endpointId,
    ]);
    const [d] = await mine(db);
    expect(d!.message_id).toBe(messageId);
    const moved = `${url}/new`;
    expect(await moveEndpoint(endpointId, moved)).toBe(1);
    const row = () =>
      db
        .query<{ url: string; status: string; tries: number; sequence: number | null; leased: boolean }>(
          `select url, status, tries, sequence, coalesce(lease_until > now(), false) as leased
             from webhook_deliveries where message_id = $1`,
          [messageId],
        )
        .then((rows) => rows[0]);
    // Its lease is over: the next claim sends it to the new URL while the old attempt is still
    // out, first there (a lease kept would hold it, and what follows it there, for 30 s and more).
    expect(await row()).toEqual({ url: moved, status: "pending", tries: 1, sequence: null, leased: false });
    const again = (await deliveryRepo.claim(db, 500)).filter((x) => x.message_id === messageId);
    expect(again.map((x) => [x.url, x.tries, x.sequence])).toEqual([[moved, 2, 1]]);
    // The old attempt ends: logged with the old URL, and the delivery left to the new one.
    await deliveryRepo.record(db, [outcome(d!, "succeeded")]);
    expect(await row()).toMatchObject({ url: moved, status: "pending", tries: 2, leased: true });
    await deliveryRepo.record(db, [outcome(again[0]!, "succeeded")]);
    expect(await row()).toMatchObject({ url: moved, status: "succeeded", tries: 2 });
    const attempts = await db.query<{ url: string; status_code: number }>(
      "select url, status_code from webhook_delivery_attempts where delivery_id = $1 order by attempted_at",
      [d!.id],
    );
    expect(attempts).toEqual([
      { url, status_code: 200 },
      { url: moved, status_code: 200 },
    ]);
  });

  it.runIf(store === "postgres")(
    "an endpoint moving while a held claim sends its delivery waits for the outcome, then moves the delivery as it is",
    async () => {
      const messageId = await enqueueOne(`sess_repo_heldmove_${Date.now()}`);
      const endpointId = await newEndpoint(`ep_heldmove_${Date.now()}`, url);
      await db.query("update webhook_deliveries set endpoint_id = $2 where message_id = $1", [
        messageId,
        endpointId,
      ]);
      const moved = `${url}/held-new`;
      let release!: () => void;
      const sent = new Promise<void>((resolve) => (release = resolve));
      let claimed!: () => void;
      const held = new Promise<void>((resolve) => (claimed = resolve));
      const worker = db.tx(async (q) => {
        const [d] = (await deliveryRepo.claimHeld(q, 500)).deliveries.filter(
          (x) => x.message_id === messageId,
        );
        claimed();
        await sent;
        // The attempt failed: a retry, recorded in the transaction that holds the row.
        await deliveryRepo.record(q, [outcome(d!, "retrying", { held: true, sequence: d!.sequence })], {
          health: false,
        });
      });
      await held;
      const move = moveEndpoint(endpointId, moved);
      await expect
        .poll(
          async () =>
            (
              await db.query<{ n: number }>(
                "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%webhook_deliveries%'",
              )
            )[0]!.n,
          { timeout: 10_000, interval: 20 },
        )
        .toBe(1);
      release();
      await worker;
      expect(await move).toBe(1);
      const [row] = await db.query<{ url: string; status: string; sequence: number | null }>(
        "select url, status, sequence from webhook_deliveries where message_id = $1",
        [messageId],
      );
      expect(row).toEqual({ url: moved, status: "retrying", sequence: null });
      const attempts = await db.query<{ url: string; status_code: number }>(
        "select url, status_code from webhook_delivery_attempts where delivery_id = (select id from webhook_deliveries where message_id = $1)",
        [messageId],
      );
      expect(attempts).toEqual([{ url, status_code: 500 }]);
      await db.query("update webhook_deliveries set status = 'failed' where message_id = $1", [messageId]);
    },
  );

  it.each(["claim", "claimHeld"] as const)(
    "%s sends no delivery whose endpoint was deleted, disabled or moved after its producer read it, and settles it",
    async (how) => {
      const tag = `${how}_${Date.now()}`;
      const endpoint = (name: string, enabled = true) =>
        newEndpoint(`ep_${name}_${tag}`, `${url}/${tag}/${name}`, enabled);
      // As the producer saw them: four enabled endpoints at /ok, /gone, /off and /old.
      const ids = [
        await endpoint("ok"),
        `ep_gone_${tag}`,
        await endpoint("off", false),
        await endpoint("old"),
      ];
      await db.query("update webhook_endpoints set url = $2 where id = $1", [ids[3], `${url}/${tag}/new`]);
      const messageIds = await db.tx((q) =>
        enqueueMany(
          q,
          ["ok", "gone", "off", "old"].map((name, i) => ({
            message: {
              merchantId,
              kind: "operation",
              eventType: "operation",
              parentSessionId: `sess_stray_${name}_${tag}`,
              body: "{}",
            },
            urls: [`${url}/${tag}/${name}`],
            endpointIds: [ids[i]!],
            config,
          })),
        ),
      );
      const claimed =
        how === "claim"
          ? await deliveryRepo.claim(db, 500)
          : await db.tx(async (q) => {
              const held = (await deliveryRepo.claimHeld(q, 500)).deliveries;
              const mine = held.filter((d) => messageIds.includes(d.message_id));
              await deliveryRepo.record(
                q,
                mine.map((d) => outcome(d, "succeeded", { held: true, sequence: d.sequence })),
              );
              return held;
            });
      expect(claimed.filter((d) => messageIds.includes(d.message_id)).map((d) => d.url)).toEqual([
        `${url}/${tag}/ok`,
      ]);
      const rows = await db.query<{ url: string; status: string; last_error: string | null; tries: number }>(
        `select url, status, last_error, tries from webhook_deliveries where message_id = any($1)
          order by array_position($1, message_id)`,
        [messageIds],
      );
      expect(rows.slice(1)).toEqual([
        { url: `${url}/${tag}/gone`, status: "failed", last_error: "endpoint deleted: not sent", tries: 0 },
        { url: `${url}/${tag}/off`, status: "failed", last_error: "endpoint disabled: not sent", tries: 0 },
        { url: `${url}/${tag}/new`, status: "pending", last_error: null, tries: 0 },
      ]);
      // The moved one goes out at its new URL with the next claim, first there.
      const next = (await deliveryRepo.claim(db, 500)).filter((d) => d.message_id === messageIds[3]);
      expect(next.map((d) => [d.url, d.tries, d.sequence])).toEqual([[`${url}/${tag}/new`, 1, 1]]);
      await deliveryRepo.record(db, [outcome(next[0]!, "succeeded")]);
    },
  );

  it("a held claim tells where its rows end in the due index, and one made `after` a place takes only the rows after it", async () => {
    const afterUrl = `http://127.0.0.1:9/after_${store}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await db.tx((q) =>
          enqueue(
            q,
            {
              merchantId,
              kind: "operation",
              eventType: "operation",
              parentSessionId: `sess_after_${store}_${i}`,
              body: "{}",
            },
            [afterUrl],
            config,
          ),
        ))!,
      );
    const keys = await db.query<{ message_id: string; at: string; seq: number }>(
      `select message_id, next_attempt_at::text as at, seq from webhook_deliveries
        where message_id = any($1) order by next_attempt_at, seq`,
      [ids],
    );
    expect(keys.map((k) => k.message_id)).toEqual(ids);
    class Rollback extends Error {}
    const claims: Awaited<ReturnType<typeof deliveryRepo.claimHeld>>[] = [];
    const lastOf = (claimed: ClaimedDelivery[]) =>
      db.query<{ at: string; seq: number }>(
        `select next_attempt_at::text as at, seq from webhook_deliveries where id = any($1)
          order by next_attempt_at desc, seq desc limit 1`,
        [claimed.map((d) => d.id)],
      );
    for (const after of [undefined, keys[0]!, keys[2]!])
      await db
        .tx(async (q) => {
          claims.push(
            await deliveryRepo.claimHeld(q, 500, after && { after: { at: after.at, seq: after.seq } }),
          );
          throw new Rollback();
        })
        .catch((error: unknown) => {
          if (!(error instanceof Rollback)) throw error;
        });
    const [all, afterFirst, afterLast] = claims as [
      (typeof claims)[number],
      (typeof claims)[number],
      (typeof claims)[number],
    ];
    const ofMine = (c: (typeof claims)[number]) =>
      c.deliveries
        .filter((d) => d.url === afterUrl)
        .sort((a, b) => a.seq - b.seq)
        .map((d) => d.message_id);
    expect(ofMine(all)).toEqual(ids);
    expect(ofMine(afterFirst)).toEqual(ids.slice(1));
    expect(ofMine(afterLast)).toEqual([]);
    // `last`: the claim's last row in the due index, as PostgreSQL reads it back.
    expect(all.last).toEqual((await lastOf(all.deliveries))[0]);
    expect(afterFirst.last).toEqual((await lastOf(afterFirst.deliveries))[0]);
    await db.query("delete from webhook_deliveries where url = $1", [afterUrl]);
  });

  it("recordHeld writes what record writes for held outcomes, its first successes by a plain update", async () => {
    // Two groups of the same five cases, claimed held and recorded in the holding transaction:
    // one by `record`, the other by `recordHeld`. Their rows and attempt logs must be the same.
    const cases = ["plain", "no body", "second try", "retrying", "failed"] as const;
    const at = new Date("2026-11-29T09:45:25.552Z");
    const body = 'he said "ok" \\ {a,b} NULL\n üñï 😀';
    const outcomeOf = (d: ClaimedDelivery, kind: (typeof cases)[number]): DeliveryOutcome => {
      const held = { held: true, sequence: d.sequence, attemptedAt: at, latencyMs: 7 };
      if (kind === "plain") return outcome(d, "succeeded", { ...held, responseBody: body, statusCode: 200 });
      if (kind === "no body")
        return outcome(d, "succeeded", { ...held, responseBody: null, statusCode: 204 });
      if (kind === "second try") return outcome(d, "succeeded", { ...held, responseBody: "again" });
      if (kind === "retrying")
        return outcome(d, "retrying", { ...held, nextAttemptAt: new Date("2099-01-01T00:00:00Z") });
      return outcome(d, "failed", { ...held, statusCode: 410, error: "HTTP 410 Gone" });
    };
    const group = async (name: "record" | "recordHeld") => {
      const groupUrl = `http://127.0.0.1:9/held_${name}_${store}`;
      const messages = new Map<string, (typeof cases)[number]>();
      const add = async (kind: (typeof cases)[number]) => {
        const id = await db.tx((q) =>
          enqueue(
            q,
            {
              merchantId,
              kind: "operation",
              eventType: "operation",
              parentSessionId: `sess_held_${name}_${store}_${kind}`,
              body: "{}",
            },
            [groupUrl],
            config,
          ),
        );
        messages.set(id!, kind);
      };
      // "second try": its first attempt failed and it is due again now, so its claim has one to keep.
      await add("second try");
      const [retried] = (await deliveryRepo.claim(db, 500)).filter((d) => d.url === groupUrl);
      await db.tx((q) =>
        deliveryRepo.record(q, [
          outcome(retried!, "retrying", { nextAttemptAt: new Date(Date.now() - 1000) }),
        ]),
      );
      for (const kind of cases) if (kind !== "second try") await add(kind);
      await db.tx(async (q) => {
        const claimed = (await deliveryRepo.claimHeld(q, 500)).deliveries.filter((d) => d.url === groupUrl);
        expect(claimed).toHaveLength(cases.length);
        const outcomes = claimed.map((d) => outcomeOf(d, messages.get(d.message_id)!));
        expect(outcomes.find((o) => o.responseBody === "again")!.keptAttempt).toBe(true);
        if (name === "record") await deliveryRepo.record(q, outcomes, { health: false });
        else await deliveryRepo.recordHeld(q, outcomes);
      });
      const rows = await db.query<Record<string, unknown> & { message_id: string }>(
        `select message_id, status, tries, sequence, case when status = 'retrying' then next_attempt_at end as next_at, lease_until, last_status_code, last_error,
                completed_at is not null as completed, last_attempt_at, last_attempt_status_code,
                last_attempt_latency_ms, last_attempt_error, last_attempt_response_body,
                (select coalesce(json_agg(json_build_object('code', a.status_code, 'error', a.error,
                                                            'body', a.response_body) order by a.attempted_at), '[]')
                   from webhook_attempts a where a.delivery_id = d.id) as log
           from webhook_deliveries d where url = $1`,
        [groupUrl],
      );
      return Object.fromEntries(rows.map(({ message_id, ...row }) => [messages.get(message_id)!, row]));
    };
    const byRecord = await group("record");
    const byRecordHeld = await group("recordHeld");
    expect(byRecordHeld).toEqual(byRecord);
    expect(byRecordHeld.plain).toMatchObject({
      status: "succeeded",
      tries: 1,
      sequence: 1,
      last_attempt_at: at,
      last_attempt_status_code: 200,
      last_attempt_latency_ms: 7,
      last_attempt_response_body: body,
      lease_until: null,
      completed: true,
      log: [],
    });
    expect(byRecordHeld["no body"]).toMatchObject({
      last_status_code: 204,
      last_attempt_response_body: null,
    });
    expect(byRecordHeld["second try"]).toMatchObject({ status: "succeeded", tries: 2, log: [{ code: 500 }] });
  });

  it("recordHeld updates every row it is given or throws, and its transaction writes nothing", async () => {
    const heldUrl = `http://127.0.0.1:9/held_gone_${store}`;
    await db.tx((q) =>
      enqueue(
        q,
        {
          merchantId,
          kind: "operation",
          eventType: "operation",
          parentSessionId: `sess_gone_${store}`,
          body: "{}",
        },
        [heldUrl],
        config,
      ),
    );
    const attempt = db.tx(async (q) => {
      const [d] = (await deliveryRepo.claimHeld(q, 500)).deliveries.filter((x) => x.url === heldUrl);
      const real = outcome(d!, "succeeded", { held: true, sequence: d!.sequence });
      // A row version that is not there (as if another transaction had written the row).
      await deliveryRepo.recordHeld(q, [real, { ...real, id: `${real.id}_x`, tid: "(999999,1)" }]);
    });
    await expect(attempt).rejects.toThrow("1 of 2 held rows updated");
    const [row] = await db.query<{ status: string; tries: number }>(
      "select status, tries from webhook_deliveries where url = $1",
      [heldUrl],
    );
    expect(row).toEqual({ status: "pending", tries: 0 });
    await db.query("delete from webhook_deliveries where url = $1", [heldUrl]);
  });

  it("a claim leaves out the deliveries to the origins it is told are stalled", async () => {
    const stalledUrl = `http://127.0.0.1:7/stalled_${store}`;
    const freeUrl = `http://127.0.0.2:7/free_${store}`;
    for (const at of [stalledUrl, freeUrl])
      await db.tx((q) =>
        enqueue(
          q,
          {
            merchantId,
            kind: "operation",
            eventType: "operation",
            parentSessionId: `sess_${at}`,
            body: "{}",
          },
          [at],
          config,
        ),
      );
    const ours = (claimed: ClaimedDelivery[]) =>
      claimed.filter((d) => d.url === stalledUrl || d.url === freeUrl).map((d) => d.url);
    class Rollback extends Error {}
    await db
      .tx(async (q) => {
        const held = await deliveryRepo.claimHeld(q, 500, { stalled: [originOf(stalledUrl)] });
        expect(ours(held.deliveries)).toEqual([freeUrl]);
        throw new Rollback();
      })
      .catch((error: unknown) => {
        if (!(error instanceof Rollback)) throw error;
      });
    expect(ours(await deliveryRepo.claim(db, 500, { stalled: ["127.0.0.1:7"] }))).toEqual([freeUrl]);
    // Not stalled any more: the next claim takes it.
    expect(ours(await deliveryRepo.claim(db, 500))).toEqual([stalledUrl]);
    await db.query("delete from webhook_deliveries where url = any($1)", [[stalledUrl, freeUrl]]);
  });

  it("a lease carries its worker's token; releaseOwnLeases ends that worker's leases on deliveries it is not attempting, and no one else's", async () => {
    const at = `http://127.0.0.1:8/lease_${store}`;
    /** One message to `at`, claimed at once with `token` (or held, then leased with it); its delivery. */
    const claimedWith = async (name: string, token: number, how: "leased" | "held" = "leased") => {
      await db.tx((q) =>
        enqueue(
          q,
          {
            merchantId,
            kind: "operation",
            eventType: "operation",
            parentSessionId: `sess_${name}`,
            body: "{}",
          },
          [at],
          config,
        ),
      );
      if (how === "leased") {
        const claimed = await deliveryRepo.claim(db, 500, { leaseToken: token });
        return claimed.find((d) => d.url === at && d.parent_session_id === `sess_${name}`)!;
      }
      return db.tx(async (q) => {
        const { deliveries } = await deliveryRepo.claimHeld(q, 500);
        const held = deliveries.find((d) => d.url === at && d.parent_session_id === `sess_${name}`)!;
        await deliveryRepo.lease(q, [held], token);
        return held;
      });
    };
    const lost = await claimedWith(`lost_${store}`, 111);
    const others = await claimedWith(`others_${store}`, 222);
    const attempting = await claimedWith(`attempting_${store}`, 111);
    const handedOver = await claimedWith(`handed_${store}`, 111, "held");
    const done = await claimedWith(`done_${store}`, 111);
    await deliveryRepo.record(db, [outcome(done, "succeeded")]);
    const leases = async () =>
      Object.fromEntries(
        (
          await db.query<{ id: string; token: number | null; seconds: number | null }>(
            `select id, (extract(microseconds from lease_until)::int8 % 1000000)::int4 as token,
                    extract(epoch from lease_until - now())::float8 as seconds
               from webhook_deliveries where url = $1`,
            [at],
          )
        ).map((r) => [r.id, r.token === null ? null : { token: r.token, seconds: r.seconds }]),
      );
    const before = await leases();
    expect(before[lost.id]!.token).toBe(111);
    expect(before[others.id]!.token).toBe(222);
    expect(before[handedOver.id]!.token).toBe(111);
    expect(before[done.id]).toBeNull();
    // At least the timeout (5 s) plus the margin (30 s), in whole seconds plus the token.
    for (const d of [lost, others, attempting, handedOver]) {
      expect(before[d.id]!.seconds).toBeGreaterThan(34);
      expect(before[d.id]!.seconds).toBeLessThan(37);
    }
    // Worker 111 still attempts one of them: the others it wrote are due again; 222's stays.
    expect(await deliveryRepo.releaseOwnLeases(db, 111, [attempting.id])).toBeGreaterThanOrEqual(2);
    const after = await leases();
    expect(after[lost.id]).toBeNull();
    expect(after[handedOver.id]).toBeNull();
    expect(after[attempting.id]!.token).toBe(111);
    expect(after[others.id]!.token).toBe(222);
    const again = (await deliveryRepo.claim(db, 500, { leaseToken: 7 })).filter((d) => d.url === at);
    expect(again.map((d) => d.id).sort()).toEqual([lost.id, handedOver.id].sort());
    await expect(deliveryRepo.claim(db, 500, { leaseToken: 1_000_000 })).rejects.toThrow(RangeError);
    await db.query("delete from webhook_deliveries where url = $1", [at]);
  });

  it("without a retry, recording is one statement: all of it or none of it", async () => {
    await enqueueOne(`sess_repo_one_${Date.now()}`);
    const [d] = await mine(db);
    const statements: string[] = [];
    const counting: Queryable = {
      query: (sql, params) => {
        statements.push(sql);
        return db.query(sql, params);
      },
    };
    await deliveryRepo.record(counting, [outcome(d!, "succeeded")]);
    expect(statements).toHaveLength(1);
    // A bad value fails the statement: neither the state nor the attempt is written.
    await enqueueOne(`sess_repo_two_${Date.now()}`);
    const [e] = await mine(db);
    await expect(
      deliveryRepo.record(db, [outcome(e!, "succeeded", { latencyMs: 2 ** 40 })]),
    ).rejects.toThrow();
    const [row] = await db.query<{ status: string; n: number }>(
      "select status, (select count(*)::int8 from webhook_delivery_attempts where delivery_id = $1) as n from webhook_deliveries where id = $1",
      [e!.id],
    );
    expect(row).toEqual({ status: "pending", n: 0 });
  });

  // A held claim (PostgreSQL only: PGlite has one connection, which a held claim would keep).
  it.runIf(store === "postgres")(
    "a held claim writes nothing until its outcome; other claims skip its rows; what is still in flight is leased",
    async () => {
      const [p1, p2, q1] = [
        await enqueueOne(`sess_held_p_${store}`),
        await enqueueOne(`sess_held_p_${store}`),
        await enqueueOne(`sess_held_q_${store}`),
      ];
      const row = (messageId: string | undefined) =>
        db
          .query<{ status: string; tries: number; sequence: number | null; leased: boolean }>(
            `select status, tries, sequence, lease_until is not null as leased from webhook_deliveries
              where message_id = $1`,
            [messageId],
          )
          .then((rows) => rows[0]);
      let leasedQ1: { id: string; tid: string } | undefined;
      let claimedQ1: ClaimedDelivery | undefined;
      await db.tx(async (q) => {
        const held = (await deliveryRepo.claimHeld(q, 500)).deliveries.filter((d) => d.url === url);
        // p2 waits for p1 (ordering); the claim returns the try and number it has not written.
        expect(held.map((d) => d.message_id).sort()).toEqual([p1, q1].sort());
        expect(held.map((d) => [d.tries, d.sequence])).toEqual([
          [1, 1],
          [1, 1],
        ]);
        const heldP1 = held.find((d) => d.message_id === p1)!;
        claimedQ1 = held.find((d) => d.message_id === q1)!;
        // Another worker's claim meanwhile: p1 and q1 are locked, p2 still waits for p1.
        expect(await mine(db)).toEqual([]);
        expect(await row(p1)).toEqual({ status: "pending", tries: 0, sequence: null, leased: false });
        await deliveryRepo.record(q, [
          outcome(heldP1, "succeeded", { held: true, sequence: heldP1.sequence }),
        ]);
        [leasedQ1] = await deliveryRepo.lease(q, [claimedQ1]);
      });
      expect(await row(p1)).toEqual({ status: "succeeded", tries: 1, sequence: 1, leased: false });
      expect(await row(q1)).toEqual({ status: "pending", tries: 1, sequence: 1, leased: true });
      expect(leasedQ1?.id).toBe(claimedQ1!.id);
      // p1 is done: p2 is claimable, next in its parent's numbering; q1 is leased, not due.
      const next = await mine(db);
      expect(next.map((d) => [d.message_id, d.sequence])).toEqual([[p2, 2]]);
      // q1's outcome is recorded at its leased row version, as a leased claim's is.
      await deliveryRepo.record(db, [
        outcome({ ...claimedQ1!, tid: leasedQ1!.tid }, "succeeded"),
        outcome(next[0]!, "succeeded"),
      ]);
      expect(await row(q1)).toEqual({ status: "succeeded", tries: 1, sequence: 1, leased: false });
      expect(await row(p2)).toEqual({ status: "succeeded", tries: 1, sequence: 2, leased: false });
    },
  );

  /** The JSON plans of the statements `run` sends, instead of running them. */
  async function explained(run: (q: Queryable) => Promise<unknown>): Promise<PlanNode[]> {
    const plans: PlanNode[] = [];
    await run({
      query: async <T>(sql: string, params?: readonly unknown[]) => {
        plans.push(await explain(db, sql, params));
        return [] as T[];
      },
    });
    return plans;
  }

  it("with a small, never-analysed table the ordering check still probes the parent's index", async () => {
    // A prepared claim keeps the plan it got first; a fresh service's tables are small.
    const [plan] = await explained((q) => deliveryRepo.claim(q, 500));
    const probe = planNodes(plan!).find((n) => n["Index Name"] === "webhook_deliveries_parent");
    expect(probe?.["Index Cond"]).toMatch(/parent_session_id = c\.parent_session_id/);
  });

  it("claim and record reach deliveries through indexes, not a scan of the whole table", async () => {
    // A long-running service: many finished deliveries, and a backlog of due ones.
    await db.query(
      `insert into webhook_deliveries (id, message_id, merchant_id, kind, event_type, body, parent_session_id, url,
                                       status, tries, timeout_seconds, retry_schedule_seconds, completed_at)
       select 'dlv_old_' || g, 'msg_old_' || g, $1, 'operation', 'operation', '{}', 'sess_old_' || g, $2,
              case when g <= 15000 then 'succeeded' else 'pending' end, 1, 5, '{60}', now()
         from generate_series(1, 20000) g`,
      [merchantId, `${url}/backlog`],
    );
    await db.query("analyze webhook_deliveries");
    const plans = await explained(async (explain) => {
      await deliveryRepo.claim(explain, 500);
      await deliveryRepo.claimHeld(explain, 500);
      // A held claim made after another's rows starts there in the due index.
      await deliveryRepo.claimHeld(explain, 500, { after: { at: new Date().toISOString(), seq: 1 } });
      // A claim that leaves a stalled origin out.
      await deliveryRepo.claim(explain, 500, { stalled: ["127.0.0.1:9"] });
      // A full batch of outcomes, one of them a retry (so the push-back statement runs too).
      const ids = await db.query<Parameters<typeof outcome>[0]>(
        `select id, ctid::text as tid, message_id, parent_session_id, url, seq, tries from webhook_deliveries
          where id = any($1) order by seq`,
        [Array.from({ length: 500 }, (_, i) => `dlv_old_${15001 + i}`)],
      );
      await deliveryRepo.record(explain, [
        ...ids.slice(0, 499).map((d) => outcome(d, "succeeded")),
        outcome(ids[499]!, "retrying"),
      ]);
      // A held claim's first successes: one TID probe per row. (Explained, not run: it finds no
      // row updated, and says so.)
      const held = await db.query<Parameters<typeof outcome>[0]>(
        `select id, ctid::text as tid, message_id, parent_session_id, url, seq, tries from webhook_deliveries
          where id = any($1) order by seq`,
        [Array.from({ length: 500 }, (_, i) => `dlv_old_${15501 + i}`)],
      );
      await expect(
        deliveryRepo.recordHeld(
          explain,
          held.map((d) => outcome(d, "succeeded", { held: true, sequence: 1 })),
        ),
      ).rejects.toThrow("0 of 500 held rows updated");
      // A worker taking its leases back after an outage: the due rows only.
      await deliveryRepo.releaseOwnLeases(explain, 1, ["dlv_old_15001"]);
    });
    expect(plans).toHaveLength(8);
    for (const plan of plans) {
      expect(seqScanned(plan)).not.toContain("webhook_deliveries");
    }
    const due = planNodes(plans[2]!).find((n) => n["Index Name"] === "webhook_deliveries_due");
    expect(due?.["Index Cond"]).toMatch(/ROW\(next_attempt_at, seq\) > ROW\(/);
    const probe = planNodes(plans[6]!).find((n) => n["Node Type"] === "Tid Scan");
    expect(probe?.["TID Cond"]).toMatch(/^\((ctid = r.tid|r.tid = ctid)\)$/);
  });
});
