/**
 * The crash test, on PostgreSQL: a burst of refunds through `POST /v1/operations` on `svc serve`
 * in its own process, each with its own Idempotency-Key, the process killed with SIGKILL in the
 * middle of it, restarted on the same database, and every key sent before the kill retried as a
 * client would (waiting out `idempotency_key_in_use`). Once the restarted service has settled
 * what the dead one left (a retry or the reservation sweep, whichever first, for children caught
 * between reservation and finish; the lease for deliveries caught mid-attempt): every key ends
 * with exactly one refund, in svc and in the gateway's ledger, and an answer already given is
 * replayed byte for byte; every committed child has exactly one webhook message, delivered; no
 * webhook names an operation that did not commit; refunds never exceed a parent's amount.
 *
 * Everything runs for real on loopback: the sandbox gateway and the merchant's receiver live in
 * the test process (so they survive the crash), the service in its own process group.
 */
import { afterAll, describe, expect, it } from "vitest";
import { openPostgres, type Db } from "../../packages/service/src/db/client.js";
import {
  type SandboxGateway,
  startSandboxGateway,
} from "../../packages/service/src/gateways/sandbox/server.js";
import { freePort } from "../support/free-port.js";
import { api, apiKey, createMerchant, type TestMerchant } from "../support/merchant.js";
import { paidParent, sandboxLedger } from "../support/payments.js";
import { type ReceivedRequest, type Receiver, startReceiver } from "../support/receiver.js";
import { pollUntil, type ServeProcess, startServe } from "../support/serve.js";
import { ADMIN_TOKEN, GATEWAY_SECRET } from "../support/stack.js";
import { freshPostgresUrl } from "../support/stores.js";
import { configureWebhooks } from "../support/webhooks.js";

const POSTGRES = Boolean(process.env.SVC_TEST_DATABASE_URL);

const PARENTS = 8;
/** Minor units (KWD has 3 decimals): 1.300 KWD per parent, refunds of 0.010: room for 1,040. */
const PARENT_AMOUNT = "1.300";
const PARENT_MINOR = 1300;
const REFUND_AMOUNT = "0.010";
const REFUND_MINOR = 10;
/**
 * 150 per parent: 1.500 asked of 1.300, so the totals rule is exercised too (409 past the amount),
 * and every parent fills up even if up to 20 of its requests were cut by the kill uncommitted.
 */
const REQUESTS = 1200;
/** The figure: a burst of at least this many committed operations. */
const MIN_COMMITTED = 1000;
const IN_FLIGHT = 50;
/** The kill comes once this share of the burst has been answered. */
const KILL_AFTER = 0.4;
/** Bound on the restarted service settling: delivery lease (1 s timeout + 30 s) and sweep (2 s). */
const SETTLE_TIMEOUT_MS = 90_000;

interface Outcome {
  index: number;
  parent: string;
  phase: "before-kill" | "after-restart" | "retry";
  status?: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response JSON, read field by field
  json?: any;
  text?: string;
  replayed?: boolean;
  error?: string;
}

/** A retry of a key still held by a request is 409 idempotency_key_in_use: wait and retry, as a client would. */
const IN_USE_RETRY_MS = 250;
const IN_USE_RETRIES = 80;

interface ChildRow {
  session_id: string;
  parent_session_id: string;
  state: string;
  amount_minor: number;
  reference_number: string;
}

