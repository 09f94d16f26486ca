/**
 * One HTTP attempt of one delivery: POST the stored body with fresh Standard Webhooks headers,
 * over a keep-alive undici Agent, without following redirects. One deadline, the destination's
 * timeout, bounds the whole attempt — waiting for a socket, connecting, sending, the headers and
 * the whole body — so an attempt never outlives its lease (timeout + LEASE_MARGIN_SECONDS).
 * Returns what happened; never throws.
 */
import { PAYLOAD_VERSIONS, signWebhook, VERSION_HEADER } from "@svc/webhooks/sign";
import { Agent, type Dispatcher } from "undici";
import { parseRetryAfter } from "./retry-policy.js";
import { MAX_TIMEOUT_SECONDS } from "./settings.repo.js";
import { checkLiteralHost, createGuardedLookup, type ResolveAll } from "./ssrf.js";

/** Only this much of a response is kept on the attempt record. */
export const RESPONSE_KEEP_BYTES = 2048;
/** Sockets kept per destination origin: enough for thousands of deliveries per second. */
export const CONNECTIONS_PER_ORIGIN = 64;
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

/**
 * The keep-alive agent of a worker. With `allowPrivate` off, every connection goes through the
 * SSRF guard's lookup (names are resolved with `resolve`, the system resolver by default).
 */
export function createDeliveryAgent(options: { allowPrivate: boolean; resolve?: ResolveAll }): Agent {
  return new Agent({
    keepAliveTimeout: KEEP_ALIVE_MS,
    connections: CONNECTIONS_PER_ORIGIN,
    connect: {
      // A socket's connect may be shared by queued attempts with different timeouts: undici's
      // 10 s default would cut a longer one short. Each attempt's own deadline ends its wait.
      timeout: MAX_TIMEOUT_SECONDS * 1000,
      // At connect time, after DNS resolution: rebinding cannot slip a private address past it.
      ...(options.allowPrivate ? {} : { lookup: createGuardedLookup(options.resolve) as never }),
    },
  });
}

function describe(error: unknown): string {
  let e = error as { message?: string; code?: string; cause?: unknown } | undefined;
  // undici wraps socket errors; the innermost says what went wrong (refused, blocked, …).
  while (e?.cause && typeof e.cause === "object") e = e.cause as typeof e;
  const message = e?.message ?? String(error);
  return e?.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}

/** Origin, path and literal-host check of a destination URL, parsed once per URL. */
interface Target {
  origin: string;
  path: string;
  refused: Error | undefined;
}
const targets = new Map<string, Target>();
const TARGET_CACHE_SIZE = 1024;

function target(url: string, allowPrivate: boolean): Target {
  const key = allowPrivate ? `+${url}` : url;
  let t = targets.get(key);
  if (!t) {
    const parsed = new URL(url);
    t = {
      origin: parsed.origin,
      path: `${parsed.pathname}${parsed.search}`,
      refused: allowPrivate ? undefined : checkLiteralHost(parsed.hostname),
    };
    if (targets.size >= TARGET_CACHE_SIZE) targets.clear();
    targets.set(key, t);
  }
  return t;
}

/** A raw header's value from undici's flat [name, value, name, value, …] list. */
function header(raw: Buffer[] | null, name: string): string | undefined {
  if (!raw) return undefined;
  for (let i = 0; i + 1 < raw.length; i += 2)
    if (raw[i]!.length === name.length && raw[i]!.toString("latin1").toLowerCase() === name)
      return raw[i + 1]!.toString("latin1");
  return undefined;
}

/**
 * Reads one response through undici's low-level dispatch callbacks: no stream, async iterator or
 * end-of-stream machinery per request (with `request()` those cost as much CPU as the rest of an
 * attempt). A class, so an attempt allocates one object rather than a set of closures.
 *
 * The deadline is one timer per attempt, set before anything else happens. When it fires the
 * attempt is over: it resolves as a timeout at once and its request is aborted — now if it has a
 * socket, or as soon as undici hands it one (onConnect comes before a byte is written). Callbacks
 * after that are ignored.
 */
class AttemptHandler implements Dispatcher.DispatchHandler {
  private statusCode = 0;
  private rawHeaders: Buffer[] | null = null;
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  /** The outcome has been resolved (completed, failed or timed out). */
  finished = false;
  /** undici's abort of this request, once it is on a socket. */
  private abort: ((error?: Error) => void) | undefined;
  private readonly deadline: NodeJS.Timeout;

  constructor(
    private readonly started: number,
    private readonly timeoutMs: number,
    private readonly resolve: (outcome: AttemptOutcome) => void,
  ) {
    this.deadline = setTimeout(deadlinePassed, timeoutMs, this);
  }

  onConnect(abort: (error?: Error) => void): void {
    if (this.finished) abort(new Error(`timed out after ${this.timeoutMs} ms`));
    else this.abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    // 1xx informational responses come first; the final status is the last one.
    this.statusCode = statusCode;
    this.rawHeaders = rawHeaders;
    return true;
  }

