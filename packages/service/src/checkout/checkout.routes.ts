/** `POST /v1/checkout`: create a payment transaction (the parent) and its session_id. */
import { Type } from "@sinclair/typebox";
import { CURRENCY_CODES, LANGUAGES, TRANSACTION_TYPES } from "@svc/protocol";
import type { FastifyInstance } from "fastify";
import { merchantOf } from "../http/auth.js";
import { PRIVATE_SECURITY } from "../http/openapi.js";
import { stringEnum, typed } from "../http/schema.js";
import type { CheckoutService } from "./checkout.service.js";

const optionalText = (maxLength: number, description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength, description }));

export const CreateCheckoutBody = Type.Object(
  {
    type: stringEnum(TRANSACTION_TYPES, { description: "e_commerce or payment_request (the plugin)" }),
    pg_codes: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1,
      maxItems: 20,
      description: "Your gateway codes to offer",
    }),
    amount: Type.String({
      minLength: 1,
      maxLength: 32,
      description: 'Decimal string with the currency\'s exact decimals: "86.000" KWD, "10.50" USD, "500" JPY',
    }),
    currency_code: Type.String({
      minLength: 3,
      maxLength: 3,
      description: `ISO 4217 alpha-3, e.g. ${CURRENCY_CODES.slice(0, 3).join(", ")}`,
    }),
    order_no: optionalText(128, "Your order number, unique per merchant"),
    customer_id: optionalText(128, "Your customer id; saved cards belong to it"),
    customer_email: optionalText(254, "Customer email"),
    customer_phone: optionalText(32, "Customer mobile number; prefills the mobile wallet"),
    customer_first_name: optionalText(100, "Customer first name"),
    customer_last_name: optionalText(100, "Customer last name"),
    redirect_url: optionalText(2048, "Where the customer returns after a redirect or hosted-page flow"),
    webhook_url: optionalText(2048, "URL for this transaction's payment webhook"),
    language: Type.Optional(stringEnum(LANGUAGES, { description: "Language of backend texts; default en" })),
    expiration_time: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 32 }), Type.Integer({ minimum: 1 })], {
        description: 'ISO 8601 duration ("PT30M") or seconds; default 24 h',
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          "Your own data on the payment: up to 50 keys of at most 40 characters, string values of at most 500; returned by the Payment Status API and sent in the payment webhook",
      }),
    ),
    include_sdk_setup_preload: Type.Optional(
      Type.Boolean({ description: "Add sdk_setup_preload_payload to the response" }),
    ),
  },
  { additionalProperties: false },
);

export function checkoutRoutes(fastify: FastifyInstance, checkout: CheckoutService): void {
  const app = typed(fastify);
  app.post(
    "/v1/checkout",
    {
      config: { auth: "private", permission: "payment.create", idempotent: true },
      schema: {
        tags: ["Checkout"],
        summary: "Create a payment transaction and its session_id",
        security: PRIVATE_SECURITY,
        body: CreateCheckoutBody,
      },
    },
    async (request, reply) => {
      const created = await checkout.create(merchantOf(request), request.body, "api");
      return reply.status(201).send(created);
    },
  );
}
