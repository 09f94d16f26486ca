/**
 * `Idempotency-Key` (or `Tracking-Key`) on creating POSTs, for routes with
 * `config.idempotent: true` — the front door of the state machine in docs/operations.md
 * ("Idempotency and recovery"):
 *
 * - A key belongs to the merchant and the credential that sent it (an API key or a user), and
 *   is claimed only after authentication and permission checks, so a refused request never
 *   stores, reads or poisons a key.
 * - The request's fingerprint is its method, path and canonical JSON body (RFC 8785): the same
 *   body with its keys in another order is the same request.
 * - The first answer is stored byte for byte and replayed as it was (`Idempotent-Replayed: true`)
 *   for 24 h; the same key with another request is 422 `idempotency_key_reused`. A 4xx from a
 *   request that started nothing (no recovery point) is not stored: the key is freed.
 * - While the request holding a key runs (its lease), a retry is 409 `idempotency_key_in_use`
 *   and performs nothing. A request that died leaves its lease to lapse; a request that ended
 *   with an unknown outcome (a 5xx) releases it at once. Either way the next retry takes the key
 *   over with its **recovery point** (`recovery_id`: the operation or payment attempt the first
 *   request started, written in that reservation's own transaction), and the route finishes
 *   that instead of starting another. A 5xx before anything was started frees the key.
 */
import { createHash, randomBytes } from "node:crypto";
import { canonicalJson } from "@svc/webhooks";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { batcher } from "../db/batch.js";
import { type Db, isDatabaseUnavailable, type Queryable } from "../db/client.js";
import { AppError } from "./problem.js";

declare module "fastify" {
  interface FastifyContextConfig {
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotencyKey?: IdempotencyClaim;
    /** Set when the request failed because the database could not be reached (problem.ts). */
    databaseUnavailable?: boolean;
  }
}

/** A key this request holds. `recoveryId` is set when a request before it had started something. */
export interface IdempotencyClaim {
  merchantId: string;
  credential: string;
  key: string;
  recoveryId: string | undefined;
  /** This claim's token: a release frees the key only while this claim holds it. */
  lease: string;
}

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

interface StoredKey {
  request_hash: string;
  status: "in_progress" | "done";
  held: boolean;
  response_status: number | null;
  response_type: string | null;
  response_text: string | null;
  recovery_id: string | null;
}

/** The fingerprint of a request: method, path and the body's canonical JSON. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  let canonical: string;
  try {
    canonical = canonicalJson(body ?? null);
  } catch {
    // A value RFC 8785 cannot represent (a lone surrogate): its ordinary JSON still identifies it.
    canonical = JSON.stringify(body ?? null);
  }
  return (
    createHash("sha256")
      // The router serves `/v1/checkout/` as `/v1/checkout`: one request, one fingerprint.
      .update(`${method} ${url.split("?")[0]!.replace(/(.)\/+$/, "$1")}\n${canonical}`)
      .digest("hex")
  );
}

export const idempotencyRepo = {
  /**
   * Links a claimed key to what its request started, in the caller's transaction (the one that
   * reserves the operation). False when the key already has a recovery point (a retry that took
   * it over got there first): the caller must then finish that one instead.
   */
  async link(q: Queryable, claim: IdempotencyClaim, recoveryId: string): Promise<boolean> {
    const rows = await q.query(
      `update idempotency_keys set recovery_id = $4
        where merchant_id = $1 and credential = $2 and key = $3 and recovery_id is null and status = 'in_progress'
        returning key`,
      [claim.merchantId, claim.credential, claim.key, recoveryId],
    );
    return rows.length > 0;
  },
  /** The recovery point a key has now (after a failed {@link link}). */
  async recoveryOf(q: Queryable, claim: IdempotencyClaim): Promise<string | undefined> {
    const rows = await q.query<{ recovery_id: string | null }>(
      "select recovery_id from idempotency_keys where merchant_id = $1 and credential = $2 and key = $3",
      [claim.merchantId, claim.credential, claim.key],
    );
    return rows[0]?.recovery_id ?? undefined;
  },
  /**
   * Ends the key of `recoveryId` with this answer, in the caller's transaction: used where what
   * the key points at is deleted (a declined reservation), so a retry still gets the answer.
   */
  async completeByRecovery(
    q: Queryable,
    recoveryId: string,
    status: number,
    type: string,
    text: string,
  ): Promise<void> {
    await q.query(
      `update idempotency_keys set status = 'done', response_status = $2, response_type = $3, response_text = $4,
              locked_until = null
        where recovery_id = $1`,
      [recoveryId, status, type, text],
    );
  },
  /** Frees the key of `recoveryId` (what it pointed at never happened), in the caller's transaction. */
  async freeByRecovery(q: Queryable, recoveryId: string): Promise<void> {
    await q.query("delete from idempotency_keys where recovery_id = $1 and status = 'in_progress'", [
      recoveryId,
    ]);
  },
};