  onData(chunk: Buffer): boolean {
    // Only the first 2 KB is kept; the rest is read and dropped so the socket is reused.
    if (this.keptBytes < RESPONSE_KEEP_BYTES) {
      const part = chunk.subarray(0, RESPONSE_KEEP_BYTES - this.keptBytes);
      this.kept.push(part);
      this.keptBytes += part.length;
    }
    return true;
  }

  onComplete(): void {
    if (this.finished) return;
    const code = this.statusCode;
    const ok = code >= 200 && code < 300;
    let error: string | null = null;
    if (code >= 300 && code < 400)
      error = `redirect ${code} to ${header(this.rawHeaders, "location") ?? "?"} not followed: configure the final URL`;
    else if (!ok) error = `HTTP ${code}`;
    const kept = this.kept.length === 1 ? this.kept[0]! : Buffer.concat(this.kept);
    this.finish({
      ok,
      statusCode: code,
      latencyMs: Math.round(performance.now() - this.started),
      error,
      // PostgreSQL text cannot hold NUL; the rest of the first 2 KB is kept as received.
      responseBody: kept.toString("utf8").replaceAll("\0", ""),
      retryAfterSeconds:
        code === 429 || code === 503 ? parseRetryAfter(header(this.rawHeaders, "retry-after")) : null,
    });
  }

  onError(error: Error): void {
    this.fail(error);
  }

  fail(error: unknown): void {
    if (this.finished) return;
    this.finish(this.failure(describe(error)));
  }

  /** The deadline passed: the attempt is a timeout, whatever stage it reached. */
  timedOut(): void {
    if (this.finished) return;
    const message = `timed out after ${this.timeoutMs} ms`;
    this.finish(this.failure(message));
    // Synchronously calls onError (ignored now) and destroys the socket mid-response.
    this.abort?.(new Error(message));
  }

  private failure(error: string): AttemptOutcome {
    return {
      ok: false,
      statusCode: null,
      latencyMs: Math.round(performance.now() - this.started),
      error,
      responseBody: null,
      retryAfterSeconds: null,
    };
  }

  private finish(outcome: AttemptOutcome): void {
    this.finished = true;
    clearTimeout(this.deadline);
    this.resolve(outcome);
  }
}

/** The deadline timer's callback: a module function with the handler as argument, no closure per attempt. */
function deadlinePassed(handler: AttemptHandler): void {
  handler.timedOut();
}

export interface AttemptInput {
  url: string;
  messageId: string;
  /** `svc-event-type`: what happened (`operation`, `payment.paid`, …). */
  eventType: string;
  /** `svc-sequence`: this message's number among the parent's messages to this URL (1, 2, 3…). */
  sequence: number;
  /** `svc-webhook-version`: the version of the body's shape (the first one if not given). */
  payloadVersion?: string | undefined;
  /** The endpoint's custom headers (validated when saved: none of the headers below). */
  headers?: Record<string, string> | null | undefined;
  body: string;
  secrets: readonly string[];
  timeoutMs: number;
  allowPrivate: boolean;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) out[name.toLowerCase()] = headers[name]!;
  return out;
}

async function send(agent: Agent, input: AttemptInput, handler: AttemptHandler): Promise<void> {
  const to = target(input.url, input.allowPrivate);
  if (to.refused) throw to.refused;
  // webhook-timestamp is this attempt's time; webhook-id stays the message id across retries.
  const seconds = Math.floor(Date.now() / 1000);
  const signature = await signWebhook({
    id: input.messageId,
    timestamp: seconds,
    body: input.body,
    secrets: input.secrets,
  });
  if (handler.finished) return; // the deadline passed while signing
  agent.dispatch(
    {
      origin: to.origin,
      path: to.path,
      method: "POST",
      body: input.body,
      headers: {
        // The endpoint's own first (names in lower case): svc's headers below always win.
        ...(input.headers ? lowerCased(input.headers) : undefined),
        "content-type": "application/json",
        "user-agent": "svc-webhooks/1",
        "webhook-id": input.messageId,
        "webhook-timestamp": String(seconds),
        "webhook-signature": signature,
        "svc-event-type": input.eventType,
        "svc-sequence": String(input.sequence),
        [VERSION_HEADER]: input.payloadVersion ?? PAYLOAD_VERSIONS[0],
      },
      // undici's own timers are off: they bound only the wait for the headers and each gap
      // between body chunks, so a receiver trickling its body kept an attempt open past its
      // lease. The handler's deadline bounds the whole attempt instead.
      headersTimeout: 0,
      bodyTimeout: 0,
    },
    handler,
  );
}

/** One POST of one delivery; resolves with what happened, never rejects. */
export function attemptDelivery(agent: Agent, input: AttemptInput): Promise<AttemptOutcome> {
  return new Promise<AttemptOutcome>((resolve) => {
    const handler = new AttemptHandler(performance.now(), input.timeoutMs, resolve);
    send(agent, input, handler).catch((error: unknown) => handler.fail(error));
  });
}