describe.skipIf(!POSTGRES)("svc serve killed with SIGKILL during a burst of operations (PostgreSQL)", () => {
  let gateway: SandboxGateway | undefined;
  let receiver: Receiver | undefined;
  let db: Db | undefined;
  const services: ServeProcess[] = [];

  afterAll(async () => {
    for (const s of services) await s.stop();
    await db?.close();
    await receiver?.close();
    await gateway?.close();
  });

  it("every key ends with exactly one refund, in svc and the gateway, with its webhook; none for an operation that did not commit", async () => {
    gateway = await startSandboxGateway({
      port: 0,
      notificationSecret: GATEWAY_SECRET,
      notificationRetryDelaysMs: [50, 100, 200],
    });
    receiver = await startReceiver();
    const databaseUrl = await freshPostgresUrl();
    const port = await freePort();
    const service = { url: `http://127.0.0.1:${port}` };
    const env = {
      SVC_DATABASE_URL: databaseUrl,
      SVC_PORT: String(port),
      SVC_HOST: "127.0.0.1",
      SVC_PUBLIC_URL: service.url,
      SVC_GATEWAY_URL: gateway.url,
      SVC_GATEWAY_SECRET: GATEWAY_SECRET,
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      SVC_WEBHOOK_ALLOW_PRIVATE: "true",
      SVC_LOG_LEVEL: "warn",
      // One key from one address at test speed: far past a client's limits, which are tested apart.
      SVC_RATE_LIMIT_PER_ADDRESS: "0",
      SVC_RATE_LIMIT_PER_CREDENTIAL: "0",
      SVC_RESERVATION_TIMEOUT_SECONDS: "2",
      // The keys of requests the kill cut are taken over after this (60 s by default).
      SVC_IDEMPOTENCY_LEASE_SECONDS: "2",
    };
    const first = await startServe(env);
    services.push(first);

    const m: TestMerchant = await createMerchant(service);
    await configureWebhooks(service, m, {
      enabled: true,
      operations_webhook_url: `${receiver.url}/ops`,
      notify_api_initiated: true,
      // The minimum timeout keeps the lease of deliveries the dead process held short (1 s + 30 s).
      timeout_seconds: 1,
      retry_schedule_seconds: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    });
    const parents: string[] = [];
    for (let i = 0; i < PARENTS; i++)
      parents.push((await paidParent(service, m, "sandbox", { amount: PARENT_AMOUNT })).session_id);

    // The burst: IN_FLIGHT lanes take the next refund of the plan; the kill stops the lanes, and
    // whatever was not sent yet goes to the restarted service.
    const outcomes: Outcome[] = [];
    let next = 0;
    let answered = 0;
    let killed = false;
    const send = async (index: number, phase: Outcome["phase"]) => {
      const parent = parents[index % PARENTS]!;
      const outcome: Outcome = { index, parent, phase };
      if (phase !== "retry") outcomes.push(outcome);
      try {
        for (let tries = 0; ; tries++) {
          const r = await api(service, "POST", "/v1/operations", {
            auth: apiKey(m.privateKey),
            body: { operation: "refund", session_id: parent, amount: REFUND_AMOUNT },
            headers: { "idempotency-key": `crash-refund-${index}` },
          });
          outcome.status = r.status;
          outcome.json = r.json;
          outcome.text = r.text;
          outcome.replayed = r.headers.get("idempotent-replayed") === "true";
          if (r.json?.code !== "idempotency_key_in_use" || tries >= IN_USE_RETRIES) break;
          await new Promise((resolve) => setTimeout(resolve, IN_USE_RETRY_MS));
        }
      } catch (error) {
        outcome.error = String((error as Error).cause ?? error);
      }
      return outcome;
    };
    let killedAt = 0;
    const lane = async () => {
      while (!killed && next < REQUESTS) {
        const outcome = await send(next++, "before-kill");
        if (outcome.status !== undefined && !killed && ++answered >= REQUESTS * KILL_AFTER) {
          killed = true;
          killedAt = Date.now();
          first.kill("SIGKILL");
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    await first.exited;
    // Answers that arrived after the kill signal but were already on the wire count as answered:
    // the service had decided them, so they are held to the same promise.
    const beforeKill = outcomes.filter((o) => o.phase === "before-kill");
    const connectionErrors = beforeKill.filter((o) => o.status === undefined);
    db = await openPostgres(databaseUrl, 2);
    const atKill = await db.query<{ pending_children: number; open_deliveries: number }>(
      `select (select count(*)::int from operations where state like '%\\_pending') as pending_children,
              (select count(*)::int from webhook_deliveries where status in ('pending', 'retrying')) as open_deliveries`,
    );
    console.log(
      `crash: killed after ${answered} answers, ${beforeKill.length} sent, ${connectionErrors.length} cut by the kill; ` +
        `at the kill ${atKill[0]!.pending_children} children pending, ${atKill[0]!.open_deliveries} deliveries open`,
    );
    // The kill must land in the middle of the burst: requests in flight were cut.
    expect(connectionErrors.length).toBeGreaterThan(0);
    expect(next).toBeLessThan(REQUESTS);

    const second = await startServe(env);
    services.push(second);
    const restartedAt = Date.now();
    // Every key sent before the kill is retried (answered or cut), beside the rest of the burst.
    const retries: Outcome[] = [];
    const plan: [number, Outcome["phase"]][] = [
      ...beforeKill.map((o): [number, Outcome["phase"]] => [o.index, "retry"]),
      ...Array.from({ length: REQUESTS - next }, (_, i): [number, Outcome["phase"]] => [
        next + i,
        "after-restart",
      ]),
    ];
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let item = plan.shift(); item !== undefined; item = plan.shift()) {
          const outcome = await send(item[0], item[1]);
          if (item[1] === "retry") retries.push(outcome);
        }
      }),
    );
    expect(outcomes).toHaveLength(REQUESTS);
    expect(retries).toHaveLength(beforeKill.length);
    // The restarted service answers every request and every retry (a refund or the totals rule's 409).
    const finalByIndex = new Map<number, Outcome>();
    for (const o of outcomes) if (o.phase === "after-restart") finalByIndex.set(o.index, o);
    for (const o of retries) finalByIndex.set(o.index, o);
    expect(finalByIndex.size).toBe(REQUESTS);
    expect([...finalByIndex.values()].filter((o) => o.status === undefined).map((o) => o.error)).toEqual([]);
    for (const o of [...outcomes, ...retries].filter((o) => o.status !== undefined))
      expect([200, 409], `request ${o.index} (${o.phase}): ${o.text}`).toContain(o.status);
    for (const o of [...outcomes, ...retries].filter((o) => o.status === 409))
      expect(o.json?.code, o.text).toBe("amount_exceeds_refundable");
    // An answer given before the kill is the answer the retry gets, byte for byte.
    const firstByIndex = new Map(beforeKill.filter((o) => o.status !== undefined).map((o) => [o.index, o]));
    for (const retry of retries) {
      const first = firstByIndex.get(retry.index);
      if (!first) continue;
      expect.soft(retry.replayed, `retry of answered key ${retry.index}`).toBe(true);
      expect.soft(retry.text, `retry of answered key ${retry.index}`).toBe(first.text);
    }
    console.log(
      `crash: retried ${retries.length} keys: ${retries.filter((o) => o.replayed).length} replayed, ` +
        `${retries.filter((o) => !o.replayed && o.status === 200).length} recovered or performed as refunds`,
    );

    // Settled: no child left reserved, no delivery left to do (the dead process's leases expire).
    const settled = await pollUntil(
      "no child pending and no delivery pending or retrying",
      async () => {
        const [row] = await db!.query<{ pending: number; open: number }>(
          `select (select count(*)::int from operations where state like '%\\_pending') as pending,
                  (select count(*)::int from webhook_deliveries where status in ('pending', 'retrying')) as open`,
        );
        return row!.pending === 0 && row!.open === 0 ? true : undefined;
      },
      SETTLE_TIMEOUT_MS,
      500,
    ).catch((error: Error) => error);
    console.log(
      `crash: settled ${settled === true ? "" : "NOT "}within ${Date.now() - restartedAt} ms of the restart`,
    );
    const stillPending = await db.query<ChildRow>(
      `select session_id, state from operations where state like '%\\_pending' order by session_id`,
    );
    expect.soft(stillPending, "children still reserved after the sweep's time").toEqual([]);
    const openDeliveries = await db.query(
      `select id, status, tries, last_error from webhook_deliveries where status in ('pending', 'retrying')`,
    );
    expect.soft(openDeliveries, "deliveries still to do").toEqual([]);

    const children = await db.query<ChildRow>(
      `select session_id, parent_session_id, state, amount_minor, reference_number from operations
        where merchant_id = $1 order by created_at`,
      [m.id],
    );
    const childById = new Map(children.map((c) => [c.session_id, c]));
    const messages = await db.query<{
      id: string;
      child_session_id: string;
      reference_number: string;
      result: string;
    }>(
      `select id, child_session_id, reference_number, result from webhook_messages where merchant_id = $1 and kind = 'operation'`,
      [m.id],
    );
    const deliveries = await db.query<{ message_id: string; url: string; status: string }>(
      `select message_id, url, status from webhook_deliveries where merchant_id = $1`,
      [m.id],
    );
    const received = receiver.requests.filter((r) => r.path === "/ops");
    const receivedByChild = new Map<string, ReceivedRequest[]>();
    for (const r of received) {
      const child = String(r.json?.txn?.session_id);
      receivedByChild.set(child, [...(receivedByChild.get(child) ?? []), r]);
    }
    console.log(
      `crash: ${children.length} children, ${messages.length} messages, ${received.length} webhook requests received ` +
        `(${new Set(received.map((r) => r.headers["webhook-id"])).size} distinct)`,
    );

    // Every child is final (a sandbox refund is real-time) and has exactly one message, delivered
    // once to the one destination, whose payload names it field by field.
    const sum = new Map<string, number>();
    for (const c of children) {
      sum.set(c.parent_session_id, (sum.get(c.parent_session_id) ?? 0) + Number(c.amount_minor));
      expect.soft(c.state, c.session_id).toBe("refunded");
      expect.soft(Number(c.amount_minor), c.session_id).toBe(REFUND_MINOR);
      const got = receivedByChild.get(c.session_id) ?? [];
      const ids = [...new Set(got.map((r) => r.headers["webhook-id"]))];
      expect
        .soft(ids, `distinct webhook-ids received for child ${c.session_id} (${c.state})`)
        .toHaveLength(1);
      for (const r of got) {
        expect.soft(r.body, "the same webhook-id carries the same body").toBe(got[0]!.body);
        expect.soft(r.json).toMatchObject({
          operation: "refund",
          result: "success",
          success: true,
          session_id: c.parent_session_id,
          reference_number: c.reference_number,
          amount: REFUND_AMOUNT,
          source: "input",
          txn: { session_id: c.session_id, state: "refunded", amount: REFUND_AMOUNT, currency_code: "KWD" },
        });
        expect.soft(r.json.initiator, "a private key has no initiator").toBeUndefined();
      }
      const own = messages.filter((msg) => msg.child_session_id === c.session_id);
      expect.soft(own.map((msg) => msg.reference_number)).toEqual([c.reference_number]);
      expect.soft(ids).toEqual(own.map((msg) => msg.id));
      expect
        .soft(deliveries.filter((d) => d.message_id === own[0]?.id).map((d) => [d.url, d.status]))
        .toEqual([[`${receiver.url}/ops`, "succeeded"]]);
    }
    // Every webhook received belongs to a child that committed (none for an operation that did not).
    const strangers = received.filter((r) => {
      const child = childById.get(String(r.json?.txn?.session_id));
      return !child || child.reference_number !== r.json?.reference_number;
    });
    expect(
      strangers.map((r) => r.body),
      "webhooks for operations that did not commit",
    ).toEqual([]);
    expect.soft(messages.length, "one message per child").toBe(children.length);
    // Sequence numbers survive the kill: per parent, the numbers received are exactly 1..n, n its
    // committed children (each has one message) — no gap across the kill, the retries and the restart.
    const sequences = new Map<string, Set<number>>();
    for (const r of received) {
      const parent = String(r.json?.session_id);
      if (!sequences.has(parent)) sequences.set(parent, new Set());
      sequences.get(parent)!.add(Number(r.headers["svc-sequence"]));
    }
    for (const parent of new Set(children.map((c) => c.parent_session_id))) {
      const n = children.filter((c) => c.parent_session_id === parent).length;
      expect
        .soft(
          [...(sequences.get(parent) ?? [])].sort((a, b) => a - b),
          `svc-sequence numbers of ${parent}`,
        )
        .toEqual(Array.from({ length: n }, (_, i) => i + 1));
    }

    // Every key ends with exactly one refund: its final answer names a child no other key names,
    // and every child is some key's.
    const finals = [...finalByIndex.values()];
    const succeeded = finals.filter((o) => o.status === 200);
    const childOfKey = succeeded.map((o) => o.json.txn.session_id as string);
    expect(new Set(childOfKey).size, "a child named by two keys").toBe(childOfKey.length);
    expect([...childOfKey].sort(), "the children are exactly the keys' refunds").toEqual(
      children.map((c) => c.session_id).sort(),
    );
    // Every refund answered 200 has its child and its webhook.
    for (const o of succeeded) {
      const child = childById.get(o.json.txn.session_id);
      expect.soft(child, `child of the request ${o.index} answered 200`).toMatchObject({
        parent_session_id: o.parent,
        reference_number: o.json.reference_number,
      });
      expect
        .soft(receivedByChild.get(o.json.txn.session_id)?.length ?? 0, `webhook of request ${o.index}`)
        .toBeGreaterThan(0);
    }

    // The gateway's own record agrees: every refund it did has its child (same reference_number),
    // and no child exists that the gateway did not do.
    for (const parent of parents) {
      const done = (await sandboxLedger({ gatewayUrl: gateway.url }, parent))
        .filter((op) => op.status === "success")
        .map((op) => op.reference_number)
        .sort();
      const ours = children
        .filter((c) => c.parent_session_id === parent)
        .map((c) => c.reference_number)
        .sort();
      expect.soft(done, `refunds of ${parent}: the gateway's versus the children`).toEqual(ours);
    }

    // Totals: never more than the parent's amount, and the Payment Status API says the same.
    for (const parent of parents) {
      expect(sum.get(parent) ?? 0).toBeLessThanOrEqual(PARENT_MINOR);
      const status = await api(service, "GET", `/v1/payments/${parent}`, { auth: apiKey(m.privateKey) });
      expect(status.status).toBe(200);
      expect
        .soft(status.json.refunded_amount, `refunded_amount of ${parent}`)
        .toBe(((sum.get(parent) ?? 0) / 1000).toFixed(3));
    }
    // The plan asks 1.500 of each 1.300 parent: with the restart's share, parents fill up, so the
    // burst committed at least MIN_COMMITTED operations around the kill.
    expect(finals.some((o) => o.status === 409)).toBe(true);
    expect(children.length).toBeGreaterThanOrEqual(MIN_COMMITTED);
    console.log(`crash: test body took ${Date.now() - killedAt} ms after the kill`);
  }, 240_000);
});