/** What claiming a key found: the key is this request's now, or the first answer, or a refusal. */
export type KeyClaim =
  | { kind: "claimed"; claim: IdempotencyClaim }
  | { kind: "replay"; status: number; type: string; text: string }
  | { kind: "reused" }
  | { kind: "in_use" };

/** A key a request wants to claim: whose it is, and the request's fingerprint. */
export interface KeyRequest {
  merchantId: string;
  credential: string;
  key: string;
  requestHash: string;
  /** The token the claim writes (a new one per request: {@link newLease}). */
  lease: string;
}

/** A claim's token: random, so no other request's claim has it. */
export const newLease = (): string => randomBytes(12).toString("base64url");

type KeyOptions = { ttlSeconds: number; leaseSeconds: number };

// A new key, or one whose time is over (kept `ttlSeconds`): either is claimed by one statement.
// An expired key is replaced in place, every column as a new key's, as if it had been deleted
// and inserted. A key that exists and is not expired is left as it is (and returns nothing):
// the caller then reads it under its row lock (claimExisting). Many keys go in one statement
// (a batch of requests; a key twice in one batch is sent once, see claimNewKeys).
const CLAIM_NEW = `insert into idempotency_keys as k (merchant_id, credential, key, request_hash, status, locked_until, lease)
  select v.merchant_id, v.credential, v.key, v.request_hash, 'in_progress', now() + make_interval(secs => $5), v.lease
    from unnest($1::text[], $2::text[], $3::text[], $4::text[], $7::text[]) as v(merchant_id, credential, key, request_hash, lease)
  on conflict (merchant_id, credential, key) do update
     set request_hash = excluded.request_hash, status = 'in_progress', locked_until = excluded.locked_until, lease = excluded.lease,
         response_status = null, response_type = null, response_text = null, recovery_id = null, created_at = now()
   where k.created_at < now() - make_interval(secs => $6)
  returning k.merchant_id, k.credential, k.key`;

const keyId = (k: { merchantId: string; credential: string; key: string }) =>
  `${k.merchantId}\n${k.credential}\n${k.key}`;

/**
 * Claims each new (or expired) key in one statement; true at each position whose key is now
 * that request's. A key that came twice is claimed for its first request only (the other
 * finds it held, as if it had come a moment later).
 */
async function claimNewKeys(q: Queryable, items: KeyRequest[], options: KeyOptions): Promise<boolean[]> {
  const first = new Map<string, number>();
  items.forEach((k, i) => {
    if (!first.has(keyId(k))) first.set(keyId(k), i);
  });
  // In one order (by key), so two batches that share keys take their row locks in the same order.
  const sent = [...first.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, i]) => items[i]!);
  const rows = await q.query<{ merchant_id: string; credential: string; key: string }>(CLAIM_NEW, [
    sent.map((k) => k.merchantId),
    sent.map((k) => k.credential),
    sent.map((k) => k.key),
    sent.map((k) => k.requestHash),
    options.leaseSeconds,
    options.ttlSeconds,
    sent.map((k) => k.lease),
  ]);
  const claimed = new Set(
    rows.map((r) => keyId({ merchantId: r.merchant_id, credential: r.credential, key: r.key })),
  );
  return items.map((k, i) => first.get(keyId(k)) === i && claimed.has(keyId(k)));
}

