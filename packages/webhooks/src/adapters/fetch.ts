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
 * The body's bytes, or undefined as soon as they pass `limit`: the rest is not read (the stream
 * is cancelled), whether or not the request said its length.
 */
async function readBody(request: Request, limit: number): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      void reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}

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
    // A declared length over the limit is refused before reading anything.
    else if (Number(request.headers.get("content-length") ?? 0) > limit) result = tooLarge(limit);
    else {
      const body = await readBody(request, limit);
      result = body ? await handleWebhook(body, request.headers, options, request) : tooLarge(limit);
    }
    return new Response(result.body, { status: result.status, headers: result.headers });
  };
}
