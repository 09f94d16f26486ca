/**
 * Rate limits, with @fastify/rate-limit (fixed windows of SVC_RATE_LIMIT_WINDOW_SECONDS):
 *
 * 1. per client address, on every request, before anything else runs (a flood costs a map
 *    lookup, not a database query): SVC_RATE_LIMIT_PER_ADDRESS;
 * 2. failed authentications per client address (bad API keys, wrong passwords, no credentials):
 *    SVC_RATE_LIMIT_AUTH_FAILURES; past it, that address is refused before its credentials are
 *    even looked up, so guessing keys gets nowhere fast;
 * 3. per credential, once authenticated: a private key or a dashboard user, SVC_RATE_LIMIT_PER_CREDENTIAL;
 *    a public key is shared by every customer's browser, so it is counted per key and address.
 *
 * Over a limit: 429 `rate_limited` with `Retry-After` and the `RateLimit-Limit`,
 * `RateLimit-Remaining`, `RateLimit-Reset` headers (IETF draft), which every answer under a
 * limit carries too. 0 turns a limit off. The counters live in each process's memory: with N API
 * processes behind a load balancer a client gets up to N times each limit (docs/security.md).
 */
import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "./problem.js";

export interface RateLimitConfig {
  windowSeconds: number;
  perAddress: number;
  perCredential: number;
  authFailures: number;
}

/** Health and readiness probes come from the platform, often all from one address. */
const UNLIMITED = new Set(["/healthz", "/readyz"]);

function tooMany(after: string): AppError {
  return new AppError(
    "rate_limited",
    `Too many requests; retry in ${after}. Slow down, or ask the operator for a higher limit.`,
  );
}

function credentialKey(request: FastifyRequest): string | undefined {
  const p = request.principal;
  if (p?.kind === "public") return `${p.credential}@${request.ip}`;
  if (p?.kind === "private" || p?.kind === "user") return p.credential;
  return undefined;
}

type Limiter = ReturnType<FastifyInstance["createRateLimit"]>;

/**
 * Counts `request` against `limiter`; sets the RateLimit-* headers, and on a request over the
 * limit Retry-After and a 429. Manual hooks rather than the plugin's route hooks, so the order
 * is ours: per address before authentication, per credential after it.
 */
async function enforce(limiter: Limiter, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const status = await limiter(request);
  if (status.isAllowed) return;
  reply.header("ratelimit-limit", String(status.max));
  reply.header("ratelimit-remaining", String(status.remaining));
  reply.header("ratelimit-reset", String(status.ttlInSeconds));
  if (!status.isExceeded) return;
  reply.header("retry-after", String(status.ttlInSeconds));
  throw tooMany(`${status.ttlInSeconds} seconds`);
}

/**
 * Registers the plugin and the per-address limit (call before authentication is registered, so
 * it runs first) and returns what authentication calls: `refuseIfFailing` before it looks
 * credentials up, `failed` when they were wrong, and `registerPerCredential` to add the
 * per-credential limit after it.
 */
export async function registerRateLimits(app: FastifyInstance, config: RateLimitConfig) {
  const timeWindow = config.windowSeconds * 1000;
  await app.register(rateLimit, { global: false, timeWindow });
  const limiter = (max: number, key: (request: FastifyRequest) => string) =>
    max > 0 ? app.createRateLimit({ max, timeWindow, keyGenerator: key }) : undefined;
  const perAddress = limiter(config.perAddress, (request) => `address:${request.ip}`);
  const failures = limiter(config.authFailures, (request) => `auth-failures:${request.ip}`);
  const perCredential = limiter(config.perCredential, (request) => `credential:${credentialKey(request)}`);
  if (perAddress)
    app.addHook("onRequest", async (request, reply) => {
      if (!UNLIMITED.has(request.url.split("?")[0] ?? "")) await enforce(perAddress, request, reply);
    });
  return {
    /** 429 when this address has failed to authenticate too often in this window. */
    async refuseIfFailing(request: FastifyRequest, reply: FastifyReply): Promise<void> {
      if (!failures) return;
      const status = await failures(request, { increment: false });
      if (status.isAllowed || status.remaining > 0) return;
      // The limit that refused it, not the per-address request limit an earlier hook described.
      reply.header("ratelimit-limit", String(status.max));
      reply.header("ratelimit-remaining", "0");
      reply.header("ratelimit-reset", String(status.ttlInSeconds));
      reply.header("retry-after", String(status.ttlInSeconds));
      throw new AppError(
        "rate_limited",
        `Too many failed authentications from this address; retry in ${status.ttlInSeconds} seconds with valid credentials.`,
      );
    },
    /** Counts a failed authentication against the request's address. */
    async failed(request: FastifyRequest): Promise<void> {
      await failures?.(request);
    },
    /** The per-credential limit, as an onRequest hook that runs after authentication's. */
    registerPerCredential(): void {
      if (!perCredential) return;
      app.addHook("onRequest", async (request, reply) => {
        if (credentialKey(request) !== undefined) await enforce(perCredential, request, reply);
      });
    },
  };
}

export type RateLimits = Awaited<ReturnType<typeof registerRateLimits>>;