/**
 * A key that exists: read under its row lock, so of two retries only one takes it over. It is
 * taken over when no live request holds it (its lease lapsed or was released), with its
 * recovery point; otherwise its stored answer, or the refusal.
 */
async function claimExisting(
  db: Db,
  k: KeyRequest,
  { ttlSeconds, leaseSeconds }: KeyOptions,
): Promise<KeyClaim> {
  const where = [k.merchantId, k.credential, k.key];
  const found = await db.tx(async (q) => {
    // It may have expired or been freed since it was found (the statement before this one).
    await q.query(
      `delete from idempotency_keys where merchant_id = $1 and credential = $2 and key = $3
         and created_at < now() - make_interval(secs => $4)`,
      [...where, ttlSeconds],
    );
    const inserted = await q.query(
      `insert into idempotency_keys (merchant_id, credential, key, request_hash, status, locked_until, lease)
       values ($1, $2, $3, $4, 'in_progress', now() + make_interval(secs => $5), $6)
       on conflict do nothing returning key`,
      [...where, k.requestHash, leaseSeconds, k.lease],
    );
    if (inserted.length > 0) return undefined;
    const rows = await q.query<StoredKey>(
      `select request_hash, status, locked_until is not null and locked_until > now() as held,
              response_status, response_type, response_text, recovery_id
         from idempotency_keys where merchant_id = $1 and credential = $2 and key = $3 for update`,
      where,
    );
    const row = rows[0];
    if (row && row.request_hash === k.requestHash && row.status === "in_progress" && !row.held) {
      await q.query(
        `update idempotency_keys set locked_until = now() + make_interval(secs => $4), lease = $5
          where merchant_id = $1 and credential = $2 and key = $3`,
        [...where, leaseSeconds, k.lease],
      );
      return { ...row, takenOver: true };
    }
    return row && { ...row, takenOver: false };
  });
  const claim = { merchantId: k.merchantId, credential: k.credential, key: k.key, lease: k.lease };
  if (!found || found.takenOver)
    return { kind: "claimed", claim: { ...claim, recoveryId: found?.recovery_id ?? undefined } };
  if (found.request_hash !== k.requestHash) return { kind: "reused" };
  if (found.status === "in_progress") return { kind: "in_use" };
  return {
    kind: "replay",
    status: found.response_status ?? 200,
    type: found.response_type ?? "application/json",
    text: found.response_text ?? "null",
  };
}

/**
 * Claims `key` for a request with fingerprint `requestHash`: a new key, or one whose holder is
 * gone (lease lapsed or released: taken over with its recovery point) is this request's; a
 * finished one gives its stored answer. A new key costs one statement (`claimNew`: the batched
 * one of registerIdempotency, or one of its own); an existing one a transaction that reads it.
 */
export async function claimKey(
  db: Db,
  k: KeyRequest,
  options: KeyOptions,
  claimNew: (k: KeyRequest) => Promise<boolean> = async (one) => (await claimNewKeys(db, [one], options))[0]!,
): Promise<KeyClaim> {
  const claim = {
    merchantId: k.merchantId,
    credential: k.credential,
    key: k.key,
    recoveryId: undefined,
    lease: k.lease,
  };
  try {
    if (await claimNew(k)) return { kind: "claimed", claim };
    return await claimExisting(db, k, options);
  } catch (error) {
    // The claim may yet reach the server after this request gave up: released when it does.
    if (isDatabaseUnavailable(error)) releaseKeyLater(db, claim, options.leaseSeconds);
    throw error;
  }
}

