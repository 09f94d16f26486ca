/**
 * `GET/PUT /v1/webhooks/config`, `GET/PUT /v1/webhooks/plugins/{type}`, `POST /v1/webhooks/secret/rotate`,
 * `GET /v1/webhooks/event-types`.
 */
import { Type } from "@sinclair/typebox";
import { TRANSACTION_TYPES } from "@svc/protocol";
import type { FastifyInstance } from "fastify";
import { merchantOf } from "../http/auth.js";
import { PRIVATE_SECURITY } from "../http/openapi.js";
import { stringEnum, typed } from "../http/schema.js";
import { EVENT_TYPES } from "./outbox.js";
import { MAX_TIMEOUT_SECONDS } from "./settings.repo.js";
import type { SettingsService } from "./settings.service.js";

const tags = ["Webhooks"];
const security = PRIVATE_SECURITY;
const config = { auth: "private" as const, permission: "webhooks.manage" as const };
const nullableUrl = (description: string) =>
  Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()], { description }));

const ConfigBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean({ description: "Master switch: nothing is sent while false" })),
    operations_webhook_url: nullableUrl("Where operation webhooks go (http or https); null to unset"),
    notify_api_initiated: Type.Optional(
      Type.Boolean({
        description:
          "Enable webhook notifications if transaction initiated from API (API-created parents and operations-API operations)",
      }),
    ),
    timeout_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_TIMEOUT_SECONDS,
        description: "Per-attempt timeout; default 15",
      }),
    ),
    retry_schedule_seconds: Type.Optional(
      Type.Array(Type.Integer(), {
        maxItems: 20,
        description:
          "Delay after each failed try, in seconds; default 5, 300, 1800, 7200, 18000, 36000, 36000",
      }),
    ),
  },
  { additionalProperties: false },
);

const PluginBody = Type.Object(
  {
    webhook_url: nullableUrl("Where this plugin's webhooks go; null to unset"),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const PluginParams = Type.Object({ type: stringEnum(TRANSACTION_TYPES) });

export function settingsRoutes(fastify: FastifyInstance, settings: SettingsService): void {
  const app = typed(fastify);
  app.get(
    "/v1/webhooks/event-types",
    {
      config,
      schema: {
        tags,
        security,
        summary: "The catalogue of event types: each request carries its type in the svc-event-type header",
      },
    },
    async () => ({ event_types: EVENT_TYPES.map((e) => ({ type: e.type, description: e.description })) }),
  );
  app.get(
    "/v1/webhooks/config",
    { config, schema: { tags, security, summary: "The general webhook configuration" } },
    async (request) => settings.config(merchantOf(request)),
  );
  app.put(
    "/v1/webhooks/config",
    {
      config,
      schema: { tags, security, summary: "Change the general webhook configuration", body: ConfigBody },
    },
    async (request) => settings.updateConfig(merchantOf(request), request.body),
  );
  app.get(
    "/v1/webhooks/plugins/:type",
    {
      config,
      schema: { tags, security, summary: "A payment webhook plugin configuration", params: PluginParams },
    },
    async (request) => settings.plugin(merchantOf(request), request.params.type),
  );
  app.put(
    "/v1/webhooks/plugins/:type",
    {
      config,
      schema: {
        tags,
        security,
        summary: "Change a payment webhook plugin configuration",
        params: PluginParams,
        body: PluginBody,
      },
    },
    async (request) => settings.updatePlugin(merchantOf(request), request.params.type, request.body),
  );
  app.post(
    "/v1/webhooks/secret/rotate",
    {
      config,
      schema: {
        tags,
        security,
        summary: "New signing secret; the previous one stays valid (second signature) for 24 h",
      },
    },
    async (request) => settings.rotateSecret(merchantOf(request)),
  );
}
