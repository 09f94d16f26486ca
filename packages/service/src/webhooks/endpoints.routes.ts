/**
 * `POST/GET /v1/webhooks/endpoints`, `GET/PATCH/DELETE /v1/webhooks/endpoints/{id}`,
 * `POST /v1/webhooks/endpoints/{id}/replay`.
 */
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { merchantOf } from "../http/auth.js";
import { PRIVATE_SECURITY } from "../http/openapi.js";
import { type EndpointsService, MAX_HEADERS, SUBSCRIBABLE } from "./endpoints.service.js";
import { typed } from "../http/schema.js";
import { apiFilterTime } from "../http/time-filter.js";

const tags = ["Webhooks"];
const security = PRIVATE_SECURITY;
const config = { auth: "private" as const, permission: "webhooks.manage" as const };

const fields = {
  url: Type.String({ maxLength: 2048, description: "Where this endpoint's webhooks go (https or http)" }),
  description: Type.String({
    maxLength: 800,
    description: "For people: what this endpoint is (≤ 200 characters)",
  }),
  event_types: Type.Array(Type.String({ maxLength: 64 }), {
    maxItems: 32,
    description: `The event types it gets, or ["*"] for all of them (the default): ${SUBSCRIBABLE.join(", ")}`,
  }),
  headers: Type.Record(Type.String({ maxLength: 128 }), Type.String({ maxLength: 2000 }), {
    description: `Up to ${MAX_HEADERS} custom headers sent with every request (not webhook-*, svc-* or HTTP's own). Answers show each value masked ("••••", with its last 4 characters when it has 12 or more); a masked value sent back under the same name keeps the value it stands for`,
  }),
  enabled: Type.Boolean({
    description: "false: nothing is sent to it (what waits is ended; a replay can send it later)",
  }),
  payload_version: Type.String({
    maxLength: 40,
    description: "The payload version it gets; new endpoints are pinned to the current one",
  }),
  include_metadata: Type.Boolean({
    description:
      "Operation webhooks also carry the payment's metadata (the seed's payload has no such field)",
  }),
};

const CreateBody = Type.Object(
  {
    url: fields.url,
    description: Type.Optional(fields.description),
    event_types: Type.Optional(fields.event_types),
    headers: Type.Optional(fields.headers),
    enabled: Type.Optional(fields.enabled),
    payload_version: Type.Optional(fields.payload_version),
    include_metadata: Type.Optional(fields.include_metadata),
  },
  { additionalProperties: false },
);
const UpdateBody = Type.Partial(CreateBody, { additionalProperties: false });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const ReplayBody = Type.Object(
  {
    since: Type.Optional(
      Type.String({
        maxLength: 40,
        description: "ISO 8601 time; default: when the endpoint began failing or was disabled",
      }),
    ),
  },
  { additionalProperties: false },
);

export function endpointsRoutes(fastify: FastifyInstance, endpoints: EndpointsService): void {
  const app = typed(fastify);
  app.get(
    "/v1/webhooks/endpoints",
    {
      config,
      schema: {
        tags,
        security,
        summary:
          "Every destination of the merchant's webhooks: the seed's general and plugin URLs (read-only, kind general/plugin) and the merchant's endpoints",
      },
    },
    async (request) => ({ endpoints: await endpoints.list(merchantOf(request)) }),
  );
  app.post(
    "/v1/webhooks/endpoints",
    {
      config,
      schema: { tags, security, summary: "Add a webhook endpoint", body: CreateBody },
    },
    async (request, reply) => {
      const body = request.body;
      return reply.status(201).send(await endpoints.create(merchantOf(request), body));
    },
  );
  app.get(
    "/v1/webhooks/endpoints/:id",
    { config, schema: { tags, security, summary: "One webhook endpoint", params: IdParams } },
    async (request) => endpoints.get(merchantOf(request), request.params.id),
  );
  app.patch(
    "/v1/webhooks/endpoints/:id",
    {
      config,
      schema: {
        tags,
        security,
        summary:
          "Change a webhook endpoint; enabling a disabled one answers with `missed`, what POST …/replay would send; a new URL answers with `moved`, the deliveries still waiting that go there now",
        params: IdParams,
        body: UpdateBody,
      },
    },
    async (request) => endpoints.update(merchantOf(request), request.params.id, request.body),
  );
  app.delete(
    "/v1/webhooks/endpoints/:id",
    {
      config,
      schema: {
        tags,
        security,
        summary: "Delete a webhook endpoint (what waits for it is ended)",
        params: IdParams,
      },
    },
    async (request, reply) => {
      await endpoints.remove(merchantOf(request), request.params.id);
      return reply.status(204).send();
    },
  );
  app.post(
    "/v1/webhooks/endpoints/:id/replay",
    {
      config,
      schema: {
        tags,
        security,
        summary:
          "Send an enabled endpoint what it missed: its failed deliveries again, and the messages of its event types not sent to it",
        params: IdParams,
        body: Type.Optional(ReplayBody),
      },
      // The body is optional: none at all means `{}` (Fastify would validate `undefined` as the object).
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) =>
      endpoints.replay(merchantOf(request), request.params.id, apiFilterTime(request.body?.since, "since")),
  );
}
