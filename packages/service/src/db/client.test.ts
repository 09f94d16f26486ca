/** The PostgreSQL client's prepared statements: reused by name, and recovered after a schema change. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgresUrl, STORES } from "../../../../test/support/stores.js";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import pg from "pg";
import { WORKER_POOL_OPTIONS } from "../webhooks/worker.js";
import { type Db, KEEPALIVE_IDLE_MS, openPostgres, type Queryable, statementText } from "./client.js";

describe.runIf(STORES.includes("postgres"))("prepared statements on postgres", () => {
  let url: string;
  let db: Db;
  beforeAll(async () => {
    url = await freshPostgresUrl();
    db = await openPostgres(url, 2);
    await db.exec("create table prepared_probe (id int primary key, a text)");
    await db.query("insert into prepared_probe values ($1, $2), ($3, $4)", [1, "x", 2, "y"]);
  });
  afterAll(() => db.close());

  it("runs a statement with parameters as a named prepared statement, once parsed per connection", async () => {
    for (let i = 0; i < 5; i++)
      expect(await db.query("select * from prepared_probe where id = $1", [1])).toEqual([{ id: 1, a: "x" }]);
    const statements = await db.query<{ name: string }>(
      "select name from pg_prepared_statements where statement = $1",
      ["select name from pg_prepared_statements where statement = $1"],
    );
    // The probe itself is prepared on the connection that ran it.
    expect(statements.map((s) => s.name)).toEqual([expect.stringMatching(/^svc_\d+$/)]);
  });

  it("a statement whose result columns changed is prepared again instead of failing", async () => {
    const sql = "select * from prepared_probe where id = $1";
    // Prepare it on both connections of the pool.
    await Promise.all([db.query(sql, [1]), db.query(sql, [2])]);
    await db.exec("alter table prepared_probe add column b text default 'z'");
    const rows = await Promise.all([db.query(sql, [1]), db.query(sql, [2])]);
    expect(rows).toEqual([[{ id: 1, a: "x", b: "z" }], [{ id: 2, a: "y", b: "z" }]]);
  });

  it("in a transaction the stale statement fails once, and the next transaction succeeds", async () => {
    // One connection, so the transaction after the change runs where the statement was prepared.
    const single = await openPostgres(url, 1);
    try {
      const sql = "select * from prepared_probe where id = $1 and a is not null";
      await single.tx((q) => q.query(sql, [1]));
      await single.exec("alter table prepared_probe add column c text default 'w'");
      const attempt = () => single.tx((q) => q.query(sql, [1]));
      await expect(attempt()).rejects.toThrow(/cached plan must not change result type/);
      expect(await attempt()).toEqual([{ id: 1, a: "x", b: "z", c: "w" }]);
    } finally {
      await single.close();
    }
  });

  it("after its first execution a statement's result is not described again, and its rows come out the same", async () => {
    // Every type svc reads back, nulls, several rows, and no rows.
    const sql = `select $1::int8 as big, $2::numeric as amount, $3::timestamptz as at, $4::boolean as ok, $5::text as note,
                        $6::jsonb as doc, $7::int4[] as schedule, null::text as nothing, g as n
                   from generate_series(1, $8::int4) g`;
    const params = [
      9_007_199_254_740_991,
      "12.345",
      "2026-11-29T18:00:00.123Z",
      true,
      "héllo",
      { a: [1] },
      [5, 300],
    ];
    const descriptions: string[] = [];
    const described = pg.Query.prototype as unknown as { handleRowDescription(msg: unknown): void };
    const handle = described.handleRowDescription;
    described.handleRowDescription = function (this: { name?: string }, msg) {
      descriptions.push(this.name ?? "");
      handle.call(this, msg);
    };
    try {
      // Once alone (two executions at once before either has answered are both described), then
      // on both connections of the pool, in and out of a transaction.
      expect(await db.query(sql, [...params, 1])).toHaveLength(1);
      const runs = [];
      for (let i = 0; i < 3; i++) {
        runs.push(await Promise.all([db.query(sql, [...params, 2]), db.query(sql, [...params, 3])]));
        runs.push([await db.tx((q) => q.query(sql, [...params, 0]))]);
      }
      const row = (n: number) => ({
        big: 9_007_199_254_740_991,
        amount: "12.345",
        at: new Date("2026-11-29T18:00:00.123Z"),
        ok: true,
        note: "héllo",
        doc: { a: [1] },
        schedule: [5, 300],
        nothing: null,
        n,
      });
      for (let i = 0; i < 3; i++) {
        expect(runs[2 * i]).toEqual([
          [row(1), row(2)],
          [row(1), row(2), row(3)],
        ]);
        expect(runs[2 * i + 1]).toEqual([[]]);
      }
      // Described once: the first execution, whose columns every later one reuses.
      expect(descriptions).toHaveLength(1);
      // A statement whose first execution fails keeps no columns from it: its first success is
      // described (as the failure was), the next one not.
      const failing = "select 1 / $1::int4 as q";
      await expect(db.query(failing, [0])).rejects.toThrow(/division by zero/);
      expect(await db.query(failing, [1])).toEqual([{ q: 1 }]);
      expect(await db.query(failing, [1])).toEqual([{ q: 1 }]);
      expect(descriptions).toHaveLength(3);
      expect(descriptions[2]).toBe(descriptions[1]);
    } finally {
      described.handleRowDescription = handle;
    }
  });

  it("notifies on a connection of its own, even while every pooled connection is busy", async () => {
    const heard: string[] = [];
    const unlisten = await db.listen("probe_channel", () => heard.push("woken"));
    // Hold the pool's other connection in a transaction: a NOTIFY through the pool would wait.
    // The NOTIFY goes once the transaction holds its connection (on a loaded machine the wake once
    // came before it did, and the test released nothing).
    let release!: () => void;
    let holding!: () => void;
    const heldNow = new Promise<void>((resolve) => (holding = resolve));
    const held = db.tx(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
          holding();
        }),
    );
    await heldNow;
    await db.notify("probe_channel");
    const deadline = Date.now() + 5_000;
    while (heard.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(heard).toEqual(["woken"]);
    release();
    await held;
    await unlisten();
  });

  it("the worker's pool commits without waiting for the WAL flush and plans no whole-table reads; the default pool leaves the server's settings", async () => {
    const setting = async (q: Queryable, name = "synchronous_commit") =>
      (
        await q.query<{ setting: string; source: string }>(
          "select setting, source from pg_settings where name = $1",
          [name],
        )
      )[0];
    const worker = await openPostgres(url, 2, WORKER_POOL_OPTIONS);
    try {
      // The test cluster itself runs with synchronous_commit off (a throwaway store), so the
      // default pool is told apart by where its value comes from: not from the client.
      expect((await setting(db))?.source).not.toBe("client");
      expect(await setting(db, "enable_seqscan")).toMatchObject({ setting: "on" });
      // Every connection of the worker's pool, inside a transaction and out of one.
      const expected = { setting: "off", source: "client" };
      expect(await Promise.all([setting(worker), worker.tx(setting)])).toEqual([expected, expected]);
      expect(
        await Promise.all([
          setting(worker, "enable_seqscan"),
          worker.tx((q) => setting(q, "enable_seqscan")),
        ]),
      ).toEqual([expected, expected]);
    } finally {
      await worker.close();
    }
  });
  it("no connection JIT-compiles: a statement estimated past jit_above_cost plans no JIT", async () => {
    const jit = async (q: Queryable) =>
      (
        await q.query<{ setting: string; source: string }>(
          "select setting, source from pg_settings where name = 'jit'",
        )
      )[0];
    expect(await Promise.all([jit(db), db.tx(jit)])).toEqual([
      { setting: "off", source: "client" },
      { setting: "off", source: "client" },
    ]);
    // A statement whose estimate passes jit_above_cost (100,000 by default) plans no JIT (plain
    // EXPLAIN shows the JIT it would do, without running the statement).
    const plan = await db.query<{ "QUERY PLAN": string }>(
      "explain select count(*) from generate_series(1, 1000000) a, generate_series(1, 100) b where a + b > 5",
    );
    const text = plan.map((r) => r["QUERY PLAN"]).join("\n");
    expect(Number(/cost=[\d.]+\.\.([\d.]+)/.exec(text)?.[1])).toBeGreaterThan(100_000);
    expect(text).not.toMatch(/JIT/);
  });

  it("every connection (pool, LISTEN, NOTIFY) probes an idle peer by TCP keepalive after 10 s, not the kernel's two hours", async () => {
    const before = ownSockets();
    const probed = await openPostgres(url, 2);
    try {
      const unlisten = await probed.listen("keepalive_probe", () => {});
      await probed.notify("keepalive_probe");
      await Promise.all([probed.query("select 1"), probed.tx((q) => q.query("select pg_sleep(0.05)"))]);
      await new Promise((resolve) => setTimeout(resolve, 200)); // every socket idle, its last data acknowledged
      const port = Number(new URL(url).port);
      const sockets = connectionsTo(port).filter((c) => !before.has(c.inode) && ownSockets().has(c.inode));
      // The pool's two, the LISTEN connection and the NOTIFY connection.
      expect(sockets).toHaveLength(4);
      for (const socket of sockets) {
        expect(socket.timer, "a keepalive timer").toBe(KEEPALIVE_TIMER);
        expect(socket.dueInMs).toBeLessThanOrEqual(KEEPALIVE_IDLE_MS);
      }
      await unlisten();
    } finally {
      await probed.close();
    }
  });
});

/** /proc/net/tcp's timer kind for a keepalive timer (1: retransmit, 2: keepalive, 0: none). */
const KEEPALIVE_TIMER = 2;

/** The inodes of the sockets this process holds open. */
function ownSockets(): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** Established loopback TCP connections to `port`, with their timer (kind, and when it is due). */
function connectionsTo(port: number): { inode: string; timer: number; dueInMs: number }[] {
  const remote = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  return readFileSync("/proc/net/tcp", "utf8")
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols[2]?.endsWith(remote) && cols[3] === "01")
    .map((cols) => {
      const [kind, when] = cols[5]!.split(":");
      // `when` is in clock ticks (USER_HZ, 100 a second on Linux).
      return { inode: cols[9]!, timer: parseInt(kind!, 16), dueInMs: parseInt(when!, 16) * 10 };
    });
}

describe("statementText", () => {
  it("builds a key's text once and hands the same text out after; another key builds its own", () => {
    let builds = 0;
    const build = (part: string) => () => {
      builds += 1;
      return `select ${part} from (select 1 as x) t`;
    };
    const first = statementText("client.test one", build("x"));
    expect(statementText("client.test one", build("ignored"))).toBe(first);
    expect(builds).toBe(1);
    expect(statementText("client.test two", build("x + 1"))).toBe("select x + 1 from (select 1 as x) t");
    expect(builds).toBe(2);
  });
});
