/**
 * What the operations bench counts and times on the refund path, in the service's own process:
 *
 * - {@link countingDb}: every statement and round trip the service sends through its `Db` (the
 *   requests' pool; on PostgreSQL the delivery worker has a pool of its own, not counted here),
 *   and with `SVC_BENCH_PROFILE=1` each statement's SQL, its count and its wall time;
 * - {@link timeHooks} (`SVC_BENCH_PROFILE=1`): the wall time of each Fastify lifecycle hook, named
 *   by where it was registered, of the route handler, and of the calls to the gateway.
 *
 * Nothing here changes what the service does: the counting wrapper is the `Db` handed to
 * `startService`, and the hook timer wraps each hook as Fastify registers it.
 */
import diagnostics from "node:diagnostics_channel";
import { readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import inspector from "node:inspector";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Db, Queryable } from "../../packages/service/src/db/client.js";

export interface DbCounts {
  /** Statements sent, `begin` and `commit` not included. */
  statements: number;
  /** Statements plus each transaction's `begin` and `commit`, plus NOTIFYs: what waits on the network. */
  roundTrips: number;
  /** Commits: transactions plus autocommitted statements. */
  commits: number;
}

export interface StatementStats {
  count: number;
  ms: number;
  inTx: number;
}

/** One entry of {@link countingDb}'s log: when it started (ms after the log did), how long it took. */
export interface LogEntry {
  at: number;
  ms: number;
  text: string;
}

/** A `Db` that counts what goes through it, and (while a log runs) records each statement in order. */
export function countingDb(db: Db, options: { detail?: boolean } = {}) {
  const counts: DbCounts = { statements: 0, roundTrips: 0, commits: 0 };
  const bySql = new Map<string, StatementStats>();
  let log: { started: number; entries: LogEntry[] } | undefined;
  /** Logs `text` now; the returned function records its end. */
  const logged = (text: string) => {
    if (!log) return () => {};
    const entry = { at: performance.now() - log.started, ms: 0, text };
    log.entries.push(entry);
    const started = performance.now();
    return () => void (entry.ms = performance.now() - started);
  };
  const run = async <T>(q: Queryable, sql: string, params: readonly unknown[] | undefined, inTx: boolean) => {
    counts.statements += 1;
    counts.roundTrips += 1;
    const done = logged(`${inTx ? "  " : ""}${sql}`);
    if (!options.detail) return q.query<T>(sql, params).finally(done);
    const started = performance.now();
    try {
      return await q.query<T>(sql, params);
    } finally {
      done();
      const s = bySql.get(sql) ?? { count: 0, ms: 0, inTx: 0 };
      s.count += 1;
      s.ms += performance.now() - started;
      if (inTx) s.inTx += 1;
      bySql.set(sql, s);
    }
  };
  const counted: Db = {
    kind: db.kind,
    query: (sql, params) => {
      counts.commits += 1;
      return run(db, sql, params, false);
    },
    tx: (fn) => {
      counts.commits += 1;
      counts.roundTrips += 2;
      // The whole transaction: from its begin to its commit's answer.
      const done = logged("begin … commit");
      return db.tx((q) => fn({ query: (sql, params) => run(q, sql, params, true) })).finally(done);
    },
    exec: (sql) => db.exec(sql),
    listen: (channel, onPayload, onLost) => db.listen(channel, onPayload, onLost),
    notify: (channel) => {
      counts.roundTrips += 1;
      return db.notify(channel).finally(logged(`notify ${channel}`));
    },
    close: () => db.close(),
  };
  return {
    db: counted,
    snapshot: (): DbCounts => ({ ...counts }),
    statements: bySql,
    /** Records every statement from now on, until {@link stopLog} returns them. */
    startLog: () => void (log = { started: performance.now(), entries: [] }),
    stopLog: (): LogEntry[] => {
      const out = log?.entries ?? [];
      log = undefined;
      return out;
    },
  };
}

/** The counters' growth from `a` to `b`, per `n` refunds. */
export function perRefund(a: DbCounts, b: DbCounts, n: number): DbCounts {
  const per = (k: keyof DbCounts) => Math.round(((b[k] - a[k]) / n) * 100) / 100;
  return { statements: per("statements"), roundTrips: per("roundTrips"), commits: per("commits") };
}

const LIFECYCLE = new Set(["onRequest", "preParsing", "preValidation", "preHandler", "onSend", "onResponse"]);
const serviceDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../packages/service");

export interface Timing {
  count: number;
  ms: number;
}

/** The start of a hook's body, e.g. `if (!request.routeOptions.config.idempotent) return;`. */
function describeHook(fn: (...args: unknown[]) => unknown): string {
  const source = fn.toString().replace(/\s+/g, " ");
  const body = source.slice(source.indexOf("{") + 1).trim();
  return body.slice(0, 70);
}

/**
 * Times every lifecycle hook Fastify registers from now on (call before the service builds its
 * app), the route handlers and the gateway calls. Each hook is named by its kind and the start
 * of its source.
 */
