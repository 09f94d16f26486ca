/**
 * The fault suite (issue 24, item 5; docs/operations.md, "The fault suite"): svc as production
 * runs it — two `svc serve` API processes and a delivery worker on one PostgreSQL — under a
 * retrying client, while the database crashes and comes back, an API process is killed with
 * SIGKILL and started again, and the database freezes (SIGSTOP: sockets open, nothing answers)
 * and thaws. Afterwards: no process exited by itself, no 500, no request over 35 s, /readyz 503
 * and /healthz 200 during each outage, refunds again within 5 s of each recovery, svc's books equal
 * the sandbox gateway's ledger, and every refund's webhook arrived (repeats only under the same
 * webhook-id, at least once), none for an operation that does not exist.
 *
 * The cluster is this suite's own (never the shared test cluster), durable like production: a
 * crash loses no committed refund, only the delivery worker's last unflushed claims and outcomes
 * (docs/webhooks.md, Delivery), whose deliveries are sent again. Everything runs on loopback; the
 * sandbox gateway, the receiver and the client live in the test process. Its own vitest config
 * (vitest.faults.config.ts), run by `npm test` after the main suite and by `npm run test:faults`.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Db, openPostgres } from "../../packages/service/src/db/client.js";
import {
  type SandboxGateway,
  startSandboxGateway,
} from "../../packages/service/src/gateways/sandbox/server.js";
import { findPgBin, startPostgres } from "../../scripts/postgres.mjs";
import { auditOperationWebhooks, booksAgainstLedger, childrenOf } from "../support/books.js";
import { freePort } from "../support/free-port.js";
import { apiKey, createMerchant } from "../support/merchant.js";
import { paidParent } from "../support/payments.js";
import { crashPostmaster, postmasterPid } from "../support/postmaster.js";
import { type ProbeAnswer, type Probes, startProbes } from "../support/probes.js";
import { type Receiver, startReceiver } from "../support/receiver.js";
import { type RetryingClient, startRetryingClient } from "../support/retrying-client.js";
import { pollUntil, type ServeProcess, startServe } from "../support/serve.js";
import { ADMIN_TOKEN, GATEWAY_SECRET } from "../support/stack.js";
import { configureWebhooks } from "../support/webhooks.js";

const bin = findPgBin();
type Cluster = Awaited<ReturnType<typeof startPostgres>>;

const PARENTS = 20;
const PARENT_AMOUNT = "10.000";
/** 1,000 refunds of room per parent: the run never exhausts one, so every key should refund. */
const REFUND_AMOUNT = "0.010";
const LOOPS = 8;
const PAUSE_MS = 40;
const BACKOFF_MS = 250;
/**
 * Each fault comes during a surge of this many refunds, once a quarter of them were answered: the
 * rest are in flight, in every step of a refund, transactions open (as under production load).
 */
const SURGE = 48;
const SURGE_ANSWERED_SHARE = 0.25;
const SURGE_WAIT_MS = 3_000;
const WARM_UP_MS = 3_000;
const OUTAGE_MS = 6_000;
const BETWEEN_FAULTS_MS = 2_000;
const TAIL_MS = 3_000;
/** The acceptance's bounds. */
const MAX_REQUEST_MS = 35_000;
const MAX_RECOVERY_MS = 5_000;
/** The client gives up on an attempt after this: recorded as a stuck request. */
const ATTEMPT_TIMEOUT_MS = 40_000;
/** Below the defaults (5 s, 10 s), so a 6 s freeze runs into both and the suite stays short. */
const DB_CONNECT_TIMEOUT_MS = 1_000;
const DB_STATEMENT_TIMEOUT_MS = 1_500;
/**
 * How long a request may wait on a database that does not answer, as docs/operations.md puts it:
 * a connection within the connect timeout, a statement within the statement timeout and the
 * client's second of grace; then 503. Plus half a second for the test's own scheduling.
 */
