/**
 * A diagnostic, not a benchmark (`npm run bench` does not run it): the delivery bench's drain
 * alone, svc's DeliveryWorker and the baseline outbox each draining `COUNT` (default 30,000)
 * prefilled messages into the bench's receiver process, `ROUNDS` rounds (default 6), each on a new
 * database as in the bench, the side going first alternating per round. Beside each drain's rate
 * it prints the CPU each process used a message (this process, every PostgreSQL process, the
 * receiver: read from /proc around the drain), so a change can be compared where the drain
 * spends it:
 *
 *   SVC_BENCH_STORES=postgres npx tsx bench/drain.ts
 *   PROF=1 … (a CPU profile of this process during svc's drains: the functions with the most
 *            self time, summed over the rounds)
 *   SVC_PG_OPTIONS="-c shared_preload_libraries=pg_stat_statements" … (each statement's time)
 *   AB=NAME … (svc drains twice a round, with the environment variable NAME set and not, the
 *             order alternating: for a switch a scratch edit of the worker reads)
 *
 * Its rounds are what the delivery bench's drains are, without the latency windows between them.
 */
import { readdirSync, readFileSync } from "node:fs";
import inspector from "node:inspector";
import { createMetrics } from "../packages/service/src/metrics/metrics.js";
import { OutboxSignal } from "../packages/service/src/webhooks/outbox.js";
import { DeliveryWorker } from "../packages/service/src/webhooks/worker.js";
import { seedOutboxMerchant } from "../test/support/outbox-merchant.js";
import { BODY, drainRate, prefill, SECRET } from "./delivery.bench.js";
import { BaselineOutbox } from "./support/baseline-outbox.js";
import { type BenchReceiver, startBenchReceiver } from "./support/receiver.js";
import { statements, statementStats } from "./support/statements.js";
import { benchStores } from "./support/stores.js";

const ROUNDS = Number(process.env.ROUNDS ?? 6);
const COUNT = Number(process.env.COUNT ?? 30_000);
const AB = process.env.AB;
const abRatios: number[] = [];
/** How many statements are listed after each drain (pg_stat_statements): its claims come in three or four variants. */
const LISTED = { top: 6 };
const TICK_US = 1e6 / 100; // USER_HZ: /proc's CPU times are in 1/100 s on Linux

