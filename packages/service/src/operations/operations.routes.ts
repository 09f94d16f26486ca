/** `POST /v1/operations`: refund, capture or void a parent by session_id or order_no. */
import { Type } from "@sinclair/typebox";
import { OPERATIONS, type Operation } from "@svc/protocol";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { merchantOf } from "../http/auth.js";
import { PRIVATE_SECURITY } from "../http/openapi.js";
import { validationError } from "../http/problem.js";
import { stringEnum, typed } from "../http/schema.js";
import type { OperationsService } from "./operations.service.js";

export const OperationBody = Type.Object(
  {
    operation: stringEnum(OPERATIONS, { description: "refund, capture or void" }),
    session_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "The parent's session_id" }),
    ),
    order_no: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: "Or the parent's order_no" }),
    ),
    amount: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 32,
        description: "Decimal string in the parent's currency; default: all that remains. Not for void.",
      }),
    ),
    currency_code: Type.Optional(
      Type.String({ minLength: 3, maxLength: 3, description: "Optional; must be the parent's currency" }),
    ),
  },
  { additionalProperties: false },
);

type Body = {
  operation: Operation;
  session_id?: string;
  order_no?: string;
  amount?: string;
  currency_code?: string;
};

/** A permission per operation, checked here because the route serves all three. */
const PERMISSION = { refund: "payment.refund", capture: "payment.capture", void: "payment.void" } as const;

function initiatorOf(request: FastifyRequest) {
  const p = request.principal;
  return p.kind === "user" ? p.user : undefined;
}

export function operationsRoutes(fastify: FastifyInstance, operations: OperationsService): void {
  const app = typed(fastify);
  app.post(
    "/v1/operations",
    {
      config: {
        auth: "private",
        idempotent: true,
        permissionOf: (body) => PERMISSION[(body as Body).operation],
      },
      schema: {
        tags: ["Operations"],
        summary: "Refund, capture or void a payment",
        description:
          "200 with the operation webhook payload (result success) when the gateway did it; 202 (result queued) when it queued it; 402 operation_declined when it declined (nothing stored, no webhook).",
        security: PRIVATE_SECURITY,
        body: OperationBody,
      },
    },
    async (request, reply) => {
      const body = request.body;
      if (!body.session_id === !body.order_no)
        throw validationError({
          session_id: ["give either session_id or order_no of the parent (one of them)"],
        });
      const result = await operations.perform({
        merchantId: merchantOf(request),
        via: "api",
        initiator: initiatorOf(request),
        operation: body.operation,
        sessionId: body.session_id,
        orderNo: body.order_no,
        amount: body.amount,
        currencyCode: body.currency_code,
        idempotency: request.idempotencyKey,
      });
      return reply.status(result.status).send(result.payload);
    },
  );
}
