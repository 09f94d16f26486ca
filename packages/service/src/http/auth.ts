/**
 * Authentication for every route, declared per route in `config.auth`:
 * - "private": `Api-Key sk_…` or `Basic` of a dashboard user (then `config.permission` applies);
 * - "public":  the SDK endpoints; `Api-Key pk_…` (private credentials are accepted too);
 * - "admin":   the operator API, `Authorization: Bearer <SVC_ADMIN_TOKEN>`;
 * - "none":    health, docs, hosted pages (which authenticate by their unguessable session id).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { Permission } from "@svc/protocol";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hashApiKey, keyKindOf } from "../auth/keys.js";
import { createLockout } from "../auth/lockout.js";
import { dummyPasswordHash, verifyPassword } from "../auth/passwords.js";
import type { Db } from "../db/client.js";
import { API_KEYS_CHANNEL } from "./api-keys-channel.js";
import { textProblem } from "./input-guard.js";
import { AppError } from "./problem.js";
import type { RateLimits } from "./rate-limit.js";

export type AuthMode = "private" | "public" | "admin" | "none";

export interface AuthUser {
  id: number;
  username: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  permissions: Permission[];
}

/**
 * Who sent a request. `credential` names the API key (its hash) or the dashboard user behind it:
 * idempotency keys are scoped to it, so two credentials of one merchant never share answers.
 */
export type Principal =
  | { kind: "private"; merchantId: string; credential: string }
  | { kind: "public"; merchantId: string; credential: string }
  | { kind: "user"; merchantId: string; credential: string; user: AuthUser }
  | { kind: "admin" }
  | { kind: "anonymous" };

declare module "fastify" {
  interface FastifyContextConfig {
    auth?: AuthMode;
    permission?: Permission;
    /** A permission that depends on the validated body (checked before idempotency claims a key). */
    permissionOf?: (body: unknown) => Permission;
  }
  interface FastifyRequest {
    principal: Principal;
  }
}

const BASIC_CACHE_MS = 60_000; // a verified Basic credential skips scrypt for this long
const BASIC_CACHE_MAX = 1000;
/**
 * A known API key skips its database lookup for this long. Revocation still takes effect at
 * once: revoking NOTIFYs every process, which drops the key. The expiry only bounds how long a
 * process that missed the notification (its LISTEN connection was down) keeps a revoked key.
 */
const KEY_CACHE_MS = 5_000;
const KEY_CACHE_MAX = 10_000;

function safeEqual(a: string, b: string): boolean {
  const x = createHash("sha256").update(a).digest();
  const y = createHash("sha256").update(b).digest();
  return timingSafeEqual(x, y);
}