/** What a request answered, stored with its key. */
export interface KeyAnswer {
  status: number;
  type: string;
  text: string;
}

// The answers of many keys in one statement (a batch of requests).
const FINISH_KEYS = `update idempotency_keys k
    set status = 'done', response_status = v.status, response_type = v.type, response_text = v.text, locked_until = null
   from unnest($1::text[], $2::text[], $3::text[], $4::int4[], $5::text[], $6::text[])
        as v(merchant_id, credential, key, status, type, text)
  where k.merchant_id = v.merchant_id and k.credential = v.credential and k.key = v.key`;

/** Stores each claimed key's answer, in one statement; a key that came twice keeps the later answer. */
async function finishKeys(q: Queryable, items: { claim: IdempotencyClaim; answer: KeyAnswer }[]) {
  const last = new Map(items.map((item) => [keyId(item.claim), item]));
  const sent = [...last.values()];
  await q.query(FINISH_KEYS, [
    sent.map((f) => f.claim.merchantId),
    sent.map((f) => f.claim.credential),
    sent.map((f) => f.claim.key),
    sent.map((f) => f.answer.status),
    sent.map((f) => f.answer.type),
    sent.map((f) => f.answer.text),
  ]);
  return items.map(() => undefined);
}

/** Stores the answer of a claimed key; from now on a retry gets it. */
export async function finishKey(db: Queryable, claim: IdempotencyClaim, answer: KeyAnswer): Promise<void> {
  await finishKeys(db, [{ claim, answer }]);
}

/**
 * Frees a claimed key whose request was refused (a 4xx) without starting anything (no recovery
 * point): the corrected request may use the same key. True when it was freed; false when the
 * request had started something, whose answer is then stored like any other.
 */
export async function freeUnstartedKey(db: Queryable, claim: IdempotencyClaim): Promise<boolean> {
  const freed = await db.query(
    `delete from idempotency_keys where merchant_id = $1 and credential = $2 and key = $3
       and recovery_id is null and status = 'in_progress'
     returning 1`,
    [claim.merchantId, claim.credential, claim.key],
  );
  return freed.length > 0;
}

// Keys past their time, the oldest first, through `idempotency_keys_created` (migration 0025). A
// key being claimed or answered at this instant is skipped (`skip locked`), and a locked row's
// `created_at` is read again before it goes, so a key a request has just replaced in place is
// kept. Past `ttlSeconds` a key already counts as absent (CLAIM_NEW), so deleting it changes no
// answer: it only keeps the table at about a day of keys.
const PURGE_EXPIRED = `with old as (
    select merchant_id, credential, key from idempotency_keys
     where created_at < now() - make_interval(secs => $1)
     order by created_at limit $2
       for update skip locked
  )
  delete from idempotency_keys k using old
   where k.merchant_id = old.merchant_id and k.credential = old.credential and k.key = old.key
  returning 1`;

/**
 * Deletes keys older than `ttlSeconds`, `batch` at a time in short transactions of their own,
 * until none is left or `maxBatches` ran (the next round takes the rest). Returns how many went.
 */
export async function purgeExpiredKeys(
  db: Queryable,
  ttlSeconds: number,
  { batch = 1_000, maxBatches = 50 }: { batch?: number; maxBatches?: number } = {},
): Promise<number> {
  let purged = 0;
  for (let i = 0; i < maxBatches; i++) {
    const gone = (await db.query(PURGE_EXPIRED, [ttlSeconds, batch])).length;
    purged += gone;
    if (gone < batch) break;
  }
  return purged;
}

/** How long a 5xx answer waits at most for its key's release (see the onSend hook). */
const RELEASE_WAIT_MS = 1_000;

