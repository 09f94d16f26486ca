/**
 * One HTTP attempt of one delivery: POST the stored body with fresh Standard Webhooks headers,
 * over a keep-alive undici Agent, within the timeout, without following redirects. Returns what
 * happened; never throws.
 */
import { signWebhook } from "@svc/webhooks/sign";
import { Agent, request } from "undici";
import { checkLiteralHost, guardedLookup } from "./ssrf.js";

/** Only this much of a response is kept on the attempt record. */
export const RESPONSE_KEEP_BYTES = 2048;
/** Sockets kept per destination origin: enough for thousands of deliveries per second. */
const CONNECTIONS_PER_ORIGIN = 64;
const KEEP_ALIVE_MS = 30_000;

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
  /** Seconds from a Retry-After header on 429/503. */
  retryAfterSeconds: number | null;
}

export function createDeliveryAgent(options: { allowPrivate: boolean }): Agent {
  return new Agent({
    keepAliveTimeout: KEEP_ALIVE_MS,
    connections: CONNECTIONS_PER_ORIGIN,
    // At connect time, after DNS resolution: rebinding cannot slip a private address past it.
    connect: options.allowPrivate ? {} : { lookup: guardedLookup as never },
  });
}

export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

function describe(error: unknown): string {
  let e = error as { message?: string; code?: string; cause?: unknown } | undefined;
  // undici wraps socket errors; the innermost says what went wrong (refused, blocked, …).
  while (e?.cause && typeof e.cause === "object") e = e.cause as typeof e;
  const message = e?.message ?? String(error);
  return e?.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}

export async function attemptDelivery(
  agent: Agent,
  input: {
    url: string;
    messageId: string;
    body: string;
    secrets: string[];
    timeoutMs: number;
    allowPrivate: boolean;
  },
): Promise<AttemptOutcome> {
  const started = performance.now();
  const done = (o: Omit<AttemptOutcome, "latencyMs">): AttemptOutcome => ({
    ...o,
    latencyMs: Math.round(performance.now() - started),
  });
  try {
    const url = new URL(input.url);
    if (!input.allowPrivate) {
      const refused = checkLiteralHost(url.hostname);
      if (refused) throw refused;
    }
    // webhook-timestamp is this attempt's time; webhook-id stays the message id across retries.
    const seconds = Math.floor(Date.now() / 1000);
    const signature = await signWebhook({
      id: input.messageId,
      timestamp: seconds,
      body: input.body,
      secrets: input.secrets,
    });
    const response = await request(url, {
      method: "POST",
      dispatcher: agent,
      body: input.body,
      headers: {
        "content-type": "application/json",
        "user-agent": "svc-webhooks/1",
        "webhook-id": input.messageId,
        "webhook-timestamp": String(seconds),
        "webhook-signature": signature,
      },
      // The timeout bounds the wait for the response headers and then for the body (undici's
      // own timers: cheaper than an AbortSignal per request at thousands of requests a second).
      headersTimeout: input.timeoutMs,
      bodyTimeout: input.timeoutMs,
    });
    let kept = "";
    let bytes = 0;
    for await (const chunk of response.body) {
      if (bytes < RESPONSE_KEEP_BYTES)
        kept += Buffer.from(chunk)
          .subarray(0, RESPONSE_KEEP_BYTES - bytes)
          .toString("utf8");
      bytes += (chunk as Buffer).length;
    }
    const code = response.statusCode;
    const ok = code >= 200 && code < 300;
    let error: string | null = null;
    if (code >= 300 && code < 400)
      error = `redirect ${code} to ${String(response.headers.location ?? "?")} not followed: configure the final URL`;
    else if (!ok) error = `HTTP ${code}`;
    return done({
      ok,
      statusCode: code,
      error,
      // PostgreSQL text cannot hold NUL; the rest of the first 2 KB is kept as received.
      responseBody: kept.replaceAll("\0", ""),
      retryAfterSeconds:
        code === 429 || code === 503 ? parseRetryAfter(response.headers["retry-after"]) : null,
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    const timedOut = code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT";
    return done({
      ok: false,
      statusCode: null,
      error: timedOut ? `timed out after ${input.timeoutMs} ms` : describe(error),
      responseBody: null,
      retryAfterSeconds: null,
    });
  }
}
