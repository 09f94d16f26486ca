/**
 * A throwaway PostgreSQL cluster on a private loopback port, for `npm test` and `npm run bench`:
 * `findPgBin()` finds Debian's binaries, `startPostgres(bin, {durable})` runs initdb + pg_ctl (as
 * the postgres user when we are root) and returns `{ url, stop() }`.
 *
 * `durable: false` (the tests) turns `fsync` and `synchronous_commit` off: a test database is
 * thrown away, and a crash of the machine is not what it tests. `durable: true` (the benches)
 * keeps PostgreSQL's defaults — `fsync`, `synchronous_commit` and `full_page_writes` on — as
 * production runs it: a figure measured on a store that can lose committed data is not one.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export function findPgBin() {
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

/** The durability settings a bench reports beside its figures. */
export const DURABILITY_SETTINGS = ["fsync", "synchronous_commit", "full_page_writes"];

export async function startPostgres(bin, { durable = false } = {}) {
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
  const startArgs = [
    "-D",
    data,
    "-l",
    path.join(dir, "log"),
    "-w",
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${durable ? "" : " -c fsync=off -c synchronous_commit=off"} -c max_connections=300${process.env.SVC_PG_OPTIONS ? ` ${process.env.SVC_PG_OPTIONS}` : ""}`,
    "start",
  ];
  r = asPgUser(path.join(bin, "pg_ctl"), startArgs);
  if (r.status !== 0) throw new Error(`pg_ctl start failed: ${r.stderr}`);
  /** Signals a server process; one that exited since it was listed (ESRCH) is skipped. */
  const signalIfAlive = (pid, signal) => {
    try {
      process.kill(Number(pid), signal);
    } catch (error) {
      if (error.code !== "ESRCH") throw error;
    }
  };
  /** The server's processes: the postmaster (first line of postmaster.pid) and its children. */
  const postmasterOf = () => readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0].trim();
  const childrenOf = (postmaster) =>
    spawnSync("pgrep", ["-P", postmaster], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
  const pids = () => {
    const postmaster = postmasterOf();
    return [postmaster, ...childrenOf(postmaster)];
  };
  return {
    url: `postgres://svc@127.0.0.1:${port}/postgres`,
    stop() {
      asPgUser(path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "stop"]);
      rmSync(dir, { recursive: true, force: true });
    },
    /** Fault tests: the server dies at once, as in a crash (its clients' sockets are closed). */
    crash() {
      const r = asPgUser(path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "stop"]);
      if (r.status !== 0) throw new Error(`pg_ctl stop failed: ${r.stderr}`);
    },
    /** Fault tests: the server starts again on the same port and data (crash recovery). */
    start() {
      const r = asPgUser(path.join(bin, "pg_ctl"), startArgs);
      if (r.status !== 0) throw new Error(`pg_ctl start failed: ${r.stderr}`);
    },
    /** Fault tests: every server process stops answering, sockets stay open (a partition). */
    freeze() {
      // The postmaster first, then its children as they are now: a backend it forked between
      // listing the children and stopping it (a client connecting at that instant) once kept
      // answering through the whole freeze.
      const postmaster = postmasterOf();
      process.kill(Number(postmaster), "SIGSTOP");
      for (const pid of childrenOf(postmaster)) signalIfAlive(pid, "SIGSTOP");
    },
    /** The server's processes now (the postmaster first): fault tests check their state. */
    pids,
    thaw() {
      // The postmaster first again; once it runs it may reap a child that had already exited
      // (listed as a zombie), so a pid gone by the time it is signalled is not an error. Once
      // that threw halfway and left the other backends stopped for the next test.
      for (const pid of pids()) signalIfAlive(pid, "SIGCONT");
    },
  };
}