// Each key's release, in one statement for many: with a recovery point the key stays claimed
// but free (the next retry recovers at once), without one it is deleted; either only while the
// claim that is released still holds it. Returns the leases released.
const RELEASE_KEYS = `with v as (
    select * from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as v(merchant_id, credential, key, lease)
  ), gone as (
    delete from idempotency_keys k using v
     where k.merchant_id = v.merchant_id and k.credential = v.credential and k.key = v.key and k.lease = v.lease
       and k.status = 'in_progress' and k.recovery_id is null
    returning k.lease
  ), freed as (
    update idempotency_keys k set locked_until = null from v
     where k.merchant_id = v.merchant_id and k.credential = v.credential and k.key = v.key and k.lease = v.lease
       and k.status = 'in_progress' and k.recovery_id is not null
    returning k.lease
  )
  select lease from gone union all select lease from freed`;

async function releaseKeys(db: Queryable, claims: IdempotencyClaim[]): Promise<Set<string>> {
  const rows = await db.query<{ lease: string }>(RELEASE_KEYS, [
    claims.map((c) => c.merchantId),
    claims.map((c) => c.credential),
    claims.map((c) => c.key),
    claims.map((c) => c.lease),
  ]);
  return new Set(rows.map((r) => r.lease));
}

/** How often releases the database could not take are tried again. */
const RELEASE_RETRY_MS = 1_000;

interface LaterReleases {
  claims: Map<string, { claim: IdempotencyClaim; untilMs: number }>;
  timer: NodeJS.Timeout | undefined;
}
const laterReleases = new WeakMap<Db, LaterReleases>();

/**
 * Releases `claim` once the database answers again: tried each second, in one statement for
 * all, until it releases the key or the lease would have lapsed anyway. Without it, a retry
 * after an outage met 409 `idempotency_key_in_use` until the lease ran out (60 s). Also for a
 * claim whose statement failed: it may still reach the server (a frozen one, thawed) after the
 * request gave up, and then holds the key; the release finds it by its lease.
 */
export function releaseKeyLater(db: Db, claim: IdempotencyClaim, leaseSeconds: number): void {
  let later = laterReleases.get(db);
  if (!later) laterReleases.set(db, (later = { claims: new Map(), timer: undefined }));
  later.claims.set(claim.lease, { claim, untilMs: Date.now() + leaseSeconds * 1000 });
  scheduleLater(db, later);
}

function scheduleLater(db: Db, later: LaterReleases): void {
  if (later.timer || later.claims.size === 0) return;
  later.timer = setTimeout(() => {
    void (async () => {
      const now = Date.now();
      for (const [lease, { untilMs }] of later.claims) if (untilMs < now) later.claims.delete(lease);
      if (later.claims.size > 0) {
        try {
          const released = await releaseKeys(
            db,
            [...later.claims.values()].map((c) => c.claim),
          );
          for (const lease of released) later.claims.delete(lease);
        } catch {
          // Still unreachable (or closed): tried again next time, until the leases lapse.
        }
      }
      later.timer = undefined;
      scheduleLater(db, later);
    })();
  }, RELEASE_RETRY_MS);
  later.timer.unref();
}

/**
 * Releases a claimed key whose request ended without an answer to keep (a 5xx): with a recovery
 * point it stays claimed but free, so the next retry recovers at once; without one it is deleted.
 * A database that cannot be reached gets the release later ({@link releaseKeyLater}); any other
 * failure is thrown, and the key is left to its lease.
 */
export async function releaseKey(db: Db, claim: IdempotencyClaim, leaseSeconds: number): Promise<void> {
  try {
    await releaseKeys(db, [claim]);
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    releaseKeyLater(db, claim, leaseSeconds);
  }
}

/** The credential an idempotency key is scoped to, or undefined for a request without one. */
function credentialOf(request: FastifyRequest): { merchantId: string; credential: string } | undefined {
  const p = request.principal;
  if (p.kind === "private" || p.kind === "public" || p.kind === "user")
    return { merchantId: p.merchantId, credential: p.credential };
  return undefined;
}

/**
 * `ttlSeconds`: how long a key is remembered; `leaseSeconds`: how long a request holds its key
 * (after it, the request is taken for dead and a retry takes the key over).
 */
