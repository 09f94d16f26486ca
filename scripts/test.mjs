#!/usr/bin/env node
/**
 * `npm test`: starts a throwaway PostgreSQL on a private loopback port (so the store and HTTP
 * tests run against PostgreSQL as well as PGlite), runs vitest, and removes the cluster.
 * Without PostgreSQL binaries the PostgreSQL half is skipped with a warning — except under CI,
 * where it is an error (CI must test both stores; .ci/run installs PostgreSQL).
 * Extra arguments go to vitest: `npm test -- packages/service`.
 */
import { spawn } from "node:child_process";
import { findPgBin, startPostgres } from "./postgres.mjs";

const env = { ...process.env };
let pg;
const bin = findPgBin();
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

const vitest = spawn(process.execPath, ["node_modules/vitest/vitest.mjs", "run", ...process.argv.slice(2)], {
  env,
  stdio: "inherit",
});
const stop = () => pg?.stop();
process.on("SIGINT", () => vitest.kill("SIGINT"));
vitest.on("exit", (code, signal) => {
  stop();
  process.exit(code ?? (signal ? 1 : 0));
});
