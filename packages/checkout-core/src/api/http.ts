/**
 * The one fetch wrapper: public key header, JSON both ways, RFC 9457 problems turned into
 * ApiProblem, and retries of transient failures. A GET is always safe to send again; a POST is
 * sent again only with its Idempotency-Key, so the service answers the first request's outcome
 * (or finishes it) instead of paying twice.
 */

/**
 * A problem+json answer of the service (`code`, `detail`), or a network failure (`network_error`).
 * The view turns it into `errorCallback` data; it is exported for `instanceof` checks.
 * @example
 * if (error instanceof ApiProblem && error.code === "session_expired") createNewSession();
 */
export class ApiProblem extends Error {
  override readonly name = "ApiProblem";
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly status: number,
  ) {
    super(detail);
  }
}

export interface ApiContext {
  baseUrl: string;
  apiKey: string;
  /** Waits between retries (ms); the tests shorten it. Default: 0.5, 1, 2, 4, 8, 8, 8 s (about 30 s). */
  retryDelaysMs?: readonly number[];
}

export interface RequestOptions {
  /** Makes a POST safe to send again; every retry carries the same key. */
  idempotencyKey?: string;
}

const RETRY_DELAYS_MS = [500, 1000, 2000, 4000, 8000, 8000, 8000];
/** Worth asking again: nothing was decided, or the first request is still running. */
const TRANSIENT_STATUS = new Set([429, 503, 504]);
const TRANSIENT_CODES = new Set(["idempotency_key_in_use", "gateway_outcome_unknown", "network_error"]);

export const isTransient = (error: unknown) =>
  error instanceof ApiProblem && (TRANSIENT_CODES.has(error.code) || TRANSIENT_STATUS.has(error.status));

/** A fresh key per payment action: `crypto.randomUUID` where the page is a secure context. */
export function newIdempotencyKey(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === "function") return c.randomUUID();
  if (typeof c?.getRandomValues !== "function")
    throw new Error(
      "crypto.getRandomValues is missing (React Native: import react-native-get-random-values)",
    );
  const bytes = c.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function once<T>(
  ctx: ApiContext,
  method: "GET" | "POST",
  path: string,
  body: unknown,
  options: RequestOptions,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(/^https?:/.test(path) ? path : ctx.baseUrl + path, {
      method,
      headers: {
        authorization: `Api-Key ${ctx.apiKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new ApiProblem("network_error", `The payment service could not be reached (${String(error)}).`, 0);
  }
  const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    throw new ApiProblem(
      String(json.code ?? "http_error"),
      String(json.detail ?? json.title ?? `HTTP ${response.status}`),
      response.status,
    );
  }
  return json as T;
}

export async function request<T>(
  ctx: ApiContext,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<T> {
  const delays = ctx.retryDelaysMs ?? RETRY_DELAYS_MS;
  const retryable = method === "GET" || options.idempotencyKey !== undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      return await once<T>(ctx, method, path, body, options);
    } catch (error) {
      if (!retryable || !isTransient(error) || attempt >= delays.length) throw error;
      await sleep(delays[attempt]!);
    }
  }
}

export const sessionPath = (sessionId: string) => `/v1/checkout/${encodeURIComponent(sessionId)}`;