export function registerIdempotency(app: FastifyInstance, db: Db, options: KeyOptions): void {
  // New keys and answers of concurrent requests go in one statement each (db/batch.ts): a key
  // costs a busy API two statements per batch of requests, not two transactions per request.
  const claimNew = batcher((items: KeyRequest[]) => claimNewKeys(db, items, options), { maxInFlight: 2 });
  const finish = batcher((items: { claim: IdempotencyClaim; answer: KeyAnswer }[]) => finishKeys(db, items), {
    maxInFlight: 2,
  });
  // A preHandler: it runs after authentication (onRequest), body validation and the route's
  // permission check (auth's preHandler, registered before this one).
  app.addHook("preHandler", async (request, reply) => {
    if (!request.routeOptions.config.idempotent) return;
    const raw = request.headers["idempotency-key"] ?? request.headers["tracking-key"];
    if (raw === undefined) return;
    const key = Array.isArray(raw) ? (raw[0] ?? "") : raw;
    if (!KEY_PATTERN.test(key)) {
      throw new AppError(
        "invalid_idempotency_key",
        "Idempotency-Key must be 1–255 visible ASCII characters, e.g. a UUID.",
      );
    }
    const owner = credentialOf(request);
    if (!owner) return;
    const requestHash = requestFingerprint(request.method, request.url, request.body);
    const found = await claimKey(db, { ...owner, key, requestHash, lease: newLease() }, options, claimNew);
    if (found.kind === "claimed") {
      request.idempotencyKey = found.claim;
      return;
    }
    if (found.kind === "reused") {
      throw new AppError(
        "idempotency_key_reused",
        "This Idempotency-Key was already used with a different request. Use a new key for a new request.",
      );
    }
    if (found.kind === "in_use") {
      reply.header("retry-after", "1");
      throw new AppError(
        "idempotency_key_in_use",
        "The first request with this Idempotency-Key is still running; retry in a moment.",
      );
    }
    return reply.header("idempotent-replayed", "true").status(found.status).type(found.type).send(found.text);
  });

  app.addHook("onSend", async (request, reply, payload) => {
    const claim = request.idempotencyKey;
    if (!claim) return payload;
    request.idempotencyKey = undefined;
    if (reply.statusCode >= 500) {
      // The outcome is unknown: a key with a recovery point stays claimed (released, so the retry
      // recovers it); one without (nothing was started) is freed. Awaited, so a retry that
      // follows the answer finds the key free (a KNET refund's 504 is answered the same on
      // every retry) — unless the request failed because the database could not be reached:
      // then the answer goes at once and the key is released as soon as the database is back
      // (releaseKeyLater). A release that fails otherwise leaves the key to its lease.
      if (request.databaseUnavailable) {
        releaseKeyLater(db, claim, options.leaseSeconds);
        return payload;
      }
      const released = releaseKey(db, claim, options.leaseSeconds).catch((err: unknown) =>
        request.log.warn({ err }, "idempotency key not released; its lease will lapse"),
      );
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([released, new Promise((r) => (timer = setTimeout(r, RELEASE_WAIT_MS)))]);
      clearTimeout(timer);
      return payload;
    }
    const text = typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString() : "";
    const type = String(reply.getHeader("content-type") ?? "application/json");
    try {
      // Refused by the route's own checks (an amount with the wrong decimals, an unknown
      // session…) before it started anything: nothing to replay, and the key stays usable for
      // the corrected request, as for a refusal before the claim (docs/api.md, Idempotency).
      if (reply.statusCode >= 400 && !claim.recoveryId && (await freeUnstartedKey(db, claim))) return payload;
      await finish({ claim, answer: { status: reply.statusCode, type, text } });
    } catch (err) {
      // The answer stands (it is what happened); a retry waits out the lease, then finds what
      // the request started through its recovery point, or runs again if it started nothing.
      request.log.warn({ err }, "idempotency key's answer not stored; its lease will lapse");
    }
    return payload;
  });
}