/** Registers authentication; returns how to make this process forget a revoked key at once. */
export function registerAuth(
  app: FastifyInstance,
  db: Db,
  adminToken: string,
  now: () => Date = () => new Date(),
  limits?: Pick<RateLimits, "refuseIfFailing" | "failed">,
): { forgetKey(keyHash: string): void } {
  const lockout = createLockout(db, now);
  const basicCache = new Map<string, { user: AuthUser; merchantId: string; until: number }>();
  type KeyPrincipal = { kind: "private" | "public"; merchantId: string; credential: string };
  // Known keys only: an unknown key always costs a lookup, so guessing gains nothing.
  const keyCache = new Map<string, KeyPrincipal & { until: number }>();
  // Lookups in flight, by hash: the requests that find a key missing or expired at the same
  // moment (all of a busy client's, every 5 s) share one lookup instead of sending one each.
  const lookups = new Map<string, Promise<KeyPrincipal | undefined>>();
  // Moves on with every revocation this process hears of: a lookup that started before one
  // answers its requests but is not cached (it may have read the key before it was revoked).
  let generation = 0;
  const forget = (hash?: string) => {
    generation += 1;
    if (hash === undefined) {
      keyCache.clear();
      lookups.clear();
    } else {
      keyCache.delete(hash);
      lookups.delete(hash);
    }
  };
  let unlisten: (() => Promise<void>) | undefined;
  app.addHook("onReady", async () => {
    // Revocations missed while the connection was lost: forget every cached key (they are
    // looked up again), so a key revoked meanwhile stops working here too.
    unlisten = await db.listen(
      API_KEYS_CHANNEL,
      (hash) => forget(hash),
      () => forget(),
    );
  });
  app.addHook("onClose", async () => unlisten?.());

  async function fromApiKey(key: string): Promise<KeyPrincipal | undefined> {
    const kind = keyKindOf(key);
    if (!kind) return undefined;
    const hash = hashApiKey(key);
    const cached = keyCache.get(hash);
    if (cached && cached.until > Date.now()) return cached;
    let lookup = lookups.get(hash);
    if (!lookup) {
      lookup = lookUpKey(hash).finally(() => {
        if (lookups.get(hash) === lookup) lookups.delete(hash);
      });
      lookups.set(hash, lookup);
    }
    return lookup;
  }

  async function lookUpKey(hash: string): Promise<KeyPrincipal | undefined> {
    const started = generation;
    const rows = await db.query<{ merchant_id: string; kind: "private" | "public" }>(
      "select merchant_id, kind from api_keys where key_hash = $1 and revoked_at is null",
      [hash],
    );
    const row = rows[0];
    if (!row) {
      keyCache.delete(hash);
      return undefined;
    }
    const entry = {
      kind: row.kind,
      merchantId: row.merchant_id,
      credential: `key:${hash}`,
      until: Date.now() + KEY_CACHE_MS,
    };
    if (started !== generation) return entry;
    if (keyCache.size >= KEY_CACHE_MAX) keyCache.clear();
    keyCache.set(hash, entry);
    return entry;
  }

  /**
   * A dashboard user's Basic credentials, under the lockout the sign-in form uses: while the
   * username or the address is locked, even the right password is refused (`locked`); otherwise
   * an attempt is claimed before the password is checked. An unknown user costs one verification
   * against a dummy hash, as a known one does.
   */
  async function fromBasic(encoded: string, ip: string) {
    const decoded = Buffer.from(encoded, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 1) return undefined;
    const username = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    // No user can be named with a NUL or a control character (nor store one): wrong, not a fault.
    if (textProblem(username) || username.length > 150) return undefined;
    const cacheKey = createHash("sha256").update(encoded).digest("base64");
    const cached = basicCache.get(cacheKey);
    if (cached && cached.until > Date.now()) {
      const wait = await lockout.retryAfterSeconds(username, ip);
      return wait > 0 ? { locked: wait } : cached;
    }
    const claim = await lockout.claim(username, ip);
    if (!claim.ok) return { locked: claim.retryAfterSeconds };
    const rows = await db.query<AuthUser & { merchant_id: string; password_hash: string }>(
      `select id, merchant_id, username, email, first_name, last_name, phone, permissions, password_hash
         from users where username = $1 and disabled_at is null`,
      [username],
    );
    const row = rows[0];
    const ok = await verifyPassword(password, row?.password_hash ?? (await dummyPasswordHash()));
    if (!row || !ok) return undefined;
    await lockout.recordSuccess(username, ip);
    const { merchant_id, password_hash: _hash, ...user } = row;
    const entry = { user, merchantId: merchant_id, until: Date.now() + BASIC_CACHE_MS };
    if (basicCache.size >= BASIC_CACHE_MAX) basicCache.clear();
    basicCache.set(cacheKey, entry);
    return entry;
  }

  app.decorateRequest("principal", null as never);
  app.addHook("onRequest", async (request: FastifyRequest, reply: FastifyReply) => {
    const mode = request.routeOptions.config.auth ?? "none";
    request.principal = { kind: "anonymous" };
    if (mode === "none") return;
    // An address that keeps failing is refused before its credentials are looked up.
    await limits?.refuseIfFailing(request, reply);
    try {
      await authenticate(request, reply, mode);
    } catch (error) {
      if (
        error instanceof AppError &&
        (error.code === "invalid_credentials" || error.code === "unauthenticated")
      )
        await limits?.failed(request);
      throw error;
    }
  });

  async function authenticate(request: FastifyRequest, reply: FastifyReply, mode: AuthMode): Promise<void> {
    const header = request.headers.authorization ?? "";
    const [scheme = "", credential = ""] = header.split(/\s+/, 2);
    if (mode === "admin") {
      if (!adminToken)
        throw new AppError(
          "unauthenticated",
          "The operator API is disabled: set SVC_ADMIN_TOKEN to enable it.",
        );
      if (scheme.toLowerCase() !== "bearer" || !safeEqual(credential, adminToken)) {
        throw new AppError("unauthenticated", "Send Authorization: Bearer <SVC_ADMIN_TOKEN>.");
      }
      request.principal = { kind: "admin" };
      return;
    }
    if (!header) {
      throw new AppError(
        "unauthenticated",
        mode === "public"
          ? "Send Authorization: Api-Key <your public key pk_…>."
          : "Send Authorization: Api-Key <your private key sk_…>, or Basic credentials of a dashboard user.",
      );
    }
    if (scheme.toLowerCase() === "api-key") {
      const found = await fromApiKey(credential);
      if (!found)
        throw new AppError(
          "invalid_credentials",
          "The API key is unknown or revoked. Copy it again from the dashboard.",
        );
      if (found.kind === "public" && mode === "private") {
        throw new AppError(
          "private_key_required",
          "A public key (pk_…) only works on the checkout SDK endpoints. Call this endpoint from your server with your private key (sk_…).",
        );
      }
      request.principal = { kind: found.kind, merchantId: found.merchantId, credential: found.credential };
    } else if (scheme.toLowerCase() === "basic") {
      const found = await fromBasic(credential, request.ip);
      if (!found) throw new AppError("invalid_credentials", "The username or password is wrong.");
      if ("locked" in found) {
        reply.header("retry-after", String(found.locked));
        throw new AppError(
          "rate_limited",
          `Too many failed sign-ins for this user or from this address. Wait ${found.locked} seconds, then try again.`,
        );
      }
      request.principal = {
        kind: "user",
        merchantId: found.merchantId,
        credential: `user:${found.user.id}`,
        user: found.user,
      };
    } else {
      throw new AppError("unauthenticated", 'Use the "Api-Key" or "Basic" authorization scheme.');
    }
    const permission = request.routeOptions.config.permission;
    if (permission) assertPermission(request, permission);
  }
  // After validation and before idempotency's preHandler (registered after this one): a refused
  // request never claims, reads or stores an idempotency key.
  app.addHook("preHandler", async (request: FastifyRequest) => {
    const permissionOf = request.routeOptions.config.permissionOf;
    if (permissionOf) assertPermission(request, permissionOf(request.body));
  });
  return { forgetKey: (keyHash) => forget(keyHash) };
}

/** A dashboard user must hold `permission`; API keys hold every permission of their merchant. */
function assertPermission(request: FastifyRequest, permission: Permission): void {
  const p = request.principal;
  if (p.kind === "user" && !p.user.permissions.includes(permission)) {
    throw new AppError(
      "permission_denied",
      `The user "${p.user.username}" lacks the "${permission}" permission; ask an administrator to grant it.`,
    );
  }
}

/** The merchant of an authenticated request (throws for admin/anonymous, which never reach here). */
export function merchantOf(request: FastifyRequest): string {
  const p = request.principal;
  if (p.kind === "private" || p.kind === "public" || p.kind === "user") return p.merchantId;
  throw new AppError("unauthenticated", "This endpoint needs merchant credentials.");
}
