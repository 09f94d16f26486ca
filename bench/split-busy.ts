/**
 * A diagnostic, not a benchmark (`npm run bench` does not run it): the delivery bench's setup
 * "producer process + NOTIFY, busy core" alone, svc and the baseline outbox alternated for
 * `ROUNDS` rounds (default 5) on one durable cluster (the side going first alternating, each
 * after a vacuum and a checkpoint), each round printed with the producer's
 * send → commit beside the bench's latencies, and what PostgreSQL did meanwhile:
 *
 *   SVC_BENCH_STORES=postgres npx tsx bench/split-busy.ts
 *   SVC_PG_OPTIONS="-c shared_preload_libraries=pg_stat_statements" … (each statement's time)
 *   PRE="alter table webhook_deliveries set (fillfactor = 100)" … (SQL run once before the rounds)
 *   HOLD=always … (svc's worker holds every claim by its row locks: WorkerOptions.holdClaims)
 *   WAITS=1 … (what the backends wait on, sampled from pg_stat_activity every ~2 ms; the
 *             sampler's own query costs ~0.2 ms, on both sides alike)
 *   TAIL=1 … (svc's rounds: where the slowest 1 % of messages spent their time — commit → the
 *            worker's first wake after it → its claim → receipt — which claims they came in,
 *            and the bench process's event-loop delay and garbage collections)
 *   NOBUSY=1 … (no busy core: the bench's "producer process + NOTIFY" setup)
 *   ALLOC=1 … (what each side's worker process allocates a message, and where: sampled)
 *
 * svc's first round has a high p99 (its worker's first moments). docs/benchmarks.md,
 * "Issue 25: split with a busy core, measured part by part" and "Issue 25: where the split
 * setups' slowest messages wait", have what it found.
 */
import inspector from "node:inspector";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import type { Db } from "../packages/service/src/db/client.js";
import { createMetrics } from "../packages/service/src/metrics/metrics.js";
import { OutboxSignal } from "../packages/service/src/webhooks/outbox.js";
import { deliveryRepo } from "../packages/service/src/webhooks/delivery.repo.js";
import { DeliveryWorker } from "../packages/service/src/webhooks/worker.js";
import { seedOutboxMerchant } from "../test/support/outbox-merchant.js";
import {
  busyCore,
  describe,
  latencies,
  percentile,
  produceElsewhere,
  round1,
  SECRET,
} from "./delivery.bench.js";
import { BaselineOutbox } from "./support/baseline-outbox.js";
import type { ProduceReport } from "./support/produce.js";
import { type BenchReceiver, startBenchReceiver, wallMs } from "./support/receiver.js";
import { statements, statementStats } from "./support/statements.js";
import { benchStores } from "./support/stores.js";

/**
 * ALLOC=1: samples what each side's round allocates in this process (V8's sampling heap
 * profiler, every 32 KB on average, collected objects included) and prints the functions that
 * allocated most, by bytes a message.
 */