const DB_WAIT_BOUND_MS = DB_CONNECT_TIMEOUT_MS + DB_STATEMENT_TIMEOUT_MS + 1_000 + 500;
/** A key whose request died (the kill) is taken over after this (60 s by default). */
const LEASE_SECONDS = 10;
const RESERVATION_TIMEOUT_SECONDS = 10;
/** Bound on the client's last keys after it stops. */
const CLIENT_STOP_BOUND_MS = 30_000;
/** Deliveries whose outcome a fault lost go again after their lease: timeout 1 s + 30 s. */
const SETTLE_TIMEOUT_MS = 60_000;
/** What a process prints when it dies of an error nobody handled. */
const CRASH_OUTPUT = /Emitted 'error' event|uncaught|unhandledRejection|Unhandled promise|"level":60/i;

interface SvcProcess {
  name: string;
  url: string;
  env: Record<string, string>;
  /** Every process started under this name, the current one last. */
  runs: ServeProcess[];
}

describe.runIf(bin)(
  "the fault suite: PostgreSQL crashed, restarted and frozen, an API process killed",
  () => {
    let cluster: Cluster | undefined;
    let gateway: SandboxGateway | undefined;
    let receiver: Receiver | undefined;
    let db: Db | undefined;
    let client: RetryingClient | undefined;
    let probes: Probes | undefined;
    const processes: SvcProcess[] = [];
    /** The runs this test ended itself (the SIGKILL, and the stop at the end). */
    const endedByTest = new Set<ServeProcess>();
    const exits: string[] = [];
    /** When each step of the timeline began (Date.now()), for the record a failure leaves. */
    const timeline: Record<string, number> = {};

    const run = async (p: SvcProcess) => {
      const serve = await startServe(p.env);
      p.runs.push(serve);
      void serve.exited.then(() => {
        if (!endedByTest.has(serve))
          exits.push(`${p.name} exited (code ${serve.child.exitCode}, signal ${serve.child.signalCode})`);
      });
    };

    afterAll(async () => {
      try {
        cluster?.thaw(); // a failed run may have left it frozen, the client's requests waiting
      } catch {
        // not running: nothing to thaw
      }
      await client?.stop(0);
      await probes?.stop();
      for (const p of processes)
        for (const serve of p.runs) {
          endedByTest.add(serve);
          await serve.stop();
        }
      // The processes' logs (warnings and errors), for whoever reads a failure.
      if (processes.length) {
        const dir = mkdtempSync(path.join(os.tmpdir(), "svc-faults-"));
        for (const p of processes)
          p.runs.forEach((serve, i) =>
            writeFileSync(path.join(dir, `${p.name}.${i + 1}.log`), serve.output()),
          );
        const record = { attempts: client?.attempts, probes: probes?.answers, timeline };
        writeFileSync(path.join(dir, "client.json"), JSON.stringify(record, null, 1));
        console.log(`faults: the processes' output is in ${dir}`);
      }
      await db?.close();
      await receiver?.close();
      await gateway?.close();
      cluster?.stop();
    });

    it("no process dies, no 500, no stuck request; probes, recovery, books and webhooks hold", async () => {
      const began = Date.now();
      cluster = await startPostgres(bin!, { durable: true });
      gateway = await startSandboxGateway({
        port: 0,
        notificationSecret: GATEWAY_SECRET,
        notificationRetryDelaysMs: [50, 100, 200],
      });
      receiver = await startReceiver();
      const common = {
        SVC_DATABASE_URL: cluster.url,
        SVC_HOST: "127.0.0.1",
        SVC_GATEWAY_URL: gateway.url,
        SVC_GATEWAY_SECRET: GATEWAY_SECRET,
        SVC_ADMIN_TOKEN: ADMIN_TOKEN,
        SVC_WEBHOOK_ALLOW_PRIVATE: "true",
        SVC_LOG_LEVEL: "warn",
        // One key from one address at test speed: far past a client's limits, which are tested apart.
        SVC_RATE_LIMIT_PER_ADDRESS: "0",
        SVC_RATE_LIMIT_PER_CREDENTIAL: "0",
        SVC_DB_CONNECT_TIMEOUT_MS: String(DB_CONNECT_TIMEOUT_MS),
        SVC_DB_STATEMENT_TIMEOUT_MS: String(DB_STATEMENT_TIMEOUT_MS),
        SVC_IDEMPOTENCY_LEASE_SECONDS: String(LEASE_SECONDS),
        SVC_RESERVATION_TIMEOUT_SECONDS: String(RESERVATION_TIMEOUT_SECONDS),
      };
      for (const [name, role] of [
        ["api-1", "api"],
        ["api-2", "api"],
        ["worker", "worker"],
      ] as const) {
        const port = await freePort();
        const url = `http://127.0.0.1:${port}`;
        processes.push({
          name,
          url,
          env: { ...common, SVC_ROLE: role, SVC_PORT: String(port), SVC_PUBLIC_URL: url },
          runs: [],
        });
      }
      const [api1, api2, worker] = processes as [SvcProcess, SvcProcess, SvcProcess];
      // The first process migrates the database before the others open it.
      await run(api1);
      await Promise.all([run(api2), run(worker)]);

      const m = await createMerchant(api1);
      await configureWebhooks(api1, m, {
        operations_webhook_url: `${receiver.url}/ops`,
        notify_api_initiated: true,
        // The minimum: deliveries whose outcome a fault lost are sent again after 1 s + 30 s.
        timeout_seconds: 1,
        retry_schedule_seconds: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
      });
      const parents = await Promise.all(
        Array.from({ length: PARENTS }, async (_, i) => {
          const service = i % 2 ? api2 : api1;
          return (await paidParent(service, m, "sandbox", { amount: PARENT_AMOUNT })).session_id;
        }),
      );
      const store = (db = await openPostgres(cluster.url, 2));
      const postmaster = await postmasterPid(store);
      const setupMs = Date.now() - began;

      probes = startProbes(() => Object.fromEntries(processes.map((p) => [p.name, p.url])), {
        intervalMs: 250,
        timeoutMs: 5_000,
      });
      const c = (client = startRetryingClient({
        targets: [api1.url, api2.url],
        auth: apiKey(m.privateKey),
        parents,
        amount: REFUND_AMOUNT,
        loops: LOOPS,
        pauseMs: PAUSE_MS,
        backoffMs: BACKOFF_MS,
        attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
        keyPrefix: `faults-${Date.now()}`,
      }));
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const t0 = (timeline.t0 = Date.now());
      await sleep(WARM_UP_MS);
      const warmUpRefunds = c.outcomes.filter((o) => o.status === 200).length;

      // PostgreSQL crashes (immediate shutdown: its processes exit at once, connections are cut),
      // stays down for 6 s and starts again (recovery from its WAL).
      await c.burst(SURGE, SURGE_ANSWERED_SHARE, SURGE_WAIT_MS);
      const crashAt = (timeline.crashAt = Date.now());
      await crashPostmaster(postmaster);
      await sleep(OUTAGE_MS);
      // pg_ctl start blocks this process (the client and the probes pause) until the server is up.
      const restartingAt = (timeline.restartingAt = Date.now());
      cluster.start();
      const crashBackAt = (timeline.crashBackAt = Date.now());
      const crashRecovered = await c.firstSuccessAfter(crashBackAt, 15_000);
      await sleep(BETWEEN_FAULTS_MS);

      // An API process dies (SIGKILL) with requests in flight and starts again on the same port.
      await c.burst(SURGE, SURGE_ANSWERED_SHARE, SURGE_WAIT_MS);
      const killAt = (timeline.killAt = Date.now());
      const killed = api1.runs.at(-1)!;
      endedByTest.add(killed);
      killed.kill("SIGKILL");
      await killed.exited;
      await run(api1);
      const restartedAt = (timeline.restartedAt = Date.now());
      const restartServed = await pollUntil(
        "a refund answered by the restarted process",
        async () =>
          c.attempts.find((a) => a.target === 0 && a.startedAt >= restartedAt && (a.status ?? 999) < 300)
            ?.endedAt,
        15_000,
        20,
      ).catch(() => undefined);
      await sleep(BETWEEN_FAULTS_MS);

      // PostgreSQL freezes for 6 s: every server process stopped, its sockets open, nothing answers.
      await c.burst(SURGE, SURGE_ANSWERED_SHARE, SURGE_WAIT_MS);
      const freezeAt = (timeline.freezeAt = Date.now());
      cluster.freeze();
      await sleep(OUTAGE_MS);
      cluster.thaw();
      const thawAt = (timeline.thawAt = Date.now());
      const freezeRecovered = await c.firstSuccessAfter(thawAt, 15_000);
      await sleep(TAIL_MS);

      const stopAt = (timeline.stopAt = Date.now());
      await c.stop(CLIENT_STOP_BOUND_MS);
      const clientDoneAt = (timeline.clientDoneAt = Date.now());
      await probes.stop();

      // Settled: no child still reserved, no delivery still to do.
      const settled = await pollUntil(
        "no child pending and no delivery pending or retrying",
        async () => {
          const [row] = await store.query<{ pending: number; open: number }>(
            `select (select count(*)::int from operations where state like '%\\_pending') as pending,
                  (select count(*)::int from webhook_deliveries where status in ('pending', 'retrying')) as open`,
          );
          return row!.pending === 0 && row!.open === 0 ? Date.now() : undefined;
        },
        SETTLE_TIMEOUT_MS,
        500,
      ).catch(() => undefined);

      // What happened, for the docs and for whoever reads a failure.
      const attempts = c.attempts;
      const byStatus = new Map<string, number>();
      for (const a of attempts) {
        const label = a.status === undefined ? "network error" : `${a.status}${a.code ? ` ${a.code}` : ""}`;
        byStatus.set(label, (byStatus.get(label) ?? 0) + 1);
      }
      const maxMs = Math.max(...attempts.map((a) => a.ms));
      const sortedMs = attempts.map((a) => a.ms).sort((a, b) => a - b);
      const p99Ms = sortedMs[Math.floor(sortedMs.length * 0.99)] ?? 0;
      const inFlight = (at: number) => attempts.filter((a) => a.startedAt < at && a.endedAt > at).length;
      const readyAgain = (from: number) =>
        processes.map((p) => {
          const ready = probes!.answers.find(
            (a) => a.process === p.name && a.path === "/readyz" && a.startedAt >= from && a.status === 200,
          );
          return `${p.name} ${ready ? `${ready.endedAt - from} ms` : "never"}`;
        });
      const overdue = Object.fromEntries(
        (
          [
            ["crash", crashAt, restartingAt],
            ["freeze", freezeAt, thawAt],
          ] as const
        ).map(([outage, from, to]) => [
          outage,
          attempts
            .filter((a) => a.endedAt > from && a.startedAt < to)
            .filter((a) => Math.max(a.startedAt, from) + DB_WAIT_BOUND_MS < to)
            .filter((a) => a.endedAt > Math.max(a.startedAt, from) + DB_WAIT_BOUND_MS)
            .map(
              (a) => `${a.key}: ${a.startedAt - from} → ${a.endedAt - from} ms, ${a.status} ${a.code ?? ""}`,
            ),
        ]),
      );
      const longestIn = (from: number, to: number) =>
        Math.max(0, ...attempts.filter((a) => a.startedAt >= from && a.startedAt < to).map((a) => a.ms));
      const children = await childrenOf(store, m.id);
      const received = receiver.requests.filter((r) => r.path === "/ops");
      const audit = auditOperationWebhooks(received, children);
      const ms = (value: number | undefined, from: number) =>
        value === undefined ? "none" : `${value - from} ms`;
      // How many leases the outages left to no one the worker took back (not after their 31 s).
      const leasesReleased = await fetch(`${worker.url}/metrics`)
        .then(async (r) => /svc_webhook_leases_released_total (\d+)/.exec(await r.text())?.[1] ?? "?")
        .catch(() => "?");
      console.log(
        [
          `faults: setup ${setupMs} ms; client ran ${stopAt - t0} ms (${warmUpRefunds} refunds in the warm-up), its last keys answered ${clientDoneAt - stopAt} ms after it stopped`,
          `faults: ${attempts.length} attempts for ${c.outcomes.length} keys: ${[...byStatus].map(([k, n]) => `${k} ×${n}`).join(", ")}`,
          `faults: latency max ${maxMs} ms, p99 ${p99Ms} ms; requests in flight at the crash ${inFlight(crashAt)}, the SIGKILL ${inFlight(killAt)}, the freeze ${inFlight(freezeAt)}`,
          `faults: first refund ${ms(crashRecovered, crashBackAt)} after PostgreSQL restarted (ready again: ${readyAgain(crashBackAt).join(", ")})`,
          `faults: first refund by the restarted api-1 ${ms(restartServed, restartedAt)} after it was ready (restart took ${restartedAt - killAt} ms)`,
          `faults: longest request sent during the crash ${longestIn(crashAt, restartingAt)} ms, during the freeze ${longestIn(freezeAt, thawAt)} ms; ${overdue.crash!.length} + ${overdue.freeze!.length} waited past the database timeouts (${DB_WAIT_BOUND_MS} ms)`,
          `faults: first refund ${ms(freezeRecovered, thawAt)} after PostgreSQL thawed (ready again: ${readyAgain(thawAt).join(", ")})`,
          `faults: ${children.length} refunds; ${audit.received} operation webhooks received, ${audit.distinct} distinct, ${audit.received - audit.distinct} at-least-once repeats; settled ${settled === undefined ? "NOT " : ""}within ${(settled ?? Date.now()) - clientDoneAt} ms of the client's end; the worker took back ${leasesReleased} leases after the outages`,
          `faults: wall time ${Date.now() - began} ms`,
        ].join("\n"),
      );

      // No process exited by itself, and none printed an error nobody handled.
      expect(exits, "processes that exited by themselves").toEqual([]);
      for (const p of processes) {
        expect(p.runs.at(-1)!.child.exitCode, `${p.name} still runs`).toBeNull();
        for (const serve of p.runs)
          expect(serve.output().match(CRASH_OUTPUT)?.[0], `${p.name}'s output`).toBeUndefined();
      }

      // No 500, no request over 35 s, every key answered.
      const serverErrors = attempts.filter((a) => a.status === 500);
      expect(serverErrors, "500 answers to the client").toEqual([]);
      expect(
        probes.answers.filter((a) => a.status === 500),
        "500 answers to probes",
      ).toEqual([]);
      expect(
        attempts.filter((a) => a.ms > MAX_REQUEST_MS || a.error === "timed out"),
        "requests over 35 s",
      ).toEqual([]);
      expect(c.unresolved, "keys without a final answer").toEqual([]);
      // During each outage, a request waits on the database no longer than its timeouts allow: one
      // in flight when it began, or sent during it, is answered within DB_WAIT_BOUND_MS (judged only
      // where that ends before the recovery, which would answer it anyway). Soft: the checks below
      // still run and report.
      for (const [outage, list] of Object.entries(overdue))
        expect
          .soft(
            list,
            `requests that waited past the database timeouts during the ${outage} (ms after it began)`,
          )
          .toEqual([]);
      // Every other 5xx is the documented answer for an unreachable database: problem+json
      // database_unavailable with Retry-After (soft: the checks below still run and report).
      expect
        .soft(
          attempts.filter(
            (a) => (a.status ?? 0) >= 500 && (a.code !== "database_unavailable" || a.retryAfter !== "2"),
          ),
          "5xx answers other than 503 database_unavailable with Retry-After",
        )
        .toEqual([]);
      // Refunds of 0.010 from 10.000 parents: every key refunds (once).
      expect(c.outcomes.filter((o) => o.status !== 200).map((o) => `${o.status} ${o.json?.code}`)).toEqual(
        [],
      );
      expect(warmUpRefunds).toBeGreaterThan(0);

      // /readyz 503 and /healthz 200 from every process during both outages.
      for (const [outage, from, to] of [
        ["crash", crashAt, restartingAt],
        ["freeze", freezeAt, thawAt],
      ] as const)
        for (const p of processes) {
          const within = (path: ProbeAnswer["path"]) =>
            probes!.answers.filter(
              (a) => a.process === p.name && a.path === path && a.startedAt >= from && a.endedAt <= to,
            );
          const ready = within("/readyz");
          const health = within("/healthz");
          expect(ready.length, `${p.name} /readyz probes during the ${outage}`).toBeGreaterThanOrEqual(2);
          expect(
            ready.filter((a) => a.status !== 503 || a.state !== "database_unreachable"),
            `${p.name} /readyz during the ${outage}`,
          ).toEqual([]);
          expect(health.length, `${p.name} /healthz probes during the ${outage}`).toBeGreaterThanOrEqual(2);
          expect(
            health.filter((a) => a.status !== 200),
            `${p.name} /healthz during the ${outage}`,
          ).toEqual([]);
        }
      // Outside the killed process's own death, liveness never failed.
      expect(
        probes.answers.filter(
          (a) =>
            a.path === "/healthz" &&
            a.status !== 200 &&
            !(a.process === api1.name && a.endedAt >= killAt && a.startedAt <= restartedAt),
        ),
      ).toEqual([]);

      // Refunds again within 5 s of each recovery.
      expect(crashRecovered, "a refund after the crash").toBeDefined();
      expect(crashRecovered! - crashBackAt).toBeLessThanOrEqual(MAX_RECOVERY_MS);
      expect(freezeRecovered, "a refund after the freeze").toBeDefined();
      expect(freezeRecovered! - thawAt).toBeLessThanOrEqual(MAX_RECOVERY_MS);
      expect(restartServed, "a refund by the restarted process").toBeDefined();
      expect(restartServed! - restartedAt).toBeLessThanOrEqual(MAX_RECOVERY_MS);

      // Settled, and every child final.
      expect(settled, "settled: no reservation or delivery left").toBeDefined();
      expect(children.filter((ch) => ch.state !== "refunded")).toEqual([]);

      // Every key answered 200 has exactly one child, and every child is one key's.
      const childOfKey = c.outcomes.map((o) => `${o.json.txn.session_id} ${o.json.reference_number}`).sort();
      expect(new Set(childOfKey).size, "a child named by two keys").toBe(childOfKey.length);
      expect(childOfKey, "the children are exactly the keys' refunds").toEqual(
        children.map((ch) => `${ch.session_id} ${ch.reference_number}`).sort(),
      );

      // Books = the gateway's ledger, one gateway operation per child.
      expect(await booksAgainstLedger(api2, m, gateway.url, parents, children)).toEqual([]);

      // Every child's webhook arrived, under one webhook-id (repeats: at least once); no phantom.
      expect(audit.phantoms, "webhooks for operations that do not exist").toEqual([]);
      expect(audit.missing, "children without a webhook").toEqual([]);
      expect(audit.split, "children with two webhook messages").toEqual([]);
      expect(audit.changed, "repeats with another body").toEqual([]);
      const [messages] = await store.query<{ n: number; children: number }>(
        `select count(*)::int as n, count(distinct child_session_id)::int as children
         from webhook_messages where merchant_id = $1 and kind = 'operation'`,
        [m.id],
      );
      expect(messages, "one operation message per child").toEqual({
        n: children.length,
        children: children.length,
      });
    }, 240_000);
  },
);
