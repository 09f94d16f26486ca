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
function runIsolated(file: string): Promise<BenchResult[]> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ["--module", file], {
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    let results: BenchResult[] | undefined;
    child.once("message", (message) => (results = message as BenchResult[]));
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
  process.send!(results, () => process.exit(0));
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const files = (await readdir(benchDir))
    .filter((f) => f.endsWith(".bench.ts"))
    .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
    .sort();
  const fresh: BenchResult[] = [];
  for (const file of files) {
    console.error(`• ${file}`);
    fresh.push(...(await runIsolated(file)));
  }
  // Keep results of benches not run this time, so a partial run does not erase the others.
  let previous: BenchResult[] = [];
  try {
    previous = (JSON.parse(await readFile(latestPath, "utf8")) as { results: BenchResult[] }).results;
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
  console.log(`written ${path.relative(process.cwd(), latestPath)}`);
}

if (process.argv[2] === "--module") await runModule(process.argv[3]!);
else await main();
