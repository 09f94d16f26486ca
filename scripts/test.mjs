#!/usr/bin/env node
/**
 * `npm test`: starts a throwaway PostgreSQL on a private loopback port (so the store and HTTP
 * tests run against PostgreSQL as well as PGlite), runs vitest, and removes the cluster.
 * Without PostgreSQL binaries the PostgreSQL half is skipped with a warning — except under CI,
 * where it is an error (CI must test both stores; .ci/run installs PostgreSQL).
 * Extra arguments go to vitest: `npm test -- packages/service`.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

function findPgBin() {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).sort((a, b) => Number(b) - Number(a));
  for (const v of versions)
    if (existsSync(path.join(base, v, "bin", "initdb"))) return path.join(base, v, "bin");
  return undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

/** initdb refuses to run as root: run the server as the postgres user when we are root. */
function asPgUser(cmd, args) {
  if (process.getuid?.() === 0)
    return spawnSync("runuser", ["-u", "postgres", "--", cmd, ...args], { encoding: "utf8" });
  return spawnSync(cmd, args, { encoding: "utf8" });
}

async function startPostgres(bin) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "svc-pg-"));
  chmodSync(dir, 0o777);
  const data = path.join(dir, "data");
  const port = await freePort();
  let r = asPgUser(path.join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    "svc",
    "--auth=trust",
    "-E",
    "UTF8",
    "--no-sync",
  ]);
  if (r.status !== 0) throw new Error(`initdb failed: ${r.stderr}`);
  r = asPgUser(path.join(bin, "pg_ctl"), [
    "-D",
    data,
    "-l",
    path.join(dir, "log"),
    "-w",
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=300`,
    "start",
  ]);
  if (r.status !== 0) throw new Error(`pg_ctl start failed: ${r.stderr}`);
  return {
    url: `postgres://svc@127.0.0.1:${port}/postgres`,
    stop() {
      asPgUser(path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "stop"]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

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
