/** `GET /v1/discrepancies[/{id}]`, `POST /v1/discrepancies/{id}/resolve` (private key or a user). */
import { Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { merchantOf } from "../http/auth.js";
import { PRIVATE_SECURITY } from "../http/openapi.js";
import { stringEnum, typed } from "../http/schema.js";
import type { DiscrepanciesService } from "./discrepancies.service.js";

const tags = ["Gateways"];
const security = PRIVATE_SECURITY;
const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;
const idParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/** Who resolved it: the dashboard user's username, or "api key" for a private key. */
function actorOf(request: FastifyRequest): string {
  const p = request.principal;
  return p.kind === "user" ? p.user.username : "api key";
}

export function discrepanciesRoutes(fastify: FastifyInstance, discrepancies: DiscrepanciesService): void {
  const app = typed(fastify);
  app.get(
    "/v1/discrepancies",
    {
      config: { auth: "private", permission: "payment.view" },
      schema: {
        tags,
        security,
        summary:
          "What svc and a gateway disagree on, newest first: operations a gateway reported that break a money rule (not applied to the totals), operations whose outcome is unknown at a gateway that cannot be asked, payments taken after their attempt was closed",
        querystring: Type.Object(
          {
            status: Type.Optional(stringEnum(["open", "resolved"] as const)),
            session_id: Type.Optional(
              Type.String({ minLength: 1, maxLength: 64, description: "The parent" }),
            ),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const query = request.query;
      return discrepancies.list(merchantOf(request), {
        status: query.status,
        sessionId: query.session_id,
        limit: query.limit ?? DEFAULT_PAGE,
      });
    },
  );
  app.get(
    "/v1/discrepancies/:id",
    {
      config: { auth: "private", permission: "payment.view" },
      schema: { tags, security, summary: "One discrepancy", params: idParams },
    },
    async (request) => discrepancies.get(merchantOf(request), request.params.id),
  );
  app.post(
    "/v1/discrepancies/:id/resolve",
    {
      config: { auth: "private", permission: "payment.refund" },
      schema: {
        tags,
        security,
        summary:
          "Close a discrepancy with what was done about it; an operation whose outcome was unknown is settled by `outcome`",
        params: idParams,
        body: Type.Object(
          {
            note: Type.String({
              minLength: 1,
              maxLength: 1000,
              description: "What was done, for the record",
            }),
            outcome: Type.Optional(
              stringEnum(["done", "not_done"] as const, {
                description:
                  "unknown_outcome only: what the gateway's portal shows (done: the operation counts and its webhook is sent; not_done: it is removed)",
              }),
            ),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) =>
      discrepancies.resolve(
        merchantOf(request),
        request.params.id,
        request.body.note,
        actorOf(request),
        request.body.outcome,
      ),
  );
}
