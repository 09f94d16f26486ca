/**
 * Issue 3, on PostgreSQL: two delivery worker processes (`svc serve` with SVC_ROLE=worker) and
 * an API process (SVC_ROLE=api) on one database. No message is attempted by both workers at once
 * (the receiver sees which process each attempt comes from, and when each starts and ends), each
 * delivery succeeds once; then a worker is killed with SIGKILL while the receiver holds its
 * attempts open, and the other worker takes those messages over — after the lease, not before.
 *
 * The lease is the delivery timeout + 30 s (docs/webhooks.md, Delivery). The timeout here is 5 s,
 * not the minimum 1 s: the kill must land while the attempt is still open, before the worker's
 * own timeout would end it, and a loaded machine can take a second to get there. So the test
 * waits ~35 s for the takeover and runs for about a minute and a half.
 */
import { afterAll, describe, expect, it } from "vitest";
import { openPostgres, type Db } from "../../packages/service/src/db/client.js";
import {
  type SandboxGateway,
  startSandboxGateway,
} from "../../packages/service/src/gateways/sandbox/server.js";
import { LEASE_MARGIN_SECONDS } from "../../packages/service/src/webhooks/delivery.repo.js";
import { freePort } from "../support/free-port.js";
import { api, apiKey, createMerchant } from "../support/merchant.js";
import { paidParent } from "../support/payments.js";
import { type ReceivedRequest, type Receiver, startReceiver } from "../support/receiver.js";
import { pollUntil, type ServeProcess, startServe } from "../support/serve.js";
import { connectionOwner, pidsOfGroup } from "../support/sockets.js";
import { ADMIN_TOKEN, GATEWAY_SECRET } from "../support/stack.js";
import { freshPostgresUrl } from "../support/stores.js";
import { configureWebhooks } from "../support/webhooks.js";

const POSTGRES = Boolean(process.env.SVC_TEST_DATABASE_URL);

/** Deliveries of one (URL, parent) go one at a time, so many parents keep both workers busy. */
const PARENTS = 40;
const REFUNDS_PER_PARENT = 6; // 240 messages in the first phase
const TIMEOUT_SECONDS = 5;
const LEASE_MS = (TIMEOUT_SECONDS + LEASE_MARGIN_SECONDS) * 1000;
/** A claim happens a moment before its request reaches the receiver; this much is allowed for it. */
const CLAIM_TO_RECEIPT_SLACK_MS = 3_000;

type Worker = "A" | "B";

