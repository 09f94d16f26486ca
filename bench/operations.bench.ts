/**
 * Refunds per second through `POST /v1/operations` with a private key: the real service (auth,
 * rules, reservation, outbox routing) calling the real sandbox gateway over HTTP, on PGlite and
 * PostgreSQL. The gateway and the client each run in their own process (as they would in
 * production), so the service's process measures the service. Refunds are spread over many paid
 * parents, 0.001 each of a large payment, so none runs out.
 *
 * Measured twice per store, on fresh parents each time: first with no webhook URL configured
 * (the operations path alone), then with the operation webhook on, delivered by the same service
 * process (`SVC_ROLE=all`) to a receiver in its own process, as a merchant running one svc process
 * would have it. After the second window the bench waits for every webhook to be delivered and
 * prints how long that took.
 * A third window sends an `Idempotency-Key` with every refund (another merchant, fresh parents,
 * no webhook): `refunds_with_key_per_s`.
 *
 * On PostgreSQL each window also counts, per refund, the statements and round trips the service
 * sent through its requests' pool, their commits, and the WAL every pool wrote (the delivery
 * worker's included). `SVC_BENCH_PROFILE=1` adds the wall time of each Fastify hook, of the
 * handler and of the gateway calls, each statement's count and time, and the statements of
 * single refunds in order (support/refund-profile.ts). `SVC_BENCH_CPU_PROFILE=<dir>` writes each
 * window's V8 CPU profile of the service's process there. Each window refunds parents of its own;
 * `SVC_BENCH_SAME_PARENTS=1` has the webhook window refund the first window's parents (as until
 * 2026-11-27), whose children's sums cost more to read.
 */
import { type ChildProcess, fork } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../packages/service/src/config.js";
import { startService } from "../packages/service/src/server.js";
import { freePort } from "../test/support/free-port.js";
import { createMerchant } from "../test/support/merchant.js";
import { paidParent } from "../test/support/payments.js";
import { ADMIN_TOKEN, GATEWAY_SECRET, type Stack } from "../test/support/stack.js";
import type { BenchResult } from "./run.ts";
import { configureWebhooks } from "../test/support/webhooks.js";
import { startBenchReceiver } from "./support/receiver.js";
import { benchStores } from "./support/stores.js";
import {
  countingDb,
  cpuProfiler,
  cpuSampler,
  type DbCounts,
  perRefund,
  timeHooks,
  timingTable,
} from "./support/refund-profile.js";

const PARENTS = 64;
const IN_FLIGHT = 64;
const WARMUP_SECONDS = 1;
const MEASURE_SECONDS = { pglite: 4, postgres: 6 } as const;
const here = path.dirname(fileURLToPath(import.meta.url));
const PROFILE = process.env.SVC_BENCH_PROFILE === "1";
/** A directory: each window's V8 CPU profile of the service's process is written there. */
const CPU_PROFILE_DIR = process.env.SVC_BENCH_CPU_PROFILE;

