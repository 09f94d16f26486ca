/**
 * The endpoints the checkout SDK calls with the public key. They answer CORS from any origin:
 * merchants embed the SDK on their own sites, and no cookie is involved (the key is a header).
 */
import { Type } from "@sinclair/typebox";
import { FORMS_OF_PAYMENT } from "@svc/protocol";
import type { FastifyInstance, FastifyReply } from "fastify";
import { merchantOf } from "../http/auth.js";
import { validationError } from "../http/problem.js";
import { PUBLIC_SECURITY } from "../http/openapi.js";
import { stringEnum, typed } from "../http/schema.js";
import type { CheckoutService } from "./checkout.service.js";
import type { PaymentOutcome } from "./payment-flow.js";
import type { SdkService } from "./sdk.service.js";

const CORS_MAX_AGE_S = 600;
const SessionParams = Type.Object({ session_id: Type.String({ minLength: 1, maxLength: 64 }) });
const tags = ["Checkout SDK"];
const security = PUBLIC_SECURITY;
const config = { auth: "public" as const };
/** An SDK error report's `details`: at most this many fields and this many bytes of JSON. */
const MAX_DETAILS_FIELDS = 30;
const MAX_DETAILS_BYTES = 8 * 1024;

function outcomeBody(outcome: PaymentOutcome) {
  const form = outcome.tx.form_of_payment ?? undefined;
  switch (outcome.kind) {
    case "final":
      return outcome.callback;
    case "otp_required":
      return {
        status: "otp_required",
        otp_reference: outcome.otpReference,
        form_of_payment: form,
        session_id: outcome.tx.session_id,
      };
    case "redirect":
      return {
        status: "redirect",
        redirect_url: outcome.redirectUrl,
        form_of_payment: form,
        session_id: outcome.tx.session_id,
      };
  }
}

function cors(reply: FastifyReply): void {
  reply.header("access-control-allow-origin", "*");
  // Tracking-Key is the seed's name for Idempotency-Key; a page reads x-request-id (what support
  // asks for), Idempotent-Replayed and a 429's or 503's Retry-After.
  reply.header("access-control-allow-headers", "authorization, content-type, idempotency-key, tracking-key");
  reply.header("access-control-expose-headers", "x-request-id, idempotent-replayed, retry-after");
  reply.header("access-control-allow-methods", "GET, POST, OPTIONS");
  reply.header("access-control-max-age", String(CORS_MAX_AGE_S));
}

export function sdkRoutes(fastify: FastifyInstance, checkout: CheckoutService, sdk: SdkService): void {
  fastify.register(async (plain) => {
    const scope = typed(plain);
    scope.addHook("onSend", async (_request, reply, payload) => {
      cors(reply);
      return payload;
    });
    for (const path of [
      "/v1/checkout/:session_id",
      "/v1/checkout/:session_id/payments",
      "/v1/checkout/:session_id/payments/otp",
      "/v1/checkout/:session_id/payments/result",
      "/v1/sdk/config",
      "/v1/sdk/errors",
    ]) {
      scope.options(path, { schema: { hide: true } }, async (_request, reply) => reply.status(204).send());
    }

    scope.get(
      "/v1/checkout/:session_id",
      {
        config,
        schema: {
          tags,
          security,
          summary: "Transaction details for the SDK (the preload shape)",
          params: SessionParams,
        },
      },
      async (request) => checkout.sdkDetails(merchantOf(request), request.params.session_id),
    );

    scope.post(
      "/v1/checkout/:session_id/payments",
      {
        config: { ...config, idempotent: true },
        schema: {
          tags,
          security,
          summary:
            "Pay: wallet_a_pay (payment_token), wallet_b_pay (mobile_number → OTP), token_pay (token), svc_pg and redirect (→ redirect_url)",
          params: SessionParams,
          body: Type.Object(
            {
              form_of_payment: stringEnum(FORMS_OF_PAYMENT),
              pg_code: Type.String({ minLength: 1, maxLength: 64 }),
              mobile_number: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
              payment_token: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
              token: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request) =>
        outcomeBody(
          await checkout.startPayment(
            merchantOf(request),
            request.params.session_id,
            request.body,
            request.idempotencyKey,
          ),
        ),
    );

    scope.post(
      "/v1/checkout/:session_id/payments/otp",
      {
        config: { ...config, idempotent: true },
        schema: {
          tags,
          security,
          summary: "Confirm a wallet_b_pay payment with the one-time code",
          params: SessionParams,
          body: Type.Object(
            {
              otp_reference: Type.String({ minLength: 1, maxLength: 64 }),
              otp: Type.String({ minLength: 4, maxLength: 8, pattern: "^[0-9]+$" }),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request) => {
        const body = request.body;
        return outcomeBody(
          await checkout.confirmOtp(
            merchantOf(request),
            request.params.session_id,
            body.otp_reference,
            body.otp,
          ),
        );
      },
    );

    scope.get(
      "/v1/checkout/:session_id/payments/result",
      {
        config,
        schema: {
          tags,
          security,
          summary:
            "The payment's callback data once final (svc_pg and redirect flows, polled by the SDK), else status pending",
          params: SessionParams,
        },
      },
      async (request) => {
        const { session_id } = request.params;
        const result = await checkout.paymentResult(merchantOf(request), session_id);
        return result.kind === "final"
          ? result.callback
          : { status: "pending", state: result.tx.state, session_id: result.tx.session_id };
      },
    );

    scope.get(
      "/v1/sdk/config",
      {
        config,
        schema: { tags, security, summary: "The SDK's studio configuration: error reporting on or off" },
      },
      async (request) => sdk.config(merchantOf(request)),
    );

    scope.post(
      "/v1/sdk/errors",
      {
        config,
        schema: {
          tags,
          security,
          summary: "Store an SDK error report (ignored while error reporting is disabled)",
          body: Type.Object(
            {
              message: Type.String({ minLength: 1, maxLength: 2000 }),
              session_id: Type.Optional(Type.String({ maxLength: 64, pattern: "^sess_[a-z0-9]+$" })),
              form_of_payment: Type.Optional(Type.String({ maxLength: 32, pattern: "^[a-z][a-z0-9_]*$" })),
              // What an SDK adds (a code, a status, the page or app platform): a few small values.
              details: Type.Optional(
                Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), {
                  maxProperties: MAX_DETAILS_FIELDS,
                }),
              ),
            },
            { additionalProperties: false },
          ),
        },
      },
      async (request, reply) => {
        // The public key is public: a report is bounded like the SDK's own, so none stores a megabyte.
        if (request.body.details && JSON.stringify(request.body.details).length > MAX_DETAILS_BYTES)
          throw validationError({
            details: [
              `must be at most ${MAX_DETAILS_BYTES / 1024} KB as JSON; report a code and a status, not a dump`,
            ],
          });
        const stored = await sdk.report(merchantOf(request), request.body, request.headers["user-agent"]);
        return reply
          .status(stored ? 201 : 202)
          .send(stored ? { id: stored.id, stored: true } : { stored: false });
      },
    );
  });
}
