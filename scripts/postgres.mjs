/**
 * A throwaway PostgreSQL cluster on a private loopback port, for `npm test` and `npm run bench`:
 * `findPgBin()` finds Debian's binaries, `startPostgres(bin)` runs initdb + pg_ctl (as the
 * postgres user when we are root) and returns `{ url, stop() }`.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
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

export async function startPostgres(bin) {
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
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=300${process.env.SVC_PG_OPTIONS ? ` ${process.env.SVC_PG_OPTIONS}` : ""}`,
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