function forkTs(file: string, env: Record<string, string> = {}): ChildProcess {
  return fork(path.join(here, "support", file), [], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
}
const nextMessage = <T>(child: ChildProcess) =>
  new Promise<T>((resolve) => child.once("message", (m) => resolve(m as T)));

export default async function operationsBench(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const gatewayProcess = forkTs("gateway-process.ts", { BENCH_GATEWAY_SECRET: GATEWAY_SECRET });
  const { url: gatewayUrl } = await nextMessage<{ url: string }>(gatewayProcess);
  const hooks = PROFILE ? timeHooks(new URL(gatewayUrl).origin) : undefined;
  try {
    for (const store of await benchStores()) {
      const db = await store.open();
      const counting = countingDb(db, { detail: PROFILE });
      const port = await freePort();
      const config = loadConfig(
        {},
        {
          port,
          host: "127.0.0.1",
          publicUrl: `http://127.0.0.1:${port}`,
          gatewayUrl,
          gatewayNotificationSecret: GATEWAY_SECRET,
          adminToken: ADMIN_TOKEN,
          logLevel: "silent",
          webhookAllowPrivate: true,
          // On PostgreSQL, the service opens its worker's own pool from the URL, as in production.
          ...(store.url(db) ? { databaseUrl: store.url(db) } : {}),
          // One key at benchmark speed: limits high enough never to refuse, but still counted.
          rateLimits: { windowSeconds: 10, perAddress: 1e9, perCredential: 1e9, authFailures: 1e9 },
        },
      );
      const service = await startService(config, { db: counting.db });
      // The test helpers only need the service's URL and database.
      const stack = { url: service.url, gatewayUrl, db, service } as unknown as Stack;
      try {
        let m = await createMerchant(stack);
        let sessions: string[] = [];
        const newParents = async () => {
          sessions = [];
          for (let i = 0; i < PARENTS; i++)
            sessions.push((await paidParent(stack, m, "sandbox", { amount: "100000.000" })).session_id);
        };
        await newParents();
        const walLsn = async () =>
          store.kind === "postgres"
            ? (await db.query<{ lsn: string }>("select pg_current_wal_insert_lsn()::text as lsn"))[0]!.lsn
            : undefined;
        const walBytes = async (from: string | undefined, to: string | undefined) =>
          from && to
            ? (
                await db.query<{ n: number }>("select pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)::int8 as n", [
                  to,
                  from,
                ])
              )[0]!.n
            : 0;
        const postmaster =
          store.kind === "postgres"
            ? await db
                .query<{ pid: number }>("select pg_backend_pid() as pid")
                .then(([row]) => readFile(`/proc/${row!.pid}/status`, "utf8"))
                .then((status) => Number(/\nPPid:\s+(\d+)/.exec(status)?.[1]))
                .catch(() => undefined)
            : undefined;
        const cpu = cpuSampler(postmaster);
        const refundsPerSecond = async (window: string, idempotencyKeys = false) => {
          const load = forkTs("load-process.ts");
          const profiler = CPU_PROFILE_DIR ? cpuProfiler() : undefined;
          let atStart: { counts: DbCounts; lsn: string | undefined; cpu: Map<string, number> } | undefined;
          const measuring = new Promise<void>((resolve) =>
            load.once("message", () => {
              hooks?.reset();
              counting.statements.clear();
              const counts = counting.snapshot();
              const cpuAtStart = cpu.sample();
              void Promise.all([walLsn(), profiler?.start()]).then(([lsn]) => {
                atStart = { counts, lsn, cpu: cpuAtStart };
                resolve();
              });
            }),
          );
          load.send({
            url: service.url,
            key: m.privateKey,
            sessions,
            inFlight: IN_FLIGHT,
            warmupSeconds: WARMUP_SECONDS,
            seconds: MEASURE_SECONDS[store.kind],
            idempotencyKeys,
          });
          await measuring;
          const r = await nextMessage<{
            ok: number;
            failed: number;
            seconds: number;
            firstFailure: string;
            cpuUs: number;
          }>(load);
          const counts = counting.snapshot();
          const cpuAtEnd = cpu.sample();
          await profiler?.stop(path.join(CPU_PROFILE_DIR!, `operations-${store.kind}-${window}.cpuprofile`));
          const lsn = await walLsn();
          if (r.failed > 0) console.error(`  ${r.failed} refunds failed, e.g. ${r.firstFailure}`);
          const refunds = r.ok + r.failed;
          const per = perRefund(atStart!.counts, counts, refunds);
          const wal = Math.round((await walBytes(atStart!.lsn, lsn)) / refunds);
          if (hooks) {
            console.error("  wall time per refund (hooks, handler, gateway):");
            console.table(timingTable(hooks.timings, refunds));
            console.error("  statements (count per refund, mean wall ms):");
            console.table(
              [...counting.statements.entries()]
                .sort((a, b) => b[1].count - a[1].count)
                .map(([sql, st]) => ({
                  sql: sql.replace(/\s+/g, " ").slice(0, 110),
                  per_refund: Math.round((st.count / refunds) * 100) / 100,
                  in_tx: st.inTx > 0,
                  mean_ms: Math.round((st.ms / st.count) * 1000) / 1000,
                })),
            );
          }
          const cpuPerRefund = {
            ...cpu.perRefund(atStart!.cpu, cpuAtEnd, refunds),
            load: Math.round(r.cpuUs / refunds),
          };
          const cpuTotal = Object.values(cpuPerRefund).reduce((a, b) => a + b, 0);
          console.error(
            `  CPU per refund (µs): ${Object.entries(cpuPerRefund)
              .map(([name, us]) => `${name} ${us}`)
              .join(", ")}; all ${cpuTotal}`,
          );
          return { perSecond: Math.round(r.ok / r.seconds), per, wal };
        };
        /** The statements of single refunds, one at a time, in order (`SVC_BENCH_PROFILE=1`). */
        const singleRefunds = async (label: string) => {
          if (!PROFILE) return;
          for (const key of [undefined, `single-${Date.now()}`]) {
            const send = () =>
              fetch(`${service.url}/v1/operations`, {
                method: "POST",
                headers: {
                  "content-type": "application/json",
                  authorization: `Api-Key ${m.privateKey}`,
                  ...(key ? { "idempotency-key": `${key}-${Math.random()}` } : {}),
                },
                body: JSON.stringify({ operation: "refund", session_id: sessions[0], amount: "0.001" }),
              }).then((res) => res.text());
            await send();
            await new Promise((resolve) => setTimeout(resolve, 100));
            hooks?.reset();
            counting.startLog();
            const started = performance.now();
            await send();
            const ms = performance.now() - started;
            await new Promise((resolve) => setTimeout(resolve, 100));
            const log = counting.stopLog();
            console.error(
              `  one refund ${label}${key ? ", with an Idempotency-Key" : ""}: ${ms.toFixed(1)} ms at the client; ` +
                "its statements (ms after it was sent, ms each took):",
            );
            for (const { at, ms: took, text } of log)
              console.error(
                `    +${at.toFixed(2)} (${took.toFixed(2)}) ${text.replace(/\s+/g, " ").slice(0, 200)}`,
              );
            console.error("  its hooks, handler and gateway call:");
            console.table(timingTable(hooks!.timings, 1));
          }
        };
        const countsOf = (name: string, r: Awaited<ReturnType<typeof refundsPerSecond>>) =>
          store.kind === "postgres"
            ? [
                {
                  name: `operations.postgres.statements_per_refund${name}`,
                  value: r.per.statements,
                  unit: "stmt",
                },
                {
                  name: `operations.postgres.round_trips_per_refund${name}`,
                  value: r.per.roundTrips,
                  unit: "rt",
                },
                {
                  name: `operations.postgres.commits_per_refund${name}`,
                  value: r.per.commits,
                  unit: "commit",
                },
                { name: `operations.postgres.wal_bytes_per_refund${name}`, value: r.wal, unit: "B" },
              ]
            : [];
        const describe = (r: Awaited<ReturnType<typeof refundsPerSecond>>) =>
          store.kind === "postgres"
            ? ` (per refund: ${r.per.statements} statements, ${r.per.roundTrips} round trips, ${r.per.commits} commits, ${r.wal} B of WAL)`
            : "";
        const alone = await refundsPerSecond("alone");
        console.error(`  ${store.kind}: ${alone.perSecond} refunds/s${describe(alone)}`);
        results.push({
          name: `operations.${store.kind}.refunds_per_s`,
          value: alone.perSecond,
          unit: "refund/s",
          ...(store.kind === "postgres" ? { target: "≥ 1000" } : {}),
        });
        results.push(...countsOf("", alone));
        await singleRefunds("without a webhook");

        // Parents of its own, as the first window had: a parent's children's sums are read with it
        // on every operation, and cost more the more children it has, so on the first window's
        // parents (~220 refunds each by then, at 2,000/s) this window paid for that too
        // (docs/benchmarks.md, "The refund path"). SVC_BENCH_SAME_PARENTS=1: the same parents.
        if (process.env.SVC_BENCH_SAME_PARENTS !== "1") await newParents();
        const receiver = await startBenchReceiver();
        try {
          await configureWebhooks(stack, m, {
            operations_webhook_url: `${receiver.url}/ops`,
            notify_api_initiated: true,
          });
          const withWebhook = await refundsPerSecond("with-webhook");
          const windowEnd = Date.now();
          const undelivered = async () =>
            (
              await db.query<{ n: number }>(
                "select count(*)::int as n from webhook_deliveries where status in ('pending', 'retrying')",
              )
            )[0]!.n;
          while ((await undelivered()) > 0) await new Promise((resolve) => setTimeout(resolve, 50));
          const [delivered] = await db.query<{ n: number }>(
            "select count(*)::int as n from webhook_deliveries where status = 'succeeded'",
          );
          console.error(
            `  ${store.kind}: ${withWebhook.perSecond} refunds/s with their webhooks${describe(withWebhook)}; ` +
              `all ${delivered!.n} delivered ${((Date.now() - windowEnd) / 1000).toFixed(1)} s after the window`,
          );
          results.push({
            name: `operations.${store.kind}.refunds_with_webhook_per_s`,
            value: withWebhook.perSecond,
            unit: "refund/s",
            vs: { name: `operations.${store.kind}.refunds_per_s`, value: alone.perSecond },
            target: "≥ 0.6 × refunds_per_s",
          });
          results.push(...countsOf("_with_webhook", withWebhook));
          await singleRefunds("with its webhook");
        } finally {
          receiver.stop();
        }

        // An Idempotency-Key on every refund, as merchants are told to send: a merchant of its
        // own with parents of its own and no webhook, so only the key differs from the first window.
        m = await createMerchant(stack);
        await newParents();
        const withKey = await refundsPerSecond("with-key", true);
        console.error(
          `  ${store.kind}: ${withKey.perSecond} refunds/s with Idempotency-Keys${describe(withKey)}`,
        );
        results.push({
          name: `operations.${store.kind}.refunds_with_key_per_s`,
          value: withKey.perSecond,
          unit: "refund/s",
          vs: { name: `operations.${store.kind}.refunds_per_s`, value: alone.perSecond },
        });
        results.push(...countsOf("_with_key", withKey));
      } finally {
        await service.close();
        await db.close();
      }
    }
  } finally {
    hooks?.stop();
    gatewayProcess.send("stop");
  }
  return results;
}
