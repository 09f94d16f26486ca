import {
  DEFAULT_MAX_BODY_BYTES,
  handleWebhook,
  type HandlerResponse,
  methodNotAllowed,
  type WebhookHandlerOptions,
} from "./handle.js";

export type { WebhookHandlerOptions } from "./handle.js";

// The few Fastify shapes this plugin uses, so the package needs no fastify types at all.
interface FastifyRequestLike {
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}
interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  header(name: string, value: string): FastifyReplyLike;
  send(payload: string): unknown;
}
type RouteHandler = (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>;
interface FastifyInstanceLike {
  removeAllContentTypeParsers(): unknown;
  addContentTypeParser(
    contentType: string,
    opts: { parseAs: "buffer"; bodyLimit?: number },
    parser: (req: unknown, body: Uint8Array, done: (err: Error | null, body?: unknown) => void) => void,
  ): unknown;
  post(path: string, handler: RouteHandler): unknown;
  route(options: { method: string[]; url: string; handler: RouteHandler }): unknown;
}

/**
 * Options of {@link svcWebhooks}: the route path plus the shared adapter options.
 *
 * @example
 * const options: FastifyWebhookOptions = { path: "/webhooks/svc", secrets: process.env.WEBHOOK_SECRET!, onEvent: handle };
 * await app.register(svcWebhooks, options);
 */
export interface FastifyWebhookOptions extends WebhookHandlerOptions<FastifyRequestLike> {
  /** Route path of the endpoint, e.g. "/webhooks/svc". */
  path: string;
}

/**
 * A Fastify plugin that adds a `POST path` webhook route. Register it without fastify-plugin
 * (as below): its raw-body content-type parser then stays inside the plugin's own scope and
 * your other routes keep Fastify's JSON parsing. Answers 401 when the webhook is not authentic,
 * 400 when its payload is invalid, 500 when your handler throws and 200 otherwise; bodies over
 * `maxBodyBytes` get Fastify's 413.
 *
 * @example
 * import { svcWebhooks } from "@svc/webhooks/fastify";
 * await app.register(svcWebhooks, {
 *   path: "/webhooks/svc",
 *   secrets: process.env.WEBHOOK_SECRET!,
 *   onEvent: (event) => queue.push(event),
 * });
 */
export async function svcWebhooks(
  fastify: FastifyInstanceLike,
  options: FastifyWebhookOptions,
): Promise<void> {
  const bodyLimit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // Raw bytes for every content type, the built-in JSON parser included: the signature covers
  // the exact bytes, and it (not the content-type header) decides whether the body is trusted.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser("*", { parseAs: "buffer", bodyLimit }, (_req, body, done) => done(null, body));
  const send = (reply: FastifyReplyLike, result: HandlerResponse) => {
    reply.code(result.status);
    for (const [name, value] of Object.entries(result.headers)) reply.header(name, value);
    return reply.send(result.body);
  };
  fastify.post(options.path, async (request, reply) => {
    const body = request.body instanceof Uint8Array ? request.body : new Uint8Array(0);
    return send(reply, await handleWebhook(body, request.headers, options, request));
  });
  // Any other method gets 405, as with the other adapters (HEAD comes with GET).
  fastify.route({
    method: ["GET", "PUT", "PATCH", "DELETE"],
    url: options.path,
    handler: async (_request, reply) => send(reply, methodNotAllowed()),
  });
}