async function sampleAllocations(): Promise<(messages: number) => Promise<string>> {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await post("HeapProfiler.startSampling", {
    samplingInterval: 32_768,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return async (messages) => {
    interface Node {
      callFrame: {
        functionName: string;
        scriptId: string;
        url: string;
        lineNumber: number;
        columnNumber: number;
      };
      selfSize: number;
      children: Node[];
    }
    const { profile } = (await post("HeapProfiler.stopSampling")) as { profile: { head: Node } };
    const bySite = new Map<string, { bytes: number; frame: Node["callFrame"] }>();
    let total = 0;
    const walk = (node: Node) => {
      const f = node.callFrame;
      const key = `${f.scriptId}:${f.lineNumber}:${f.columnNumber}`;
      const site = bySite.get(key) ?? { bytes: 0, frame: f };
      site.bytes += node.selfSize;
      bySite.set(key, site);
      total += node.selfSize;
      for (const child of node.children) walk(child);
    };
    walk(profile.head);
    const top = [...bySite.values()].sort((a, b) => b.bytes - a.bytes).slice(0, 25);
    // svc's own files run as tsx transpiled them (whitespace minified: one line), so a line
    // number says nothing there: the start of the function's code is shown instead.
    await post("Debugger.enable");
    const sources = new Map<string, string[]>();
    const codeAt = async (f: Node["callFrame"]) => {
      if (!f.url.includes("/packages/") || f.url.includes("/node_modules/")) return "";
      let lines = sources.get(f.scriptId);
      if (!lines) {
        const { scriptSource } = (await post("Debugger.getScriptSource", { scriptId: f.scriptId })) as {
          scriptSource: string;
        };
        lines = scriptSource.split("\n");
        sources.set(f.scriptId, lines);
      }
      return `  ${(lines[f.lineNumber] ?? "").slice(f.columnNumber, f.columnNumber + 70)}`;
    };
    const rows: string[] = [];
    for (const { bytes, frame: f } of top) {
      const where = `${f.url.replace(/^.*\/(node_modules|packages)\//, "")}:${f.lineNumber + 1}`;
      rows.push(
        `    ${String(Math.round(bytes / messages)).padStart(6)} B  ${f.functionName || "(anonymous)"} ${where}${await codeAt(f)}`,
      );
    }
    await post("Debugger.disable");
    session.disconnect();
    return [`  allocated ${Math.round(total / messages)} B a message (sampled), by function:`, ...rows].join(
      "\n",
    );
  };
}

const ROUNDS = Number(process.env.ROUNDS ?? 5);
/** How svc's worker claims (WorkerOptions.holdClaims); unset: as in production. */
const HOLD = process.env.HOLD as "backlog" | "always" | "never" | undefined;

/**
 * TAIL=1: records when each claim of svc's worker started and ended (which messages it took),
 * when the worker was woken, when each message arrived, and the process's event-loop delay and
 * garbage collections; `report` prints where the slowest 1 % of the round's messages waited.
 */
function tailTracer(receiver: BenchReceiver) {
  const claimOf = new Map<string, [number, number]>();
  const claims: [number, number, number][] = [];
  const wakes: number[] = [];
  const receipts = new Map<string, number>();
  const claim = deliveryRepo.claim;
  deliveryRepo.claim = async (...args: Parameters<typeof claim>) => {
    const start = wallMs();
    const rows = await claim(...args);
    const end = wallMs();
    for (const d of rows) claimOf.set(d.message_id, [start, end]);
    claims.push([start, end, rows.length]);
    return rows;
  };
  const drain = receiver.drain;
  receiver.drain = async () => {
    const got = await drain();
    for (const [id, at] of got) receipts.set(id, at);
    return got;
  };
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const gcs: number[] = [];
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push(e.duration);
  });
  gc.observe({ entryTypes: ["gc"] });
  const ms = (x: number) => x.toFixed(1);
  return {
    /** Wraps the worker's wake so each one is timed (before start(): LISTEN takes it then). */
    watch(worker: DeliveryWorker): void {
      const w = worker as unknown as { wake: () => void };
      const wake = w.wake;
      w.wake = () => {
        wakes.push(wallMs());
        wake();
      };
    },
    report({ commits }: ProduceReport): string {
      deliveryRepo.claim = claim;
      receiver.drain = drain;
      loop.disable();
      gc.disconnect();
      const rows = commits
        .filter(([id]) => receipts.has(id) && claimOf.has(id))
        .map(([id, , committed]) => {
          const [start, end] = claimOf.get(id)!;
          const woken = wakes.find((t) => t >= committed) ?? start;
          return {
            id,
            start,
            total: receipts.get(id)! - committed,
            wake: woken - committed,
            claim: end - woken,
            after: receipts.get(id)! - end,
          };
        })
        .sort((a, b) => b.total - a.total);
      const slowest = rows.slice(0, Math.ceil(rows.length / 100));
      const mean = (xs: typeof rows, k: "total" | "wake" | "claim" | "after") =>
        ms(xs.reduce((sum, x) => sum + x[k], 0) / Math.max(1, xs.length));
      const byClaim = new Map<number, number>();
      for (const r of slowest) byClaim.set(r.start, (byClaim.get(r.start) ?? 0) + 1);
      const spans = claims.map(([start, end]) => end - start).sort((a, b) => a - b);
      const parts = (xs: typeof rows) =>
        `${mean(xs, "total")} ms = wake ${mean(xs, "wake")} + wake → claim returned ${mean(xs, "claim")} + claim returned → receipt ${mean(xs, "after")}`;
      return [
        `  slowest 1 % (${slowest.length}): ${parts(slowest)}; every message: ${parts(rows)}`,
        `  the slowest came in ${byClaim.size} claims (${[...byClaim.values()].sort((a, b) => b - a).join(", ")}); claims ${claims.length}: p50 ${ms(percentile(spans, 50))}, p99 ${ms(percentile(spans, 99))}, max ${ms(spans.at(-1) ?? 0)} ms`,
        `  event-loop delay p99 ${ms(loop.percentile(99) / 1e6)}, max ${ms(loop.max / 1e6)} ms; ${gcs.length} garbage collections, ${ms(gcs.reduce((a, b) => a + b, 0))} ms in all, the longest ${ms(Math.max(0, ...gcs))} ms`,
      ].join("\n");
    },
  };
}

/** Send → commit p50 / p99: how long the producer waited for its commits. */
function sendToCommit({ commits }: ProduceReport): string {
  const waits = commits.map(([, sent, committed]) => committed - sent).sort((a, b) => a - b);
  return `send→commit p50 ${round1(percentile(waits, 50))} / p99 ${round1(percentile(waits, 99))} ms`;
}

