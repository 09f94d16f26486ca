/**
 * `POST /v1/gateways/{pg_code}/notifications`: gateways tell svc about queued results, their own
 * dashboard's operations and redirect payments. The body is kept raw (a Buffer) because the
 * signature covers the exact bytes; re-serialised JSON would not verify.
 */
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { AppError } from "../http/problem.js";
import { typed } from "../http/schema.js";
import type { NotificationsService } from "./notifications.service.js";

export function notificationsRoutes(app: FastifyInstance, notifications: NotificationsService): void {
  app.register(async (plain) => {
    const scope = typed(plain);
    scope.removeContentTypeParser("application/json");
    scope.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) =>
      done(null, body),
    );
    scope.post(
      "/v1/gateways/:pg_code/notifications",
      {
        config: { auth: "none" },
        schema: {
          tags: ["Gateways"],
          summary: "Notifications from a payment gateway (signed with the gateway setting's secret)",
          params: Type.Object({ pg_code: Type.String({ minLength: 1, maxLength: 64 }) }),
        },
      },
      async (request) => {
        // Only a raw JSON body can be verified (a form body is parsed into fields before it arrives).
        if (!Buffer.isBuffer(request.body))
          throw new AppError("unsupported_media_type", "Send the notification as application/json.");
        const answer = await notifications.receive(request.params.pg_code, request.body, request.headers);
        return {
          received: true,
          outcome: answer.outcome,
          ...(answer.discrepancyId ? { discrepancy_id: answer.discrepancyId } : {}),
        };
      },
    );
  });
}
