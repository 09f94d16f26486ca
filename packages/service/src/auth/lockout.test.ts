/**
 * One lockout for Basic credentials on the API and the dashboard's sign-in form, counted
 * atomically: parallel guesses check the password at most as often as the lockout allows, a
 * user locked by one path is locked on the other, and an unknown username costs what a known
 * one costs. Real HTTP on both stores; `passwordVerifications` counts the scrypt checks of this
 * process (the service runs in it).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient } from "../../../../test/support/dashboard.js";
import { api, basic, bearer, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import type { Db } from "../db/client.js";
import { createLockout, purgeStaleSignInFailures, USER_FAILURES_BEFORE_LOCK } from "./lockout.js";
import { passwordVerifications } from "./passwords.js";

const PARALLEL = 50;

describe.each(STORES)("one lockout for Basic auth and the sign-in form on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let users = 0;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  // Every test starts with no counters (they are per username and per address: 127.0.0.1 here).
  afterEach(() => stack.db.query("delete from dashboard_sign_in_failures"));
  afterAll(() => stack?.close());

  async function newUser() {
    const user = { username: `lock-${Date.now()}-${users++}`, password: "the-right-password" };
    const r = await api(stack, "POST", `/v1/admin/merchants/${m.id}/users`, {
      auth: bearer,
      body: { ...user, email: `${user.username}@example.com`, permissions: ["payment.view"] },
    });
    expect(r.status).toBe(201);
    return user;
  }
  const viaBasic = (user: { username: string; password: string }) =>
    api(stack, "GET", "/v1/discrepancies", { auth: basic(user) });
  async function viaForm(user: { username: string; password: string }) {
    const client = new DashboardClient(stack);
    await client.get("/dashboard/sign-in");
    return client.post("/dashboard/sign-in", user);
  }

  it(`${PARALLEL} parallel wrong passwords through Basic auth check at most ${USER_FAILURES_BEFORE_LOCK}`, async () => {
    const user = await newUser();
    const before = passwordVerifications();
    const answers = await Promise.all(
      Array.from({ length: PARALLEL }, () => viaBasic({ ...user, password: "wrong-password" })),
    );
    expect(passwordVerifications() - before).toBeLessThanOrEqual(USER_FAILURES_BEFORE_LOCK);
    expect(answers.filter((a) => a.status === 401)).toHaveLength(USER_FAILURES_BEFORE_LOCK);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(PARALLEL - USER_FAILURES_BEFORE_LOCK);
    expect(refused[0]!.json.code).toBe("rate_limited");
    expect(Number(refused[0]!.headers.get("retry-after"))).toBeGreaterThan(0);
    // Locked: the right password is refused too, on both paths, without a check.
    const checks = passwordVerifications();
    expect((await viaBasic(user)).status).toBe(429);
    expect((await viaForm(user)).status).toBe(429);
    expect(passwordVerifications()).toBe(checks);
  });

  it(`${PARALLEL} parallel wrong passwords through the sign-in form check at most ${USER_FAILURES_BEFORE_LOCK}`, async () => {
    const user = await newUser();
    const clients = await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        const client = new DashboardClient(stack);
        await client.get("/dashboard/sign-in");
        return client;
      }),
    );
    const before = passwordVerifications();
    const answers = await Promise.all(
      clients.map((c) => c.post("/dashboard/sign-in", { ...user, password: "wrong-password" })),
    );
    expect(passwordVerifications() - before).toBeLessThanOrEqual(USER_FAILURES_BEFORE_LOCK);
    expect(answers.filter((a) => a.status === 401)).toHaveLength(USER_FAILURES_BEFORE_LOCK);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(PARALLEL - USER_FAILURES_BEFORE_LOCK);
    // Locked by the form: Basic auth with the right password is refused as well.
    const basicAnswer = await viaBasic(user);
    expect(basicAnswer.status).toBe(429);
    expect(basicAnswer.json.detail).toContain("Too many failed sign-ins");
  });

  it("a credential cached after a success is refused while its user is locked", async () => {
    const user = await newUser();
    expect((await viaBasic(user)).status).toBe(200); // verified and cached
    for (let i = 0; i < USER_FAILURES_BEFORE_LOCK; i++) await viaForm({ ...user, password: "wrong" });
    expect((await viaBasic(user)).status).toBe(429);
  });

  it("a success clears the count: failures below the threshold never add up across successes", async () => {
    const user = await newUser();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < USER_FAILURES_BEFORE_LOCK - 1; i++)
        expect((await viaBasic({ ...user, password: "wrong" })).status).toBe(401);
      expect((await viaForm(user)).status).toBe(303);
    }
  });

  it("an unknown username costs one password check, as a known one does, and as much time", async () => {
    const known = await newUser();
    const before = passwordVerifications();
    expect((await viaBasic({ username: "nobody-by-this-name", password: "whatever-it-is" })).status).toBe(
      401,
    );
    expect(passwordVerifications() - before).toBe(1);
    expect((await viaBasic({ ...known, password: "wrong" })).status).toBe(401);
    expect(passwordVerifications() - before).toBe(2);

    // Interleaved samples of each, the counters cleared between them so neither locks.
    const SAMPLES = 15;
    const timed = async (user: { username: string; password: string }) => {
      await stack.db.query("delete from dashboard_sign_in_failures");
      const started = performance.now();
      const r = await viaBasic(user);
      const ms = performance.now() - started;
      expect(r.status).toBe(401);
      return ms;
    };
    const knownMs: number[] = [];
    const unknownMs: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      knownMs.push(await timed({ ...known, password: `wrong-${i}` }));
      unknownMs.push(await timed({ username: `nobody-${i}`, password: `wrong-${i}` }));
    }
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const at = (xs: number[], q: number) => sorted(xs)[Math.floor(q * (xs.length - 1))]!;
    const noise = at(knownMs, 0.9) - at(knownMs, 0.1);
    const difference = Math.abs(at(knownMs, 0.5) - at(unknownMs, 0.5));
    // Without the dummy hash an unknown user answers a whole scrypt (tens of ms) sooner.
    expect(
      difference,
      `medians ${at(knownMs, 0.5)} vs ${at(unknownMs, 0.5)} ms, noise ${noise} ms`,
    ).toBeLessThan(Math.max(noise, 2));
  });

  const counters = () =>
    stack.db.query<{ key: string; failures: number }>(
      "select key, failures from dashboard_sign_in_failures order by key",
    );

  it("counters idle for a day are deleted in the background, and count afresh after", async () => {
    const ghost = { username: `ghost-${Date.now()}`, password: "a-guess" };
    expect((await viaBasic(ghost)).status).toBe(401);
    await stack.db.query(
      "update dashboard_sign_in_failures set last_failure_at = now() - interval '25 hours' where key = $1",
      [`user:${ghost.username}`],
    );
    expect(await purgeStaleSignInFailures(stack.db, new Date())).toBe(1);
    // The address's counter failed just now: it stays.
    expect(await counters()).toEqual([{ key: "ip:127.0.0.1", failures: 1 }]);
    expect((await viaBasic(ghost)).status).toBe(401);
    expect(await counters()).toEqual([
      { key: "ip:127.0.0.1", failures: 2 },
      { key: `user:${ghost.username}`, failures: 1 },
    ]);
    // A counter that is locked is kept however old its last failure.
    await stack.db.query(
      "update dashboard_sign_in_failures set last_failure_at = now() - interval '25 hours', locked_until = now() + interval '1 minute'",
    );
    expect(await purgeStaleSignInFailures(stack.db, new Date())).toBe(0);
    expect(await counters()).toHaveLength(2);
  });

  it.runIf(store === "postgres")(
    "the purge never deletes a counter a claim is reading (no 500)",
    async () => {
      const ghost = `ghost-${Date.now()}`;
      const lockout = createLockout(stack.db, () => new Date());
      expect(await lockout.claim(ghost, "192.0.2.7")).toEqual({ ok: true });
      await stack.db.query(
        "update dashboard_sign_in_failures set last_failure_at = now() - interval '25 hours'",
      );
      // A claim whose transaction runs the purge on another connection right after its first
      // statement, the counter's insert, and before it reads the counters.
      let purged = -1;
      const racing: Db = {
        ...stack.db,
        tx: (fn) =>
          stack.db.tx(async (q) => {
            let statements = 0;
            return fn({
              query: async (sql, params) => {
                const rows = await q.query(sql, params);
                if (++statements === 1) purged = await purgeStaleSignInFailures(stack.db, new Date());
                return rows as never;
              },
            });
          }),
      };
      expect(await createLockout(racing, () => new Date()).claim(ghost, "192.0.2.7")).toEqual({ ok: true });
      // The username's counter was held by the claim and kept; the address's, not yet, went.
      expect(purged).toBe(1);
      expect(await counters()).toEqual([
        { key: "ip:192.0.2.7", failures: 1 },
        { key: `user:${ghost}`, failures: 1 },
      ]);
    },
  );
});
