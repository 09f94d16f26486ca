/** The Payment Status API, and the payments list (`GET /v1/payments` without `order_no`). */
import { Type } from "@sinclair/typebox";
import { PARENT_STATES } from "@svc/protocol";
import type { FastifyInstance } from "fastify";
import { merchantOf } from "../http/auth.js";
import { validationError } from "../http/problem.js";
import { PRIVATE_SECURITY } from "../http/openapi.js";
import { stringEnum, typed } from "../http/schema.js";
import { apiFilterTime } from "../http/time-filter.js";
import type { PaymentsService } from "./payments.service.js";

const tags = ["Payment Status"];
const security = PRIVATE_SECURITY;
const config = { auth: "private" as const, permission: "payment.view" as const };

export function paymentsRoutes(fastify: FastifyInstance, payments: PaymentsService): void {
  const app = typed(fastify);
  app.get(
    "/v1/payments/:session_id",
    {
      config,
      schema: {
        tags,
        security,
        summary: "A payment with its totals and child transactions",
        params: Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 64 }) }),
      },
    },
    async (request) =>
      payments.status(merchantOf(request), {
        sessionId: request.params.session_id,
      }),
  );
  app.get(
    "/v1/payments",
    {
      config,
      schema: {
        tags,
        security,
        summary:
          "With order_no: that payment (as GET /v1/payments/{session_id}). Without: the list, newest first, filtered, a page at a time ({data, has_more, next_cursor}; pass next_cursor as cursor for the next page: payments created meanwhile never shift a page)",
        querystring: ListQuery,
      },
    },
    async (request) => {
      const query = request.query;
      const merchantId = merchantOf(request);
      if (query.order_no !== undefined) {
        // A look-up of one payment, not a filter: another parameter beside it would be ignored,
        // and `?order_no=A&state=paid` answer a failed payment with 200.
        const others = Object.keys(query).filter((name) => name !== "order_no");
        if (others.length > 0)
          throw validationError(
            Object.fromEntries(
              others.map((name) => [
                name,
                ["cannot be combined with order_no, which answers that one payment: leave one out"],
              ]),
            ),
          );
        return payments.status(merchantId, { orderNo: query.order_no });
      }
      // Blank, it would be dropped and list everything: a filter that is not one is refused.
      if (query.q !== undefined && query.q.trim() === "")
        throw validationError({ q: ["must not be only spaces: leave q out to list every payment"] });
      return payments.page(
        merchantId,
        {
          search: query.q,
          state: query.state,
          pgCode: query.pg_code,
          from: apiFilterTime(query.since, "since"),
          to: apiFilterTime(query.until, "until"),
        },
        query.cursor,
        query.limit ?? 25,
      );
    },
  );
}

const ListQuery = Type.Object(
  {
    order_no: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: "Your order number: answers that payment" }),
    ),
    state: Type.Optional(stringEnum(PARENT_STATES)),
    pg_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "session_id, order_no prefix, or part of a customer's id, email, phone or name",
      }),
    ),
    since: Type.Optional(Type.String({ maxLength: 40, description: "Created at or after (ISO 8601)" })),
    until: Type.Optional(Type.String({ maxLength: 40, description: "Created before (ISO 8601)" })),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: "next_cursor of the previous page" }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: "Default 25" })),
  },
  { additionalProperties: false },
);
