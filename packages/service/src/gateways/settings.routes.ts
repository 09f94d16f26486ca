/**
 * The operator API for gateway settings (`Authorization: Bearer <SVC_ADMIN_TOKEN>`): create,
 * list, read and change a merchant's pg_codes, with their credentials (write-only: answers show
 * their hint), and re-seal every stored credential under a new SVC_SECRETS_KEY.
 */
import { Type } from "@sinclair/typebox";
import { GATEWAY_KINDS, PAYMENT_OPERATIONS } from "@svc/protocol";
import type { FastifyInstance } from "fastify";
import { ADMIN_SECURITY } from "../http/openapi.js";
import { stringEnum, typed } from "../http/schema.js";
import type { GatewaySettingsService } from "./settings.service.js";

const tags = ["Operator"];
const security = ADMIN_SECURITY;
const config = { auth: "admin" as const };
const MerchantParams = Type.Object({ merchant_id: Type.String({ maxLength: 64 }) });
const SettingParams = Type.Object({
  merchant_id: Type.String({ maxLength: 64 }),
  pg_code: Type.String({ maxLength: 64 }),
});
const Credentials = Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 1024 }), {
  maxProperties: 10,
  description:
    "knet: {tranportal_id, tranportal_password, resource_key}; stripe: {secret_key, webhook_secret}. Write-only: answers show only a hint.",
});
const BaseUrl = Type.String({
  minLength: 1,
  maxLength: 300,
  description: "The gateway's API host when not its production one (https; http only to loopback)",
});
const Environment = stringEnum(["production", "test"] as const, {
  description: "KNET only: test uses KNET's test host (kpaytest.com.kw)",
});

export function gatewaySettingsRoutes(fastify: FastifyInstance, settings: GatewaySettingsService): void {
  const app = typed(fastify);
  app.post(
    "/v1/admin/merchants/:merchant_id/gateways",
    {
      config,
      schema: {
        tags,
        security,
        summary:
          "Create a gateway setting (a pg_code): a sandbox kind, or KNET or Stripe with the merchant's credentials",
        params: MerchantParams,
        body: Type.Object(
          {
            pg_code: Type.String({ minLength: 1, maxLength: 64 }),
            kind: stringEnum(GATEWAY_KINDS),
            operation: Type.Optional(stringEnum(PAYMENT_OPERATIONS)),
            currencies: Type.Array(Type.String({ minLength: 3, maxLength: 3 }), {
              minItems: 1,
              maxItems: 200,
            }),
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            notification_secret: Type.Optional(Type.String({ minLength: 16, maxLength: 200 })),
            wallet_a_merchant_identifier: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            credentials: Type.Optional(Credentials),
            api_base_url: Type.Optional(BaseUrl),
            environment: Type.Optional(Environment),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) =>
      reply.status(201).send(await settings.create(request.params.merchant_id, request.body)),
  );

  app.get(
    "/v1/admin/merchants/:merchant_id/gateways",
    { config, schema: { tags, security, summary: "A merchant's gateway settings", params: MerchantParams } },
    async (request) => ({ gateways: await settings.list(request.params.merchant_id) }),
  );

  app.get(
    "/v1/admin/merchants/:merchant_id/gateways/:pg_code",
    { config, schema: { tags, security, summary: "One gateway setting", params: SettingParams } },
    async (request) => settings.get(request.params.merchant_id, request.params.pg_code),
  );

  app.patch(
    "/v1/admin/merchants/:merchant_id/gateways/:pg_code",
    {
      config,
      schema: {
        tags,
        security,
        summary: "Change a gateway setting; credentials may give only the fields that change",
        params: SettingParams,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            operation: Type.Optional(stringEnum(PAYMENT_OPERATIONS)),
            currencies: Type.Optional(
              Type.Array(Type.String({ minLength: 3, maxLength: 3 }), { minItems: 1, maxItems: 200 }),
            ),
            credentials: Type.Optional(Credentials),
            api_base_url: Type.Optional(Type.Union([BaseUrl, Type.Null()])),
            environment: Type.Optional(Environment),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => settings.update(request.params.merchant_id, request.params.pg_code, request.body),
  );

  app.post(
    "/v1/admin/secrets/rotate",
    {
      config,
      schema: {
        tags,
        security,
        summary:
          "Seal every stored gateway credential again under SVC_SECRETS_KEY (after a key change; the old key in SVC_SECRETS_PREVIOUS_KEYS)",
      },
    },
    async () => settings.rotate(),
  );
}