describe.skipIf(!POSTGRES)("two delivery worker processes on one PostgreSQL", () => {
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

  it("never attempt one message at once; a killed worker's message is taken over after the lease", async () => {
    gateway = await startSandboxGateway({ port: 0, notificationSecret: GATEWAY_SECRET });
    const rec = (receiver = await startReceiver());
    const receiverPort = Number(new URL(rec.url).port);
    const databaseUrl = await freshPostgresUrl();
    const apiPort = await freePort();
    const service = { url: `http://127.0.0.1:${apiPort}` };
    const env = {
      SVC_DATABASE_URL: databaseUrl,
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
    };
    // The API process first: it migrates the database before the workers open it.
    services.push(await startServe({ ...env, SVC_ROLE: "api", SVC_PORT: String(apiPort) }));
    const workers = {} as Record<Worker, ServeProcess>;
    for (const name of ["A", "B"] as const) {
      workers[name] = await startServe({ ...env, SVC_ROLE: "worker", SVC_PORT: String(await freePort()) });
      services.push(workers[name]);
    }
    const groups = { A: workers.A.child.pid!, B: workers.B.child.pid! };

    // Which worker each attempt came from: the process holding the client end of its connection.
    const byPort = new Map<number, Worker | undefined>();
    const workerOf = new Map<ReceivedRequest, Worker | undefined>();
    const identify = (req: ReceivedRequest) => {
      const port = req.remotePort!;
      // Only a found owner is remembered: a lookup that missed (/proc read while the kernel was
      // updating it, seen once in CI under load) is tried again, here and on the next request.
      let owner = byPort.get(port);
      for (let i = 0; !owner && i < 3; i++)
        owner = connectionOwner(port, receiverPort, groups) as Worker | undefined;
      if (owner) byPort.set(port, owner);
      workerOf.set(req, owner);
    };
    // Phase 1: every attempt held open 0–150 ms, so two attempts of one message would overlap.
    rec.respond = (req) => {
      identify(req);
      return { status: 200, delayMs: Math.floor(Math.random() * 150) };
    };

    const m = await createMerchant(service);
    await configureWebhooks(service, m, {
      operations_webhook_url: `${rec.url}/ops`,
      notify_api_initiated: true,
      timeout_seconds: TIMEOUT_SECONDS,
      retry_schedule_seconds: [1, 1, 1, 1, 1],
    });
    const parents: string[] = [];
    for (let i = 0; i < PARENTS; i++) parents.push((await paidParent(service, m, "sandbox")).session_id);
    const refund = async (parent: string) => {
      const r = await api(service, "POST", "/v1/operations", {
        auth: apiKey(m.privateKey),
        body: { operation: "refund", session_id: parent, amount: "0.010" },
      });
      expect(r.status, r.text).toBe(200);
      return r.json.reference_number as string;
    };
    const plan = parents.flatMap((p) => Array.from({ length: REFUNDS_PER_PARENT }, () => p));
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let p = plan.shift(); p !== undefined; p = plan.shift()) await refund(p);
      }),
    );
    const phase1 = PARENTS * REFUNDS_PER_PARENT;
    const db_ = (db = await openPostgres(databaseUrl, 2));
    const undelivered = () =>
      db_
        .query<{ n: number }>(
          "select count(*)::int as n from webhook_deliveries where status in ('pending', 'retrying')",
        )
        .then(([row]) => row!.n);
    await pollUntil(
      "phase 1 delivered",
      async () => ((await undelivered()) === 0 ? true : undefined),
      60_000,
    );

    const phase1Requests = rec.requests.filter((r) => r.path === "/ops");
    const phase1Ids = new Set(phase1Requests.map((r) => String(r.headers["webhook-id"])));
    expect(phase1Ids.size).toBe(phase1);
    // Both processes delivered, and every attempt is attributed to one of them.
    const unattributed = phase1Requests.filter((r) => !workerOf.get(r));
    expect(unattributed.length, "attempts from no known worker process").toBe(0);
    const share = { A: 0, B: 0 };
    for (const r of phase1Requests) share[workerOf.get(r)!]++;
    console.log(`workers: phase 1 attempts by A ${share.A}, by B ${share.B}`);
    expect(share.A).toBeGreaterThan(0);
    expect(share.B).toBeGreaterThan(0);
    // Each delivery succeeded, with exactly one successful attempt recorded.
    const deliveries = await db_.query<{ message_id: string; status: string; ok: number }>(
      `select d.message_id, d.status,
              (select count(*)::int from webhook_delivery_attempts a
                where a.delivery_id = d.id and a.status_code between 200 and 299) as ok
         from webhook_deliveries d`,
    );
    expect(deliveries).toHaveLength(phase1);
    expect(deliveries.filter((d) => d.status !== "succeeded" || d.ok !== 1)).toEqual([]);
    expect(new Set(deliveries.map((d) => d.message_id))).toEqual(phase1Ids);

    // Phase 2: the receiver holds every new attempt open. As soon as one is held, the worker
    // holding it is killed; the other worker's held attempts are then answered.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const killed: { worker?: Worker } = {};
    // The attempts told to wait. Not "started before the kill": the receiver answers once a body
    // is read, so an attempt whose headers came before the kill can be answered at once after it.
    const heldByReceiver = new Set<ReceivedRequest>();
    rec.respond = (req) => {
      identify(req);
      if (killed.worker) return { status: 200 };
      heldByReceiver.add(req);
      return { status: 200, until: held };
    };
    const before = rec.requests.length;
    // Not awaited yet: the first held attempt must be found (and its worker killed) well within
    // the worker's own timeout, while later refunds are still being answered.
    const phase2Answers = Promise.all(parents.map((p) => refund(p)));
    const first = await pollUntil(
      "an attempt held by a worker",
      async () => rec.requests.slice(before).find((r) => workerOf.get(r)),
      20_000,
      5,
    );
    // A few more held attempts make a stronger case (bounded: the worker's timeout is running).
    await pollUntil(
      "more held attempts",
      async () => (rec.requests.length - before >= 10 ? true : undefined),
      1_000,
      5,
    ).catch(() => undefined);
    const victim = (killed.worker = workerOf.get(first)!);
    const survivor: Worker = victim === "A" ? "B" : "A";
    workers[victim].kill("SIGKILL");
    await workers[victim].exited;
    await pollUntil(
      "every process of the victim's group to be gone",
      async () => (pidsOfGroup(groups[victim]).length === 0 ? true : undefined),
      10_000,
      5,
    );
    const victimGoneAt = Date.now();
    const RECEIVER_READ_SLACK_MS = 200;
    // The attempts the victim held end only by its connections closing under them.
    await pollUntil(
      "the victim's held attempts to end",
      async () =>
        rec.requests
          .slice(before)
          .filter((r) => workerOf.get(r) === victim)
          .every((r) => r.finishedAt !== undefined)
          ? true
          : undefined,
      10_000,
      50,
    );
    // Only now the survivor's held attempts are answered (before, an answer could race the close).
    release();
    const phase2Refs = await phase2Answers;
    const victimAttempts = rec.requests
      .slice(before)
      .filter((r) => workerOf.get(r) === victim && heldByReceiver.has(r));
    console.log(
      `workers: killed ${victim} holding ${victimAttempts.length} attempt(s); ` +
        `${rec.requests.slice(before).length} phase 2 attempts so far`,
    );
    expect(victimAttempts.length).toBeGreaterThan(0);
    for (const r of victimAttempts) expect(r.aborted, "the victim's attempt was cut by the kill").toBe(true);

    // Everything of phase 2 is delivered: the victim's messages by the survivor, after the lease.
    await pollUntil(
      "phase 2 delivered",
      async () => ((await undelivered()) === 0 ? true : undefined),
      LEASE_MS + 30_000,
      250,
    );
    const tookOverAfterMs: number[] = [];
    for (const attempt of victimAttempts) {
      const id = attempt.headers["webhook-id"];
      const later = rec.requests.filter(
        (r) => r.headers["webhook-id"] === id && r.startedAt > attempt.startedAt,
      );
      expect(later.length, `message ${String(id)} taken over`).toBeGreaterThan(0);
      expect(workerOf.get(later[0]!)).toBe(survivor);
      expect(later[0]!.aborted).toBe(false);
      expect(later[0]!.body).toBe(attempt.body);
      tookOverAfterMs.push(later[0]!.startedAt - attempt.startedAt);
    }
    console.log(
      `workers: taken over ${tookOverAfterMs.map((ms) => `${ms} ms`).join(", ")} after the cut attempt`,
    );
    for (const ms of tookOverAfterMs) expect(ms).toBeGreaterThanOrEqual(LEASE_MS - CLAIM_TO_RECEIPT_SLACK_MS);
    // The API's answers and the webhooks agree: one message per phase 2 refund, each delivered.
    const phase2 = await db_.query<{ reference_number: string; status: string; tries: number; ok: number }>(
      `select m.reference_number, d.status, d.tries,
              (select count(*)::int from webhook_delivery_attempts a
                where a.delivery_id = d.id and a.status_code between 200 and 299) as ok
         from webhook_messages m join webhook_deliveries d on d.message_id = m.id
        where m.reference_number = any($1::text[])`,
      [phase2Refs],
    );
    expect(phase2.map((d) => d.reference_number).sort()).toEqual([...phase2Refs].sort());
    expect(phase2.filter((d) => d.status !== "succeeded" || d.ok !== 1)).toEqual([]);
    const victimRefs = new Set(victimAttempts.map((r) => r.json.reference_number as string));
    // The killed attempt counted as a try (the claim counts it), the takeover is the second.
    for (const d of phase2.filter((d) => victimRefs.has(d.reference_number))) expect(d.tries).toBe(2);

    // Over both phases: no two attempts of one message were ever open at the same time, and
    // every attempt came from a known worker process.
    const attempts = rec.requests.filter((r) => r.path === "/ops");
    // An attempt the victim sent just before the kill can reach the receiver after it: its socket
    // is gone by the time it is looked up, so it has no owner. Such an attempt began before the
    // victim's processes were all gone, and its message was attempted again later by the survivor
    // (the victim never recorded it). Seen in CI: one answered 200 into the closed socket.
    const orphans = attempts.filter((r) => !workerOf.get(r));
    if (orphans.length)
      console.log(`workers: ${orphans.length} attempt(s) reached the receiver after their sender died`);
    for (const r of orphans) {
      // The receiver stamps a request when its event loop reads it: bytes the victim wrote just
      // before it died may be read a few milliseconds after it was gone on a busy machine (seen:
      // 6 ms), never later than that slack.
      expect(r.startedAt, "an attempt from no known worker, after the kill").toBeLessThanOrEqual(
        victimGoneAt + RECEIVER_READ_SLACK_MS,
      );
      const later = attempts.filter(
        (x) => x.headers["webhook-id"] === r.headers["webhook-id"] && x.startedAt > r.startedAt,
      );
      expect(later.length, "an ownerless attempt's message is attempted again").toBeGreaterThan(0);
      expect(workerOf.get(later[0]!)).toBe(survivor);
      expect(later[0]!.startedAt - r.startedAt).toBeGreaterThanOrEqual(LEASE_MS - CLAIM_TO_RECEIPT_SLACK_MS);
    }
    const byId = new Map<string, ReceivedRequest[]>();
    for (const r of attempts) {
      const id = String(r.headers["webhook-id"]);
      byId.set(id, [...(byId.get(id) ?? []), r]);
    }
    expect(byId.size).toBe(phase1 + PARENTS);
    const overlaps: string[] = [];
    for (const [id, list] of byId) {
      const sorted = [...list].sort((a, b) => a.startedAt - b.startedAt);
      for (let i = 1; i < sorted.length; i++) {
        const prev = sorted[i - 1]!;
        if (prev.finishedAt === undefined || sorted[i]!.startedAt < prev.finishedAt)
          overlaps.push(
            `${id}: ${workerOf.get(prev)} ${prev.startedAt}–${prev.finishedAt} and ${workerOf.get(sorted[i]!)} from ${sorted[i]!.startedAt}`,
          );
      }
    }
    expect(overlaps).toEqual([]);
  }, 240_000);
});
