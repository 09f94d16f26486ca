/**
 * `npm run bench`: runs every `bench/*.bench.ts` module (or only those named on the command
 * line, e.g. `npm run bench -- receiver`), merges their results into
 * `bench/results/latest.json` and prints them as a table.
 *
 * A bench module default-exports `async () => BenchResult[]`. Comparisons are always measured
 * side by side in the same run: a ratio on a shared 2-core machine is the figure that counts.
 */
import { fork } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  /** The figure this one is compared with, measured in the same run. */
  vs?: { name: string; value: number };
  /** The target from the issue, for the table only. */
  target?: string;
}

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const latestPath = path.join(benchDir, "results", "latest.json");

/**
 * Each bench module runs in a process of its own, so none measures in a heap, a JIT state or
 * with timers and sockets left by another (the receiver's ratios came out ~10 % lower when it ran
 * after the database benches in one process).
 */
interface ModuleReport {
  results: BenchResult[];
  /** The durability settings of the PostgreSQL the module measured on, read from the server. */
  postgres?: Record<string, string>;
}

function runIsolated(file: string): Promise<ModuleReport> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ["--module", file], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let results: ModuleReport | undefined;
    child.once("message", (message) => (results = message as ModuleReport));
    child.once("error", reject);
    child.once("exit", (code) =>
      results ? resolve(results) : reject(new Error(`${file} exited with ${code} before reporting`)),
    );
  });
}

/** The child side of runIsolated: runs one module and hands its results to the parent. */
async function runModule(file: string): Promise<void> {
  const mod = (await import(pathToFileURL(path.join(benchDir, file)).href)) as {
    default: () => Promise<BenchResult[]>;
  };
  const results = await mod.default();
  const { postgresSettings } = await import("./support/stores.js");
  const report: ModuleReport = { results, postgres: postgresSettings() };
  process.send!(report, () => process.exit(0));
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const files = (await readdir(benchDir))
    .filter((f) => f.endsWith(".bench.ts"))
    .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
    .sort();
  const fresh: BenchResult[] = [];
  let postgres: Record<string, string> | undefined;
  for (const file of files) {
    console.error(`• ${file}`);
    const report = await runIsolated(file);
    fresh.push(...report.results);
    postgres ??= report.postgres;
  }
  // Keep results of benches not run this time, so a partial run does not erase the others.
  let previous: BenchResult[] = [];
  let previousPostgres: Record<string, string> | undefined;
  try {
    const file = JSON.parse(await readFile(latestPath, "utf8")) as {
      results: BenchResult[];
      postgres?: Record<string, string>;
    };
    previous = file.results;
    previousPostgres = file.postgres;
  } catch {
    previous = [];
  }
  const names = new Set(fresh.map((r) => r.name));
  const results = [...previous.filter((r) => !names.has(r.name)), ...fresh].sort((a, b) =>
    a.name.localeCompare(b.name),
  );
  const report = {
    when: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version },
    // The PostgreSQL figures' store: durable (fsync, synchronous_commit, full_page_writes on).
    postgres: postgres ?? previousPostgres,
    results,
  };
  await writeFile(latestPath, `${JSON.stringify(report, null, 2)}\n`);
  console.table(
    results.map((r) => ({
      name: r.name,
      value: r.value,
      unit: r.unit,
      vs: r.vs ? `${r.vs.name} = ${r.vs.value}` : "",
      ratio: r.vs && r.vs.value ? (r.value / r.vs.value).toFixed(2) : "",
      target: r.target ?? "",
    })),
  );
  if (report.postgres)
    console.log(
      `PostgreSQL figures measured with ${Object.entries(report.postgres)
        .map(([k, v]) => `${k}=${v}`)
        .join(", ")}`,
    );
  console.log(`written ${path.relative(process.cwd(), latestPath)}`);
}

if (process.argv[2] === "--module") await runModule(process.argv[3]!);
else await main();
