import {
  DEFAULT_MAX_BODY_BYTES,
  handleWebhook,
  type HandlerResponse,
  methodNotAllowed,
  tooLarge,
  type WebhookHandlerOptions,
} from "./handle.js";

export type { WebhookHandlerOptions } from "./handle.js";

/**
 * A `(Request) => Promise<Response>` webhook endpoint for fetch-style runtimes: Deno, Bun,
 * Cloudflare Workers, Vercel/Next.js route handlers, Hono. It reads the raw body itself and
 * answers 401 when the webhook is not authentic, 400 when its payload is invalid, 500 when your
 * handler throws (so the service retries) and 200 otherwise.
 *
 * @example
 * import { createWebhookHandler } from "@svc/webhooks/fetch";
 * export const POST = createWebhookHandler({
 *   secrets: process.env.WEBHOOK_SECRET!,
 *   onEvent: async (event) => { if (event.type === "payment") await markPaid(event.payload); },
 * });
 */
export function createWebhookHandler(
  options: WebhookHandlerOptions<Request>,
): (request: Request) => Promise<Response> {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return async (request) => {
    let result: HandlerResponse;
    if (request.method !== "POST") result = methodNotAllowed();
    else if (Number(request.headers.get("content-length") ?? 0) > limit) result = tooLarge(limit);
    else {
      const body = new Uint8Array(await request.arrayBuffer());
      result =
        body.length > limit ? tooLarge(limit) : await handleWebhook(body, request.headers, options, request);
    }
    return new Response(result.body, { status: result.status, headers: result.headers });
  };
}
