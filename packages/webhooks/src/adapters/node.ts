import type { IncomingMessage, ServerResponse } from "node:http";
import {
  DEFAULT_MAX_BODY_BYTES,
  handleWebhook,
  type HandlerResponse,
  methodNotAllowed,
  tooLarge,
  type WebhookHandlerOptions,
} from "./handle.js";

import type { NodeWebhookRequest } from "./node-request.js";

export type { WebhookHandlerOptions } from "./handle.js";
export type { NodeWebhookRequest } from "./node-request.js";

const BODY_PARSED =
  "The request body was already parsed (e.g. by express.json()), so its raw bytes are lost and the " +
  "signature cannot be checked. Mount the webhook route before express.json(), or use " +
  "express.raw({ type: 'application/json' }) on it.";

function readBody(req: NodeWebhookRequest, limit: number): Promise<Uint8Array | "too_large"> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    req.on("data", (chunk: Uint8Array) => {
      size += chunk.length;
      if (size > limit) {
        resolve("too_large");
        req.resume(); // drain without keeping it, so the connection can answer
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * A Node `http` request handler that is also Express/Connect middleware. It reads the raw body
 * itself (or takes it from `express.raw()`), answers 401 when the webhook is not authentic,
 * 400 when its payload is invalid, 500 when your handler throws (so the service retries) and
 * 200 otherwise.
 *
 * @example
 * import { webhookMiddleware } from "@svc/webhooks/node";
 * app.post("/webhooks/svc", webhookMiddleware({
 *   secrets: process.env.WEBHOOK_SECRET!,
 *   onEvent: (event) => queue.push(event),
 * }));
 * // or: http.createServer(webhookMiddleware({ ... })).listen(3000);
 *
 * @typeParam R the request `onEvent` gets: by default Node's own (with `body` when a parser ran
 *   first); Express users may name theirs, e.g. `webhookMiddleware<express.Request>(…)`.
 */
export function webhookMiddleware<R extends NodeWebhookRequest = IncomingMessage & { body?: unknown }>(
  options: WebhookHandlerOptions<R>,
): (req: R, res: ServerResponse, next?: (err?: unknown) => void) => Promise<void> {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return async (req, res, next) => {
    const send = (result: HandlerResponse) => {
      res.statusCode = result.status;
      for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
      res.end(result.body);
    };
    const fail = (status: number, body: object) =>
      send({ status, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    try {
      if (req.method !== "POST") return send(methodNotAllowed());
      let body: Uint8Array | string | "too_large";
      if (typeof req.body === "string" || req.body instanceof Uint8Array) body = req.body;
      else if (req.body !== undefined && req.readableEnded) {
        return fail(500, { error: "invalid_body", message: BODY_PARSED });
      } else body = await readBody(req, limit);
      send(
        body === "too_large" || body.length > limit
          ? tooLarge(limit)
          : await handleWebhook(body, req.headers, options, req),
      );
    } catch (err) {
      if (next) next(err);
      else fail(500, { error: "internal_error" });
    }
  };
}
