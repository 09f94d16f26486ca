/**
 * `svc serve` started while its PostgreSQL cannot be reached yet (docs/operations.md, "Running on
 * PostgreSQL in production"): it waits and tries again, a line per try, for SVC_DB_START_WAIT_MS;
 * then it gives up with status 1. A database that answers but refuses svc ends the start at once.
 *
 * The database "comes up" behind a loopback TCP relay that drops its first connections (as a
 * server still starting, or a port not yet forwarded, does) and relays the rest to the tests'
 * PostgreSQL, so the moment it comes up is the test's, not the machine's.
 */
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../support/free-port.js";
import { type ServeProcess, startServe } from "../support/serve.js";
import { ADMIN_TOKEN } from "../support/stack.js";
import { freshPostgresUrl } from "../support/stores.js";

const POSTGRES = Boolean(process.env.SVC_TEST_DATABASE_URL);
const PASSWORD = "start-wait-password-7f3a";

/** Relays loopback connections to `target`, after dropping the first `drop` of them. */
async function startRelay(target: URL, drop: number) {
  let seen = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => {});
    if (++seen <= drop) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as net.AddressInfo;
  return {
    port: address.port,
    dropped: () => Math.min(seen, drop),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** `url` with its host and port replaced, and a password the test looks for in the output. */
function via(url: string, port: number): string {
  const u = new URL(url);
  u.host = `127.0.0.1:${port}`;
  u.password = PASSWORD;
  return u.toString();
}

async function env(databaseUrl: string, extra: Record<string, string> = {}) {
  return {
    SVC_DATABASE_URL: databaseUrl,
    SVC_PORT: String(await freePort()),
    SVC_ROLE: "api",
    SVC_ADMIN_TOKEN: ADMIN_TOKEN,
    SVC_DB_CONNECT_TIMEOUT_MS: "1000",
    ...extra,
  };
}

/** Starts `svc serve` expecting it to exit before it is ready; returns its output and exit code. */
async function startFailing(vars: Record<string, string>) {
  const started = Date.now();
  const error = await startServe(vars).then(
    async (s) => {
      await s.stop();
      return undefined;
    },
    (e: unknown) => e as Error,
  );
  expect(error, "svc serve became ready").toBeInstanceOf(Error);
  return { output: error!.message, ms: Date.now() - started };
}

describe.skipIf(!POSTGRES)("svc serve started before its database", () => {
  let serve: ServeProcess | undefined;
  let relay: Awaited<ReturnType<typeof startRelay>> | undefined;

  afterEach(async () => {
    await serve?.stop();
    serve = undefined;
    await relay?.close();
    relay = undefined;
  });

  it("waits for a database that cannot be reached yet, a line per try, then serves", async () => {
    const url = new URL(await freshPostgresUrl());
    relay = await startRelay(url, 3);
    serve = await startServe(await env(via(url.toString(), relay.port)));
    expect(relay.dropped()).toBe(3);
    const waits = serve
      .output()
      .split("\n")
      .filter((line) => line.startsWith("svc: the database cannot be reached yet ("));
    expect(waits).toHaveLength(3);
    expect(waits[0]).toMatch(/; trying again in 1 s, giving up in (59|60) s \(SVC_DB_START_WAIT_MS\)$/);
    expect(serve.output()).not.toContain(PASSWORD);
    // It migrated and serves: readiness reads the database.
    const ready = await fetch(`${serveUrl(serve)}/readyz`);
    expect(ready.status).toBe(200);
  });

  it("gives up after SVC_DB_START_WAIT_MS with status 1 and the reason, never the password", async () => {
    const closed = await freePort(); // nothing listens there
    const url = via(await freshPostgresUrl(), closed);
    const { output, ms } = await startFailing(await env(url, { SVC_DB_START_WAIT_MS: "1500" }));
    expect(output).toMatch(
      /svc: the database cannot be reached yet \(connect ECONNREFUSED 127\.0\.0\.1:\d+\); trying again in/,
    );
    expect(output).toMatch(/svc: connect ECONNREFUSED 127\.0\.0\.1:\d+\s*$/);
    expect(ms).toBeGreaterThanOrEqual(1_500);
    expect(output).toContain("exited (status 1)");
    expect(output).not.toContain(PASSWORD);
  });

  it("ends the start at once when the database answers but refuses svc (no such database)", async () => {
    const url = new URL(await freshPostgresUrl());
    url.pathname = "/svc_no_such_database";
    const { output } = await startFailing(await env(via(url.toString(), Number(url.port))));
    expect(output).toContain('database "svc_no_such_database" does not exist');
    expect(output).not.toContain("cannot be reached yet");
    expect(output).not.toContain(PASSWORD);
  });
});

/** The service's base URL, from its ready line. */
function serveUrl(serve: ServeProcess): string {
  const match = /svc serving on (http:\/\/\S+)/.exec(serve.output());
  if (!match) throw new Error(`no ready line in:\n${serve.output()}`);
  return match[1]!;
}
