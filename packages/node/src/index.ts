/**
 * `@svc/node`: the typed server client of svc. Every operation of the service's OpenAPI document
 * is a method named by its operationId, typed from the document by openapi-typescript
 * (`schema.ts`, generated); the hand-written part is only what a payment client must add:
 *
 * - an `Idempotency-Key` on every call that moves money (the operations the document marks), made
 *   once per call and reused by its retries, so a retry never refunds twice;
 * - retries with exponential backoff and jitter on network errors, 5xx and 429 (honouring
 *   `Retry-After`), for reads and idempotency-keyed calls only: another write that failed midway
 *   may have been applied, so it is not repeated blindly;
 * - {@link SvcError} for every refusal, carrying the problem's `code`, `status`, `detail` and the
 *   `requestId` to quote to support;
 * - webhook verification, re-exported from `@svc/webhooks`.
 *
 * @example
 * const svc = createSvc({ apiUrl: "http://localhost:8080", apiKey: process.env.SVC_API_KEY! });
 * const op = await svc.createOperation({ body: { operation: "refund", session_id, amount: "1.000" } });
 */
import createClient, { type Client, type MaybeOptionalInit } from "openapi-fetch";
import { OPERATIONS, type paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";
export { OPERATIONS } from "./schema.js";
export {
  isWebhookVerificationError,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
} from "@svc/webhooks";

export interface SvcOptions {
  /** The service's base URL, e.g. https://pay.example.com or http://localhost:8080 (svc dev). */
  apiUrl: string;
  /** A private key (`sk_…`); the SDK's calls also take a public key. */
  apiKey: string;
  /** Retries after the first try, for reads and idempotency-keyed calls. Default 2. */
  maxRetries?: number;
  /** First backoff; each retry doubles it, with ±50 % jitter. Default 500 ms. */
  retryDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown. Default 30 s. */
  maxRetryAfterMs?: number;
  /** Per attempt. Default 30 s. */
  timeoutMs?: number;
  /** Instead of the global fetch (tests, proxies). */
  fetch?: typeof globalThis.fetch;
}

/** Any refusal or failure of a call: the service's problem+json, or why there was none. */
export class SvcError extends Error {
  override readonly name = "SvcError";
  constructor(
    /** The HTTP status; 0 when the service was not reached. */
    readonly status: number,
    /** The problem's stable code (docs/api.md), e.g. `operation_declined`, or `network_error`. */
    readonly code: string,
    /** What went wrong this time and what to do: the problem's `detail`. */
    readonly detail: string,
    /** The service's `x-request-id`, to quote to support. */
    readonly requestId: string | undefined,
    /** The whole problem document (`errors` names each invalid field on a 422). */
    readonly problem: Record<string, unknown> | undefined,
  ) {
    super(`${code} (${status}): ${detail}${requestId ? ` [request ${requestId}]` : ""}`);
  }
}

type Operations = typeof OPERATIONS;
type OperationId = keyof Operations;
type PathOf<Id extends OperationId> = Operations[Id]["path"];
type MethodOf<Id extends OperationId> = Operations[Id]["method"];
type OperationOf<Id extends OperationId> = paths[PathOf<Id>][MethodOf<Id>];
type InitOf<Id extends OperationId> = MaybeOptionalInit<paths[PathOf<Id>], MethodOf<Id>>;

type JsonOf<R> = R extends { content: { "application/json": infer J } } ? J : unknown;
/** The JSON of an operation's success answers (unknown where the document does not describe it). */
export type ResponseOf<Id extends OperationId> =
  OperationOf<Id> extends { responses: infer R }
    ? { [S in keyof R]: S extends 200 | 201 | 202 | 204 ? JsonOf<R[S]> : never }[keyof R]
    : unknown;

/** One method per operationId: the init is openapi-fetch's (`params.path`, `params.query`, `body`, `headers`). */
export type SvcMethods = {
  [Id in OperationId]: undefined extends InitOf<Id>
    ? (init?: InitOf<Id>) => Promise<ResponseOf<Id>>
    : (init: InitOf<Id>) => Promise<ResponseOf<Id>>;
};

export type Svc = SvcMethods & {
  /** The generated client underneath, for anything the methods do not cover (e.g. the raw Response). */
  readonly api: Client<paths>;
};

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);

export function createSvc(options: SvcOptions): Svc {
  const maxRetries = options.maxRetries ?? 2;
  const baseDelay = options.retryDelayMs ?? 500;
  const maxRetryAfter = options.maxRetryAfterMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const baseFetch = options.fetch ?? globalThis.fetch;

  // Retries live in fetch, under openapi-fetch: each attempt is a clone of the one request, so
  // the Idempotency-Key made for a call is the same on every attempt.
  const retryingFetch = async (input: Request): Promise<Response> => {
    const retryable =
      input.method === "GET" || input.method === "HEAD" || input.headers.has("idempotency-key");
    for (let attempt = 0; ; attempt++) {
      const last = !retryable || attempt >= maxRetries;
      let response: Response;
      try {
        response = await baseFetch(input.clone(), { signal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        if (last) throw error;
        await sleep(backoff(attempt));
        continue;
      }
      if (last || !RETRYABLE_STATUS.has(response.status)) return response;
      const after = retryAfterMs(response.headers.get("retry-after"));
      if (after !== undefined && after > maxRetryAfter) return response;
      await response.body?.cancel();
      await sleep(after ?? backoff(attempt));
    }
  };
  const backoff = (attempt: number) => baseDelay * 2 ** attempt * (0.5 + Math.random());

  const api = createClient<paths>({
    baseUrl: options.apiUrl.replace(/\/$/, ""),
    fetch: retryingFetch,
    headers: { authorization: `Api-Key ${options.apiKey}` },
  });

  const call = async (id: OperationId, init: Record<string, unknown> = {}) => {
    const { method, path, idempotent } = OPERATIONS[id];
    const headers = new Headers(init.headers as HeadersInit | undefined);
    if (idempotent && !headers.has("idempotency-key")) headers.set("idempotency-key", crypto.randomUUID());
    let result: { data?: unknown; error?: unknown; response: Response };
    try {
      result = await (api.request as (m: string, p: string, i: unknown) => Promise<typeof result>)(
        method.toUpperCase(),
        path,
        { ...init, headers },
      );
    } catch (error) {
      throw new SvcError(
        0,
        "network_error",
        `Could not reach ${options.apiUrl}: ${error instanceof Error ? error.message : String(error)}`,
        undefined,
        undefined,
      );
    }
    const { response } = result;
    if (response.ok) return result.data;
    const problem =
      result.error && typeof result.error === "object"
        ? (result.error as Record<string, unknown>)
        : undefined;
    throw new SvcError(
      response.status,
      typeof problem?.code === "string" ? problem.code : `http_${response.status}`,
      typeof problem?.detail === "string" ? problem.detail : String(result.error ?? response.statusText),
      response.headers.get("x-request-id") ?? undefined,
      problem,
    );
  };

  const methods = Object.fromEntries(
    (Object.keys(OPERATIONS) as OperationId[]).map((id) => [
      id,
      (init?: Record<string, unknown>) => call(id, init),
    ]),
  ) as unknown as SvcMethods;
  return Object.assign(methods, { api });
}

function retryAfterMs(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
