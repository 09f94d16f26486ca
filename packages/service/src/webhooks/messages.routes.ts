/** `GET /v1/webhooks/messages[/{id}]`, `POST /v1/webhooks/messages/{id}/replay`, `POST /v1/webhooks/replay`. */
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { merchantOf } from "../http/auth.js";
import { PRIVATE_SECURITY } from "../http/openapi.js";
import { stringEnum, typed } from "../http/schema.js";
import { apiFilterTime } from "../http/time-filter.js";
import { DEFAULT_PAGE, type MessagesService } from "./messages.service.js";

const tags = ["Webhooks"];
const security = PRIVATE_SECURITY;
const config = { auth: "private" as const, permission: "webhooks.manage" as const };
const STATUSES = ["pending", "retrying", "succeeded", "failed"] as const;
const MAX_PAGE = 200;

export function messagesRoutes(fastify: FastifyInstance, messages: MessagesService): void {
  const app = typed(fastify);
  app.get(
    "/v1/webhooks/messages",
    {
      config,
      schema: {
        tags,
        security,
        summary: "Webhook messages, newest first, with their deliveries and every attempt",
        description:
          "A message is kept until 90 days (the service's SVC_WEBHOOK_RETENTION_DAYS) after its last delivery finished, then deleted: it is no longer listed, and reading or replaying it answers 404.",
        querystring: Type.Object(
          {
            status: Type.Optional(
              stringEnum(STATUSES, { description: "Messages with a delivery in this status" }),
            ),
            session_id: Type.Optional(
              Type.String({ minLength: 1, maxLength: 64, description: "Parent or child" }),
            ),
            since: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: "ISO 8601 time" })),
            until: Type.Optional(
              Type.String({ minLength: 1, maxLength: 40, description: "ISO 8601 time, exclusive" }),
            ),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const query = request.query;
      return messages.list(merchantOf(request), {
        status: query.status,
        sessionId: query.session_id,
        since: apiFilterTime(query.since, "since"),
        until: apiFilterTime(query.until, "until"),
        limit: query.limit ?? DEFAULT_PAGE,
      });
    },
  );
  const idParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
  app.get(
    "/v1/webhooks/messages/:id",
    {
      config,
      schema: { tags, security, summary: "One webhook message with its attempts", params: idParams },
    },
    async (request) => messages.get(merchantOf(request), request.params.id),
  );
  app.post(
    "/v1/webhooks/messages/:id/replay",
    {
      config,
      schema: { tags, security, summary: "Send a message again to its destinations", params: idParams },
    },
    async (request, reply) =>
      reply.status(202).send(await messages.replay(merchantOf(request), request.params.id)),
  );
  app.post(
    "/v1/webhooks/replay",
    {
      config,
      schema: {
        tags,
        security,
        summary: "Send again every delivery in a final status, created in a time range",
        body: Type.Object(
          {
            status: stringEnum(["failed", "succeeded"] as const),
            since: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
            until: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const body = request.body;
      return reply.status(202).send(
        await messages.replayMany(merchantOf(request), {
          status: body.status,
          since: apiFilterTime(body.since, "since"),
          until: apiFilterTime(body.until, "until"),
        }),
      );
    },
  );
}
