/**
 * Rate limits: per client address, per credential, and on failed authentications; over a limit
 * a client gets 429 `rate_limited` with Retry-After and the RateLimit-* headers. Each case on a
 * service of its own (the counters are per process) with small limits.
 */
import { afterEach, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant } from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import type { RateLimitConfig } from "./rate-limit.js";

const UNLIMITED = 1_000_000;

describe("rate limits", () => {
  let stack: Stack | undefined;
  afterEach(async () => {
    await stack?.close();
    stack = undefined;
  });
  const start = async (limits: Partial<RateLimitConfig>, trustProxy: boolean = false) => {
    stack = await startStack("pglite", {
      config: {
        trustProxy,
        rateLimits: {
          windowSeconds: 60,
          perAddress: UNLIMITED,
          perCredential: UNLIMITED,
          authFailures: UNLIMITED,
          ...limits,
        },
      },
    });
    return stack;
  };
  const expectLimited = (r: { status: number; headers: Headers; json: { code: string } }) => {
    expect(r.status).toBe(429);
    expect(r.json.code).toBe("rate_limited");
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  };

  it("per address: past the limit every request is 429 with Retry-After and RateLimit headers; probes are exempt", async () => {
    const s = await start({ perAddress: 20 });
    const answers = [];
    for (let i = 0; i < 25; i++) answers.push(await api(s, "GET", "/openapi.json"));
    expect(answers.slice(0, 20).every((a) => a.status === 200)).toBe(true);
    expect(answers[0]!.headers.get("ratelimit-limit")).toBe("20");
    expect(answers[0]!.headers.get("ratelimit-remaining")).toBe("19");
    expect(Number(answers[0]!.headers.get("ratelimit-reset"))).toBeGreaterThan(0);
    for (const a of answers.slice(20)) expectLimited(a);
    expect(answers[24]!.headers.get("ratelimit-remaining")).toBe("0");
    expect((await api(s, "GET", "/healthz")).status).toBe(200);
  });

  it("failed authentications: an address that keeps sending bad keys is refused before any lookup", async () => {
    const s = await start({ authFailures: 5, perAddress: 1_000 });
    const m = await createMerchant(s);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++)
      statuses.push(
        (await api(s, "GET", "/v1/payments/sess_x", { auth: apiKey(`sk_test_wrong${i}`) })).status,
      );
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    // The address is refused whatever it sends now, a valid key included, until the window ends.
    const refused = await api(s, "GET", "/v1/payments/sess_x", { auth: apiKey(m.privateKey) });
    expectLimited(refused);
    // Its RateLimit headers describe the limit that refused it, not the per-address one (1,000).
    expect(refused.headers.get("ratelimit-limit")).toBe("5");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
  });

  it("per credential: one key past its limit is 429; another key of the same address is not", async () => {
    const s = await start({ perCredential: 10 });
    const m = await createMerchant(s);
    const other = await createMerchant(s);
    const statuses: number[] = [];
    for (let i = 0; i < 13; i++)
      statuses.push((await api(s, "GET", "/v1/discrepancies", { auth: apiKey(m.privateKey) })).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses.slice(10)).toEqual([429, 429, 429]);
    const limited = await api(s, "GET", "/v1/discrepancies", { auth: apiKey(m.privateKey) });
    expectLimited(limited);
    expect(limited.headers.get("ratelimit-limit")).toBe("10");
    expect((await api(s, "GET", "/v1/discrepancies", { auth: apiKey(other.privateKey) })).status).toBe(200);
  });

  it("behind a trusted proxy, each client address (X-Forwarded-For) has its own limit", async () => {
    const s = await start({ perAddress: 5 }, true);
    const from = (address: string) =>
      api(s, "GET", "/openapi.json", { headers: { "x-forwarded-for": address } });
    for (let i = 0; i < 5; i++) expect((await from("203.0.113.1")).status).toBe(200);
    expectLimited(await from("203.0.113.1"));
    expect((await from("203.0.113.2")).status).toBe(200);
  });

  it("reads its settings from SVC_RATE_LIMIT_*, and 0 turns a limit off", async () => {
    const { loadConfig } = await import("../config.js");
    expect(loadConfig({}).rateLimits).toEqual({
      windowSeconds: 10,
      perAddress: 2_000,
      perCredential: 1_000,
      authFailures: 50,
    });
    expect(
      loadConfig({ SVC_RATE_LIMIT_PER_CREDENTIAL: "0", SVC_RATE_LIMIT_WINDOW_SECONDS: "60" }).rateLimits,
    ).toMatchObject({ perCredential: 0, windowSeconds: 60 });
    expect(() => loadConfig({ SVC_RATE_LIMIT_PER_ADDRESS: "lots" })).toThrow(/SVC_RATE_LIMIT_PER_ADDRESS/);
    const s = await start({ perAddress: 0, perCredential: 0, authFailures: 0 });
    for (let i = 0; i < 30; i++) expect((await api(s, "GET", "/v1/payments/sess_x")).status).toBe(401);
  });
});
