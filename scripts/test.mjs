#!/usr/bin/env node
/**
 * `npm test`: starts a throwaway PostgreSQL on a private loopback port (so the store and HTTP
 * tests run against PostgreSQL as well as PGlite), runs vitest, and removes the cluster.
 * Without PostgreSQL binaries the PostgreSQL half is skipped with a warning — except under CI,
 * where it is an error (CI must test both stores; .ci/run installs PostgreSQL).
 * Extra arguments go to vitest: `npm test -- packages/service`.
 *
 * Once the whole main suite has passed (no extra arguments), the fault suite runs alone
 * (vitest.faults.config.ts: svc processes on a PostgreSQL cluster of its own, crashed, frozen and
 * killed; docs/operations.md, "The fault suite"), after the shared cluster is gone, so its timings
 * do not compete with other tests. It needs the PostgreSQL binaries: skipped with a warning
 * without them, an error under CI. `--faults` (`npm run test:faults`) runs the fault suite only.
 */
import { spawn } from "node:child_process";
import { findPgBin, startPostgres } from "./postgres.mjs";

const env = { ...process.env };
const bin = findPgBin();
const faultsOnly = process.argv[2] === "--faults";
const vitestArgs = process.argv.slice(faultsOnly ? 3 : 2);
let current;
process.on("SIGINT", () => current?.kill("SIGINT"));

/** Runs vitest with `args`; resolves with its exit code. */
function vitest(args, childEnv) {
  current = spawn(process.execPath, ["node_modules/vitest/vitest.mjs", "run", ...args], {
    env: childEnv,
    stdio: "inherit",
  });
  return new Promise((resolve) => current.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

/** The fault suite, when PostgreSQL's binaries are here (under CI they must be). */
async function faults() {
  if (!bin) {
    if (env.CI) {
      console.error(
        "PostgreSQL binaries not found under /usr/lib/postgresql: the fault suite needs them (.ci/run installs the postgresql package).",
      );
      return 1;
    }
    console.warn("PostgreSQL not found: the fault suite is skipped. Install Debian's postgresql to run it.");
    return 0;
  }
  return vitest(["--config", "vitest.faults.config.ts", ...vitestArgs], { ...process.env });
}

if (faultsOnly) process.exit(await faults());

let pg;
if (bin && !env.SVC_TEST_DATABASE_URL) {
  pg = await startPostgres(bin);
  env.SVC_TEST_DATABASE_URL = pg.url;
  console.log(`PostgreSQL for tests at ${pg.url}`);
} else if (!env.SVC_TEST_DATABASE_URL) {
  if (env.CI) {
    console.error(
      "PostgreSQL binaries not found under /usr/lib/postgresql: install the postgresql package (.ci/run does).",
    );
    process.exit(1);
  }
  console.warn(
    "PostgreSQL not found: running the PGlite half only. Install Debian's postgresql to test both stores.",
  );
}

const code = await vitest(vitestArgs, env);
pg?.stop();
// A filtered run (`npm test -- <files>`) is for those files only; a failed one stops here.
if (code !== 0 || vitestArgs.length > 0) process.exit(code);
process.exit(await faults());