export function timeHooks(gatewayOrigin: string) {
  const timings = new Map<string, Timing>();
  const record = (name: string, started: number) => {
    const t = timings.get(name) ?? { count: 0, ms: 0 };
    t.count += 1;
    t.ms += performance.now() - started;
    timings.set(name, t);
  };
  const require = createRequire(path.join(serviceDir, "package.json"));
  const { Hooks } = require("fastify/lib/hooks.js") as {
    Hooks: { prototype: { add(hook: string, fn: (...args: unknown[]) => unknown): void } };
  };
  const add = Hooks.prototype.add;
  Hooks.prototype.add = function (this: unknown, hook: string, fn: (...args: unknown[]) => unknown) {
    if (!LIFECYCLE.has(hook)) return add.call(this, hook, fn);
    // Fastify adds hooks later than addHook is called (no caller on the stack): a hook is
    // named by its kind and the start of its source.
    const name = `${hook} ${describeHook(fn)}`;
    const timed = function (this: unknown, ...args: unknown[]) {
      const started = performance.now();
      const result = fn.apply(this, args);
      if (result && typeof (result as Promise<unknown>).then === "function")
        return (result as Promise<unknown>).then(
          (value) => {
            record(name, started);
            return value;
          },
          (error: unknown) => {
            record(name, started);
            throw error;
          },
        );
      record(name, started);
      return result;
    };
    return add.call(this, hook, timed);
  };
  // The handler: from its start to its promise settling (Fastify's tracing channel).
  const handler = diagnostics.tracingChannel("fastify.request.handler");
  const started = new WeakMap<object, number>();
  const handlerHooks = {
    start: (store: object) => void started.set(store, performance.now()),
    asyncStart: (store: object) => {
      const t = started.get(store);
      if (t !== undefined) record("handler", t);
    },
    end: () => {},
    asyncEnd: () => {},
    error: () => {},
  };
  handler.subscribe(handlerHooks as never);
  // Gateway calls: undici's request from its creation to its last byte.
  const calls = new WeakMap<object, number>();
  const onCreate = (message: unknown) => {
    const { request } = message as { request: { origin: string } };
    if (String(request.origin).startsWith(gatewayOrigin)) calls.set(request, performance.now());
  };
  const onTrailers = (message: unknown) => {
    const { request } = message as { request: object };
    const t = calls.get(request);
    if (t !== undefined) record("gateway call (undici)", t);
  };
  diagnostics.subscribe("undici:request:create", onCreate);
  diagnostics.subscribe("undici:request:trailers", onTrailers);
  return {
    timings,
    reset: () => timings.clear(),
    stop: () => {
      Hooks.prototype.add = add;
      handler.unsubscribe(handlerHooks as never);
      diagnostics.unsubscribe("undici:request:create", onCreate);
      diagnostics.unsubscribe("undici:request:trailers", onTrailers);
    },
  };
}

/** A table of timings per refund: calls per refund and mean wall time per call. */
export function timingTable(timings: Map<string, Timing>, refunds: number) {
  return [...timings.entries()]
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([name, t]) => ({
      name,
      per_refund: Math.round((t.count / refunds) * 100) / 100,
      mean_ms: Math.round((t.ms / t.count) * 1000) / 1000,
      ms_per_refund: Math.round((t.ms / refunds) * 1000) / 1000,
    }));
}

/** CPU seconds of a process so far (user + system), from /proc; 0 if it is gone. */
function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command (which may hold spaces) start at the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}
const CLOCK_TICKS = 100;

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      if (Number(/\nPPid:\s+(\d+)/.exec(status)?.[1]) === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function nameOf(pid: number): string {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
    return /([\w-]+)-process\.(?:ts|mjs)/.exec(cmdline)?.[1] ?? cmdline.slice(0, 40);
  } catch {
    return String(pid);
  }
}

/**
 * CPU per process over a window, from /proc: this process (the service), the gateway and the
 * receiver it forked, and the whole PostgreSQL cluster (every child of `postmaster`: backends,
 * WAL writer, checkpointer). The load client reports its own (it exits as the window ends).
 */
export function cpuSampler(postmaster: number | undefined) {
  const sample = () => {
    const cpu = new Map<string, number>([["service", cpuSecondsOf(process.pid)]]);
    for (const pid of childrenOf(process.pid)) {
      const name = nameOf(pid);
      if (!/^(gateway|receiver)$/.test(name)) continue;
      cpu.set(name, (cpu.get(name) ?? 0) + cpuSecondsOf(pid));
    }
    if (postmaster)
      cpu.set(
        "postgres",
        [postmaster, ...childrenOf(postmaster)].reduce((sum, pid) => sum + cpuSecondsOf(pid), 0),
      );
    return cpu;
  };
  return {
    sample,
    /** µs of CPU per refund for each process, from two samples. */
    perRefund(a: Map<string, number>, b: Map<string, number>, refunds: number) {
      return Object.fromEntries(
        [...b.entries()]
          .filter(([name]) => a.has(name))
          .map(([name, s]) => [name, Math.round(((s - a.get(name)!) / refunds) * 1e6)]),
      );
    },
  };
}

/** The V8 CPU profile of this process over a window, written as a `.cpuprofile` (DevTools, speedscope). */
export function cpuProfiler() {
  const session = new inspector.Session();
  session.connect();
  const post = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))),
    );
  return {
    start: async () => {
      await post("Profiler.enable");
      await post("Profiler.setSamplingInterval", { interval: 200 });
      await post("Profiler.start");
    },
    stop: async (file: string) => {
      const { profile } = await post<{ profile: object }>("Profiler.stop");
      await writeFile(file, JSON.stringify(profile));
    },
  };
}
