/**
 * `npm run bench`: runs every `bench/*.bench.ts` module (or only those named on the command
 * line, e.g. `npm run bench -- receiver`), merges their results into
 * `bench/results/latest.json` and prints them as a table.
 *
 * A bench module default-exports `async () => BenchResult[]`. Comparisons are always measured
 * side by side in the same run: a ratio on a shared 2-core machine is the figure that counts.
 */
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

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const files = (await readdir(benchDir))
    .filter((f) => f.endsWith(".bench.ts"))
    .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
    .sort();
  const fresh: BenchResult[] = [];
  for (const file of files) {
    console.error(`• ${file}`);
    const mod = (await import(pathToFileURL(path.join(benchDir, file)).href)) as {
      default: () => Promise<BenchResult[]>;
    };
    fresh.push(...(await mod.default()));
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

await main();
