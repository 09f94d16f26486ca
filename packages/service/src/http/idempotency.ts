/**
 * `Idempotency-Key` (or `Tracking-Key`) on creating POSTs, for routes with
 * `config.idempotent: true`: the same key with the same body returns the original response
 * (status and body, with `Idempotent-Replayed: true`) for 24 h; the same key with another body
 * is 422 `idempotency_key_reused`; a retry while the first is still running is 409.
 * Responses ≥ 500 are not remembered, so a retry after a failure runs again.
 */
import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { Db } from "../db/client.js";
import { merchantOf } from "./auth.js";
import { AppError } from "./problem.js";

declare module "fastify" {
  interface FastifyContextConfig {
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotencyKey?: { merchantId: string; key: string };
  }
}

const IN_PROGRESS_STALE_MS = 60_000; // a claim this old belongs to a crashed request: take it over
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export function registerIdempotency(app: FastifyInstance, db: Db, ttlSeconds: number): void {
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
    const merchantId = merchantOf(request);
    const requestHash = createHash("sha256")
      .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
      .digest("hex");
    const claimed = await db.tx(async (q) => {
      await q.query(
        `delete from idempotency_keys where merchant_id = $1 and key = $2
           and (created_at < now() - make_interval(secs => $3)
                or (status = 'in_progress' and created_at < now() - make_interval(secs => $4)))`,
        [merchantId, key, ttlSeconds, IN_PROGRESS_STALE_MS / 1000],
      );
      const inserted = await q.query(
        `insert into idempotency_keys (merchant_id, key, request_hash, status) values ($1, $2, $3, 'in_progress')
         on conflict do nothing returning key`,
        [merchantId, key, requestHash],
      );
      if (inserted.length > 0) return undefined;
      const rows = await q.query<{
        request_hash: string;
        status: string;
        response_status: number;
        response_body: unknown;
      }>(
        "select request_hash, status, response_status, response_body from idempotency_keys where merchant_id = $1 and key = $2",
        [merchantId, key],
      );
      return rows[0];
    });
    if (!claimed) {
      request.idempotencyKey = { merchantId, key };
      return;
    }
    if (claimed.request_hash !== requestHash) {
      throw new AppError(
        "idempotency_key_reused",
        "This Idempotency-Key was already used with a different request. Use a new key for a new request.",
      );
    }
    if (claimed.status === "in_progress") {
      throw new AppError(
        "idempotency_key_in_use",
        "The first request with this Idempotency-Key is still running; retry in a moment.",
      );
    }
    reply.header("idempotent-replayed", "true");
    const body = claimed.response_body;
    const problem = claimed.response_status >= 400;
    return reply
      .status(claimed.response_status)
      .type(problem ? "application/problem+json" : "application/json")
      .send(body);
  });

  app.addHook("onSend", async (request, reply, payload) => {
    const claim = request.idempotencyKey;
    if (!claim) return payload;
    request.idempotencyKey = undefined;
    if (reply.statusCode >= 500) {
      await db.query("delete from idempotency_keys where merchant_id = $1 and key = $2", [
        claim.merchantId,
        claim.key,
      ]);
      return payload;
    }
    let body: unknown = null;
    try {
      body = typeof payload === "string" ? JSON.parse(payload) : null;
    } catch {
      body = null;
    }
    await db.query(
      `update idempotency_keys set status = 'done', response_status = $3, response_body = $4
        where merchant_id = $1 and key = $2`,
      [claim.merchantId, claim.key, reply.statusCode, JSON.stringify(body)],
    );
    return payload;
  });
}