/** CPU time (µs) of the processes whose command is `comm` (and whose command line has `arg`). */
function cpuOf(comm: string, arg?: string): number {
  let total = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (name !== comm) continue;
      if (arg && !readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(arg)) continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += (Number(fields[11]) + Number(fields[12])) * TICK_US; // utime, stime
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

function cpuNow() {
  const own = process.cpuUsage();
  return {
    bench: own.user + own.system,
    postgres: cpuOf("postgres"),
    receiver: cpuOf("node", "receiver-process.mjs"),
  };
}

/** The delivery bench's drainRate, with the CPU each process used a message read around it; then `stop`. */
async function drain(receiver: BenchReceiver, start: () => Promise<unknown>, stop: () => Promise<unknown>) {
  const before = cpuNow();
  const rate = await drainRate(receiver, COUNT, start);
  const after = cpuNow();
  await stop();
  const per = (k: keyof typeof before) => Math.round((after[k] - before[k]) / COUNT);
  return { rate, cpu: { bench: per("bench"), postgres: per("postgres"), receiver: per("receiver") } };
}

/** PROF=1: a CPU profile of this process around `run`, added into `into` (self µs by function). */
async function profiled<T>(into: Map<string, number>, run: () => Promise<T>): Promise<T> {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 200 });
  await post("Profiler.start");
  try {
    return await run();
  } finally {
    interface Node {
      id: number;
      callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    }
    const { profile } = (await post("Profiler.stop")) as {
      profile: { nodes: Node[]; samples: number[]; timeDeltas: number[] };
    };
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    profile.samples.forEach((id, i) => {
      const f = byId.get(id)!.callFrame;
      const where = f.url
        ? `${f.url.replace(/^.*\/(node_modules|packages)\//, "")}:${f.lineNumber + 1}:${f.columnNumber}`
        : "";
      const key = `${f.functionName || "(anonymous)"} ${where}`;
      into.set(key, (into.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
    });
    session.disconnect();
  }
}

async function main(): Promise<void> {
  const store = (await benchStores()).find((s) => s.kind === "postgres");
  if (!store) throw new Error("needs PostgreSQL: SVC_BENCH_STORES=postgres");
  const receiver = await startBenchReceiver();
  const profile = new Map<string, number>();
  const ratios: number[] = [];
  try {
    for (let n = 1; n <= ROUNDS; n++) {
      const db = await store.open();
      const workerDb = await store.reopen(db);
      const merchantId = await seedOutboxMerchant(db, "mer_bench", SECRET);
      const pss = await statementStats(db);
      const baseline = new BaselineOutbox(store.url(db)!);
      await baseline.reset();
      const svc = async (tag = "") => {
        // A new worker each drain (a stopped one does not start again), as the bench's is new each round.
        const worker = new DeliveryWorker(workerDb, {
          allowPrivate: true,
          metrics: createMetrics(),
          signal: new OutboxSignal(),
          onError: (e) => console.error("  worker:", e),
        });
        await prefill(
          db,
          merchantId,
          COUNT,
          receiver.url,
          Number(`${n}${tag === "" ? "" : tag === "on" ? 1 : 2}`),
        );
        await statements(db, pss, LISTED);
        const run = () =>
          drain(
            receiver,
            () => worker.start(),
            () => worker.stop(),
          );
        const result = process.env.PROF ? await profiled(profile, run) : await run();
        return { ...result, statements: await statements(db, pss, LISTED) };
      };
      const base = async () => {
        await baseline.prefill(COUNT, `${receiver.url}/drain`, BODY, `base_${n}_`);
        await statements(db, pss, LISTED);
        let stop: (() => Promise<void>) | undefined;
        const result = await drain(
          receiver,
          async () => (stop = baseline.start()),
          async () => stop?.(),
        );
        return { ...result, statements: await statements(db, pss, LISTED) };
      };
      type Drained = Awaited<ReturnType<typeof svc>>;
      const line = (who: string, r: Drained) =>
        `round ${n}, ${who}: ${r.rate} msg/s; CPU µs a message: bench ${r.cpu.bench}, postgres ${r.cpu.postgres}, receiver ${r.cpu.receiver} (${r.cpu.bench + r.cpu.postgres + r.cpu.receiver} in all)${r.statements}`;
      // With AB, svc drains twice, with the switch set and not. The order reverses every other
      // round: the baseline (and the switched drain) go first in one round, last in the next.
      const switched = async () => {
        process.env[AB!] = "1";
        try {
          return await svc("on");
        } finally {
          delete process.env[AB!];
        }
      };
      const drains: [string, () => Promise<Drained>][] = [
        ...(AB
          ? ([
              [`svc with ${AB}`, switched],
              ["svc", () => svc("off")],
            ] as [string, () => Promise<Drained>][])
          : [["svc", () => svc()] as [string, () => Promise<Drained>]]),
        ["baseline", base],
      ];
      if (n % 2 === 0) drains.reverse();
      const results = new Map<string, Drained>();
      for (const [who, run] of drains) results.set(who, await run());
      for (const [who, r] of results) console.log(line(who, r));
      const s = results.get("svc")!;
      const b = results.get("baseline")!;
      ratios.push(s.rate / b.rate);
      if (AB) abRatios.push(results.get(`svc with ${AB}`)!.rate / s.rate);
      console.log(`round ${n}: ${(s.rate / b.rate).toFixed(2)}× the baseline (${drains[0]![0]} first)`);
      await baseline.close();
      await workerDb.close();
      await db.close();
    }
    const sorted = [...ratios].sort((a, b) => a - b);
    console.log(
      `ratios ${ratios.map((r) => r.toFixed(2)).join(" · ")}; median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)}`,
    );
    if (AB) {
      const ab = [...abRatios].sort((a, b) => a - b);
      console.log(
        `with ${AB} ÷ without: ${abRatios.map((r) => r.toFixed(2)).join(" · ")}; median ${ab[Math.floor(ab.length / 2)]!.toFixed(2)}`,
      );
    }
    if (process.env.PROF) {
      const total = [...profile.values()].reduce((a, b) => a + b, 0);
      console.log(
        `svc's drains, this process's CPU profile (${Math.round(total / 1000)} ms sampled), self time:`,
      );
      for (const [key, us] of [...profile].sort((a, b) => b[1] - a[1]).slice(0, 30))
        console.log(`  ${((us / total) * 100).toFixed(1).padStart(5)} %  ${key}`);
    }
  } finally {
    receiver.stop();
    store.stop();
  }
}

await main();
process.exit(0);
