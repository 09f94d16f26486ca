/** The Payment Status API. */
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { merchantOf } from "../http/auth.js";
import { PRIVATE_SECURITY } from "../http/openapi.js";
import type { PaymentsService } from "./payments.service.js";

const tags = ["Payment Status"];
const security = PRIVATE_SECURITY;
const config = { auth: "private" as const, permission: "payment.view" as const };

export function paymentsRoutes(app: FastifyInstance, payments: PaymentsService): void {
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
        sessionId: (request.params as { session_id: string }).session_id,
      }),
  );
  app.get(
    "/v1/payments",
    {
      config,
      schema: {
        tags,
        security,
        summary: "A payment looked up by your order_no",
        querystring: Type.Object(
          { order_no: Type.String({ minLength: 1, maxLength: 128 }) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) =>
      payments.status(merchantOf(request), { orderNo: (request.query as { order_no: string }).order_no }),
  );
}
