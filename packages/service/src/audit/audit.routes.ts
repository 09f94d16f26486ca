/** `GET /v1/audit-events`: the audit log, newest first, a page at a time. */
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { Db } from "../db/client.js";
import { merchantOf } from "../http/auth.js";
import { PRIVATE_SECURITY } from "../http/openapi.js";
import { auditRepo } from "./audit.repo.js";
import { typed } from "../http/schema.js";

const Query = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: "Default 50" })),
    before: Type.Optional(Type.Integer({ minimum: 1, description: "next_before of the previous page" })),
  },
  { additionalProperties: false },
);

export function auditPage(rows: Awaited<ReturnType<typeof auditRepo.list>>, limit: number) {
  const page = rows.slice(0, limit);
  return {
    data: page.map((e) => ({
      id: Number(e.id),
      at: new Date(e.at).toISOString(),
      actor_kind: e.actor_kind,
      actor: e.actor,
      action: e.action,
      target: e.target,
      detail: e.detail,
      ip: e.ip,
      user_agent: e.user_agent,
    })),
    next_before: rows.length > limit ? Number(page.at(-1)!.id) : null,
  };
}

export function auditRoutes(fastify: FastifyInstance, db: Db): void {
  const app = typed(fastify);
  app.get(
    "/v1/audit-events",
    {
      config: { auth: "private" as const, permission: "webhooks.manage" as const },
      schema: {
        tags: ["Audit"],
        security: PRIVATE_SECURITY,
        summary:
          "Who did what to the account, newest first: sign-ins, money operations, webhook settings and endpoints, keys, secrets, replays (with the client address)",
        querystring: Query,
      },
    },
    async (request) => {
      const query = request.query;
      const limit = query.limit ?? 50;
      return auditPage(await auditRepo.list(db, merchantOf(request), limit, query.before), limit);
    },
  );
}