/** Samples the active backends' wait events until the returned function is called; it returns the counts. */
function sampleWaits(db: Db): () => Promise<string> {
  const counts = new Map<string, number>();
  let sampling = true;
  const loop = (async () => {
    while (sampling) {
      const rows = await db.query<{ wait: string; statement: string }>(
        `select coalesce(wait_event_type, 'CPU') || ':' || coalesce(wait_event, '-') as wait,
                split_part(ltrim(query), ' ', 1) || ' ' || split_part(ltrim(query), ' ', 2) as statement
           from pg_stat_activity
          where backend_type = 'client backend' and state = 'active' and pid <> pg_backend_pid()`,
      );
      for (const { wait, statement } of rows) {
        const key = `${statement.replace(/\s+/g, " ")} ${wait}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  return async () => {
    sampling = false;
    await loop;
    return [...counts]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([key, n]) => `${key}=${n}`)
      .join(", ");
  };
}

async function main(): Promise<void> {
  const store = (await benchStores()).find((s) => s.kind === "postgres");
  if (!store) throw new Error("needs PostgreSQL: SVC_BENCH_STORES=postgres");
  const receiver = await startBenchReceiver();
  const db = await store.open();
  const workerDb = await store.reopen(db);
  const baseline = new BaselineOutbox(store.url(db)!);
  let busy: { stop(): void } | undefined;
  try {
    const merchantId = await seedOutboxMerchant(db, "mer_bench", SECRET);
    if (process.env.PRE) await db.query(process.env.PRE);
    const pss = await statementStats(db);
    await baseline.reset();
    const url = `${receiver.url}/load`;
    let started = false;
    const round = async (who: "svc" | "baseline", n: number) => {
      const worker =
        who === "svc"
          ? new DeliveryWorker(workerDb, {
              allowPrivate: true,
              metrics: createMetrics(),
              signal: new OutboxSignal(),
              holdClaims: HOLD,
              onError: (e) => console.error("  worker:", e),
            })
          : undefined;
      let stopBaseline: (() => Promise<void>) | undefined;
      const tail = worker && process.env.TAIL ? tailTracer(receiver) : undefined;
      if (worker) tail?.watch(worker);
      // Each side starts from the same state, as in the delivery bench: the last round's dead
      // rows vacuumed and its pages checkpointed. Not before the first side of the first round:
      // its tables are empty, and a vacuum (analysed or not) records them as empty, so svc's
      // worker planned its claim (a generic plan, kept) for an empty table: scans of the whole
      // table, 1.8–2.2 ms a claim by the round's end against 55–59 µs in round 2, and a
      // commit → receipt p50 of 5.8–7.1 ms in round 1 against 0.9 ms without the vacuum
      // (2026-11-29). Round 1's p99 stays high (31 ms): the worker's first moments.
      if (started) await db.query("vacuum (analyze)");
      started = true;
      await db.query("checkpoint");
      if (worker) await worker.start();
      else {
        await baseline.warmUp();
        stopBaseline = baseline.start();
      }
      await statements(db, pss);
      busy = process.env.NOBUSY ? undefined : busyCore();
      const waits = process.env.WAITS ? sampleWaits(db) : undefined;
      const allocations = process.env.ALLOC ? await sampleAllocations() : undefined;
      const report = await produceElsewhere(
        store.url(db)!,
        merchantId,
        url,
        who === "baseline" ? `base_split_busy_${n}_` : undefined,
      );
      const latency = await latencies(receiver, report);
      const allocated = await allocations?.(report.commits.length);
      const waited = await waits?.();
      busy?.stop();
      busy = undefined;
      await (worker ? worker.stop() : stopBaseline!());
      console.log(`round ${n}, ${who}: ${describe(latency)}, ${sendToCommit(report)}`);
      if (tail) console.log(tail.report(report));
      if (allocated) console.log(allocated);
      if (waited) console.log(`  waits: ${waited}`);
      if (pss) console.log(`  statements:${await statements(db, pss)}`);
      return latency;
    };
    for (let n = 1; n <= ROUNDS; n++) {
      // The side going first alternates per round, as in the delivery bench.
      const first = n % 2 === 1 ? "svc" : "baseline";
      const one = await round(first, n);
      const other = await round(first === "svc" ? "baseline" : "svc", n);
      const [svc, base] = first === "svc" ? [one, other] : [other, one];
      console.log(
        `round ${n}: send → receipt p99 ${(svc.sendP99 / base.sendP99).toFixed(2)}× the baseline's`,
      );
    }
  } finally {
    busy?.stop();
    await baseline.close();
    await workerDb.close();
    await db.close();
    receiver.stop();
    store.stop();
  }
}

await main();
process.exit(0);
