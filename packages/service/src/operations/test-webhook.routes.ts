/** `POST /v1/webhooks/test`, `POST /v1/webhooks/endpoints/{id}/test`: a signed `webhook.test` through the real delivery path. */
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import type { Db } from "../db/client.js";
import { merchantOf } from "../http/auth.js";
import { PRIVATE_SECURITY } from "../http/openapi.js";
import { typed } from "../http/schema.js";
import type { OutboxSignal } from "../webhooks/outbox.js";
import { sendTestWebhook } from "./test-webhook.js";

const tags = ["Webhooks"];
const security = PRIVATE_SECURITY;
const config = { auth: "private" as const, permission: "webhooks.manage" as const };
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export function testWebhookRoutes(
  fastify: FastifyInstance,
  deps: { db: Db; outbox: OutboxSignal; now: () => Date },
): void {
  const app = typed(fastify);
  const answer = async (merchantId: string, endpointId?: string) => {
    const sent = await sendTestWebhook(deps.db, deps.outbox, merchantId, { now: deps.now(), endpointId });
    return { message_id: sent.messageId ?? null, urls: sent.urls };
  };
  app.post(
    "/v1/webhooks/test",
    {
      config,
      schema: {
        tags,
        security,
        summary:
          "Send a signed webhook.test (a sample refund) to every destination: the general and plugin URLs and every enabled endpoint; follow it in GET /v1/webhooks/messages/{message_id}",
      },
    },
    async (request, reply) => reply.status(202).send(await answer(merchantOf(request))),
  );
  app.post(
    "/v1/webhooks/endpoints/:id/test",
    {
      config,
      schema: {
        tags,
        security,
        summary: "Send a signed webhook.test to this endpoint only, whatever event types it subscribes to",
        params: IdParams,
      },
    },
    async (request, reply) => reply.status(202).send(await answer(merchantOf(request), request.params.id)),
  );
}
