/**
 * `POST /v1/gateways/{pg_code}/notifications`: gateways tell svc about queued results, their own
 * dashboard's operations and redirect payments. The body is kept raw (a Buffer) because the
 * signature covers the exact bytes; re-serialised JSON would not verify. JSON (the sandbox,
 * Stripe's events) and forms (KNET's response, `trandata=…`) are both taken raw; the adapter of
 * the pg_code's gateway reads them, and says how to answer when its protocol wants more than svc's
 * JSON receipt (KNET: the one line `REDIRECT=<result page>`).
 */
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { AppError } from "../http/problem.js";
import { typed } from "../http/schema.js";
import type { NotificationsService } from "./notifications.service.js";

const RAW_TYPES = ["application/json", "application/x-www-form-urlencoded"];

export function notificationsRoutes(app: FastifyInstance, notifications: NotificationsService): void {
  app.register(async (plain) => {
    const scope = typed(plain);
    for (const type of RAW_TYPES) {
      scope.removeContentTypeParser(type);
      scope.addContentTypeParser(type, { parseAs: "buffer" }, (_request, body, done) => done(null, body));
    }
    scope.post(
      "/v1/gateways/:pg_code/notifications",
      {
        config: { auth: "none", gatewayForms: true },
        schema: {
          tags: ["Gateways"],
          summary: "Notifications from a payment gateway (signed with the gateway setting's secret)",
          params: Type.Object({ pg_code: Type.String({ minLength: 1, maxLength: 64 }) }),
        },
      },
      async (request, reply) => {
        if (!Buffer.isBuffer(request.body))
          throw new AppError(
            "unsupported_media_type",
            "Send the notification as application/json (or a form, for gateways that post forms).",
          );
        const contentType = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
        const answer = await notifications.receive(request.params.pg_code, {
          rawBody: request.body,
          headers: request.headers,
          contentType,
        });
        if (answer.reply) return reply.type(answer.reply.contentType).send(answer.reply.body);
        return {
          received: true,
          outcome: answer.outcome,
          ...(answer.discrepancyId ? { discrepancy_id: answer.discrepancyId } : {}),
        };
      },
    );
  });
}
