/** `GET /v1/reports/overview?range=today|7d|30d`: the figures of the dashboard's overview, as JSON. */
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { Db } from "../db/client.js";
import { merchantOf } from "../http/auth.js";
import { PRIVATE_SECURITY } from "../http/openapi.js";
import { stringEnum, typed } from "../http/schema.js";
import { OVERVIEW_RANGES, overview } from "./overview.js";

const Query = Type.Object(
  { range: Type.Optional(stringEnum(OVERVIEW_RANGES, { description: "UTC days ending today; default 7d" })) },
  { additionalProperties: false },
);

export function overviewRoutes(fastify: FastifyInstance, deps: { db: Db; now: () => Date }): void {
  const app = typed(fastify);
  app.get(
    "/v1/reports/overview",
    {
      config: { auth: "private" as const, permission: "payment.view" as const },
      schema: {
        tags: ["Payments"],
        security: PRIVATE_SECURITY,
        summary:
          "Volume and count per day, success rate, refunds, captures, net (per currency) and webhook health for a range: the dashboard overview's figures",
        querystring: Query,
      },
    },
    async (request) => overview(deps.db, merchantOf(request), request.query.range ?? "7d", deps.now()),
  );
}
