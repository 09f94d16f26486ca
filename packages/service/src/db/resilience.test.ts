/**
 * svc's side of a PostgreSQL failure, on a cluster of this test's own (the shared test cluster
 * must not be crashed under the other test files): a statement in flight when the server dies
 * fails, the process does not; while it is down every statement fails within the connect timeout;
 * a server that stops answering with its sockets open (SIGSTOP, a partition) fails statements
 * within the statement timeout; LISTEN comes back by itself and says notifications may have been
 * missed; and the HTTP service answers 503 database_unavailable with Retry-After, /readyz 503 and
 * /healthz 200, then serves again as soon as the server is back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findPgBin, startPostgres } from "../../../../scripts/postgres.mjs";
import { api, bearer } from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { type Db, isDatabaseUnavailable, openPostgres } from "./client.js";
import { migrate } from "./migrate.js";

const CONNECT_TIMEOUT_MS = 1_000;
const STATEMENT_TIMEOUT_MS = 1_500;
const bin = findPgBin();

type Cluster = Awaited<ReturnType<typeof startPostgres>>;

/** How long `fn` took and how it ended. */
async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const start = Date.now();
  try {
    return { ms: Date.now() - start, value: await fn() };
  } catch (error) {
    return { ms: Date.now() - start, error };
  }
}

async function eventually<T>(fn: () => Promise<T>, timeoutMs: number): Promise<{ ms: number; value: T }> {
  const start = Date.now();
  for (;;) {
    try {
      return { ms: Date.now() - start, value: await fn() };
    } catch (error) {
      if (Date.now() - start > timeoutMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe.runIf(bin)("PostgreSQL failures", () => {
  let cluster: Cluster;
  let db: Db;
  const payloads: string[] = [];
  let lost = 0;

  beforeAll(async () => {
    cluster = await startPostgres(bin!);
    db = await openPostgres(cluster.url, 3, {
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
    });
    await db.listen(
      "svc_resilience",
      (p) => payloads.push(p),
      () => (lost += 1),
    );
  });
  afterAll(async () => {
    await db?.close();
    cluster?.stop();
  });

  it("a crash fails the statements in flight and those that follow, quickly; recovery needs no restart", async () => {
    const inFlight = timed(() => db.query("select pg_sleep(5)"));
    const inTx = timed(() =>
      db.tx(async (q) => {
        await q.query("select 1");
        await q.query("select pg_sleep(5)");
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    cluster.crash();
    for (const ended of [await inFlight, await inTx]) {
      expect(isDatabaseUnavailable(ended.error)).toBe(true);
      expect(ended.ms).toBeLessThan(2_000);
    }
    const down = await timed(() => db.query("select 1"));
    expect(isDatabaseUnavailable(down.error)).toBe(true);
    expect(down.ms).toBeLessThan(CONNECT_TIMEOUT_MS + 1_000);
    cluster.start();
    const back = await eventually(() => db.query<{ n: number }>("select 1 as n"), 5_000);
    expect(back.value).toEqual([{ n: 1 }]);
    expect(back.ms).toBeLessThan(5_000);
    // LISTEN is back by itself, and its subscriber was told it may have missed notifications.
    await eventually(async () => {
      await db.notify("svc_resilience");
      if (!payloads.includes("")) throw new Error("no notification yet");
    }, 5_000);
    expect(lost).toBeGreaterThanOrEqual(1);
  });

  it("a server that stops answering (SIGSTOP) fails statements within the statement timeout, then answers again", async () => {
    cluster.freeze();
    let frozen: Awaited<ReturnType<typeof timed>>;
    try {
      frozen = await timed(() => db.query("select 1"));
    } finally {
      cluster.thaw();
    }
    expect(isDatabaseUnavailable(frozen.error)).toBe(true);
    expect(frozen.ms).toBeLessThan(STATEMENT_TIMEOUT_MS + CONNECT_TIMEOUT_MS + 1_500);
    const back = await eventually(() => db.query("select 1"), 5_000);
    expect(back.ms).toBeLessThan(5_000);
  });

  it("errors that are the statement's own are not taken for an unavailable database", async () => {
    const wrong = await timed(() => db.query("select * from no_such_table"));
    expect(wrong.error).toBeDefined();
    expect(isDatabaseUnavailable(wrong.error)).toBe(false);
  });

  describe("the HTTP service", () => {
    let stack: Stack;
    beforeAll(async () => {
      await migrate(db);
      stack = await startStack("postgres", { db });
    });
    afterAll(async () => stack?.close());

    const createMerchant = () =>
      api(stack, "POST", "/v1/admin/merchants", {
        auth: bearer,
        body: { root_domain: `r${Date.now()}${Math.random().toString(36).slice(2, 6)}.example` },
      });

    it("answers 503 with Retry-After while the database is down, /readyz 503 and /healthz 200, and serves again when it is back", async () => {
      expect((await createMerchant()).status).toBe(201);
      cluster.crash();
      try {
        const refused = await createMerchant();
        expect(refused.status).toBe(503);
        expect(refused.json.code).toBe("database_unavailable");
        expect(refused.headers.get("retry-after")).toBe("2");
        const ready = await api(stack, "GET", "/readyz");
        expect(ready.status).toBe(503);
        expect(ready.json.status).toBe("database_unreachable");
        expect(ready.text).not.toContain("127.0.0.1");
        expect((await api(stack, "GET", "/healthz")).status).toBe(200);
        const page = await api(stack, "GET", "/dashboard/sign-in");
        expect(page.status).toBeLessThan(500);
      } finally {
        cluster.start();
      }
      const back = await eventually(async () => {
        const r = await createMerchant();
        if (r.status !== 201) throw new Error(`still ${r.status}`);
        return r;
      }, 5_000);
      expect(back.ms).toBeLessThan(5_000);
      expect((await api(stack, "GET", "/readyz")).status).toBe(200);
    });
  });
});
