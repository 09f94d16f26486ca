import type { Deduper } from "../dedupe.js";
import { isWebhookVerificationError } from "../errors.js";
import type { HeadersLike } from "../headers.js";
import { checkWebhookVersion } from "../sequence.js";
import type { RawBody } from "../body.js";
import type { WebhookEvent } from "../types.js";
import { type VerifyOptions, verifyWebhook } from "../verify.js";

/** 1 MiB: far above any svc payload, low enough that a flood cannot exhaust memory. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Options shared by every adapter. `C` is the framework's request context passed to `onEvent`.
 *
 * @example
 * const options: WebhookHandlerOptions<Request> = {
 *   secrets: [process.env.WEBHOOK_SECRET!, process.env.PREVIOUS_WEBHOOK_SECRET!],
 *   onEvent: (event) => queue.push(event),
 *   dedupe: createDeduper(),
 *   onError: (error) => console.warn(error),
 * };
 * export const POST = createWebhookHandler(options);
 */
export interface WebhookHandlerOptions<C> extends VerifyOptions {
  /** The endpoint's `whsec_…` secret, or several while rotating. */
  secrets: string | readonly string[];
  /** Your code. Throw to answer 500, so the service retries the delivery later. */
  onEvent: (event: WebhookEvent, context: C) => unknown;
  /**
   * Skip deliveries already handled (same `webhook-id`): they are answered 200. A retry of one
   * still being handled is answered 409 with `Retry-After`, so the service tries again later.
   */
  dedupe?: Deduper;
  /**
   * Larger bodies are answered 413, and no more of a body than this is held in memory: the fetch
   * adapter stops reading it (content-length or not), the node adapter discards the rest, Fastify
   * refuses it itself. Default 1 MiB.
   */
  maxBodyBytes?: number;
  /** Told about every refused delivery and every handler error, e.g. to log them. */
  onError?: (error: unknown, context: C) => void;
}

/**
 * Seconds a retry of a delivery still being handled is told to wait. The svc service retries a
 * 409 on its own schedule (it honours `Retry-After` on 429 and 503 only, and each of those uses
 * up one try of the schedule: a 409 keeps its growing delays); other senders may use the hint.
 */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 60;

/** A framework-neutral answer: status, headers and JSON body. */
export interface HandlerResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const json = (status: number, value: unknown, headers?: Record<string, string>): HandlerResponse => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(value),
});

/**
 * The whole receive path every adapter shares: verify, check the payload version, dedupe, run
 * the handler, answer.
 */
export async function handleWebhook<C>(
  rawBody: RawBody,
  headers: HeadersLike,
  options: WebhookHandlerOptions<C>,
  context: C,
): Promise<HandlerResponse> {
  let event: WebhookEvent;
  try {
    try {
      event = await verifyWebhook(rawBody, headers, options.secrets, options);
    } catch (err) {
      // invalid_payload comes after the signatures: an authentic payload this library cannot
      // read. When it is of a newer version, say that instead of listing its fields.
      if (isWebhookVerificationError(err) && err.code === "invalid_payload") checkWebhookVersion(headers);
      throw err;
    }
    checkWebhookVersion(headers);
  } catch (err) {
    options.onError?.(err, context);
    if (isWebhookVerificationError(err))
      return json(err.statusCode, { error: err.code, message: err.message });
    return json(500, { error: "internal_error" });
  }
  try {
    const run = () => options.onEvent(event, context);
    if (options.dedupe) {
      const { duplicate, inProgress } = await options.dedupe.once(event.id, run);
      // Never 2xx while the first delivery's handler runs: if it then fails, the id is forgotten
      // and only a retry can still deliver the message.
      if (inProgress) {
        return json(
          409,
          { error: "in_progress", message: "This webhook-id is still being handled: retry later." },
          { "retry-after": String(IN_PROGRESS_RETRY_AFTER_SECONDS) },
        );
      }
      if (duplicate) return json(200, { received: true, duplicate: true });
    } else {
      await run();
    }
  } catch (err) {
    options.onError?.(err, context);
    return json(500, { error: "handler_failed" });
  }
  return json(200, { received: true });
}

export function methodNotAllowed(): HandlerResponse {
  return json(405, { error: "method_not_allowed", message: "Webhooks are sent with POST." });
}

export function tooLarge(limit: number): HandlerResponse {
  return json(413, { error: "body_too_large", message: `Webhook bodies are limited to ${limit} bytes.` });
}
