/** The operator API (`Authorization: Bearer <SVC_ADMIN_TOKEN>`): merchants, keys, users (gateway settings: gateways/settings.routes.ts). */
import { Type } from "@sinclair/typebox";
import { PERMISSIONS } from "@svc/protocol";
import type { FastifyInstance } from "fastify";
import { ADMIN_SECURITY } from "../http/openapi.js";
import { stringEnum, typed } from "../http/schema.js";
import type { MerchantsService } from "./merchants.service.js";

const tags = ["Operator"];
const security = ADMIN_SECURITY;
const config = { auth: "admin" as const };
const MerchantParams = Type.Object({ merchant_id: Type.String({ maxLength: 64 }) });

export function adminRoutes(fastify: FastifyInstance, merchants: MerchantsService): void {
  const app = typed(fastify);
  app.post(
    "/v1/admin/merchants",
    {
      config,
      schema: {
        tags,
        security,
        summary:
          "Create a merchant with its first private key, public key and webhook signing secret (shown once)",
        body: Type.Object(
          {
            root_domain: Type.String({ minLength: 1, maxLength: 253 }),
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => reply.status(201).send(await merchants.createMerchant(request.body)),
  );

  app.get(
    "/v1/admin/merchants/:merchant_id",
    {
      config,
      schema: {
        tags,
        security,
        summary: "A merchant with its keys (hints only) and gateway settings",
        params: MerchantParams,
      },
    },
    async (request) => merchants.getMerchant(request.params.merchant_id),
  );

  app.post(
    "/v1/admin/merchants/:merchant_id/keys",
    {
      config,
      schema: {
        tags,
        security,
        summary: "Create an API key; the key is in this response only",
        params: MerchantParams,
        body: Type.Object(
          {
            kind: stringEnum(["private", "public"] as const),
            label: Type.Optional(Type.String({ maxLength: 100 })),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const { merchant_id } = request.params;
      const body = request.body;
      return reply.status(201).send(await merchants.createKey(merchant_id, body.kind, body.label));
    },
  );

  app.delete(
    "/v1/admin/merchants/:merchant_id/keys/:key_id",
    {
      config,
      schema: {
        tags,
        security,
        summary: "Revoke an API key",
        params: Type.Object({ merchant_id: Type.String(), key_id: Type.String() }),
      },
    },
    async (request, reply) => {
      const { merchant_id, key_id } = request.params;
      await merchants.revokeKey(merchant_id, key_id);
      return reply.status(204).send();
    },
  );

  app.post(
    "/v1/admin/merchants/:merchant_id/users",
    {
      config,
      schema: {
        tags,
        security,
        summary: "Create a dashboard user with permissions",
        params: MerchantParams,
        body: Type.Object(
          {
            username: Type.String({ minLength: 1, maxLength: 150 }),
            email: Type.String({ minLength: 3, maxLength: 254 }),
            password: Type.String({ minLength: 1, maxLength: 200 }),
            first_name: Type.Optional(Type.String({ maxLength: 32 })),
            last_name: Type.Optional(Type.String({ maxLength: 32 })),
            phone: Type.Optional(Type.String({ maxLength: 128 })),
            permissions: Type.Array(stringEnum(PERMISSIONS), { maxItems: 20 }),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const { merchant_id } = request.params;
      return reply.status(201).send(await merchants.createUser(merchant_id, request.body));
    },
  );
}
