/**
 * The CLI's HTTP client for the service's API: JSON in and out, the key in `Authorization`, and a
 * refusal turned into an {@link ApiError} carrying the problem's words (status, code, detail, the
 * request id to quote).
 */
import type { Connection } from "./connection.js";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly detail: string,
    readonly requestId: string | undefined,
  ) {
    super(`${status}${code ? ` ${code}` : ""}: ${detail}${requestId ? ` (request ${requestId})` : ""}`);
    this.name = "ApiError";
  }
}

export interface Api {
  request<T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: { body?: unknown; key?: string; headers?: Record<string, string> },
  ): Promise<T>;
  /** An open response (for the event stream), after the same checks. */
  open(path: string, signal: AbortSignal): Promise<Response>;
}

export function createApi(connection: Pick<Connection, "apiUrl" | "apiKey">): Api {
  const call = async (method: string, path: string, init: RequestInit, key = connection.apiKey) => {
    const url = `${connection.apiUrl}${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        ...init,
        method,
        headers: { authorization: `Api-Key ${key}`, ...(init.headers as Record<string, string>) },
      });
    } catch (error) {
      throw new ApiError(0, "unreachable", `cannot reach ${connection.apiUrl}: ${reason(error)}`, undefined);
    }
    if (response.ok) return response;
    const text = await response.text();
    let problem: Record<string, unknown> = {};
    try {
      problem = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON: keep the text
    }
    throw new ApiError(
      response.status,
      typeof problem.code === "string" ? problem.code : undefined,
      String(problem.detail ?? problem.title ?? (text.slice(0, 300) || response.statusText)),
      response.headers.get("x-request-id") ??
        (typeof problem.request_id === "string" ? problem.request_id : undefined),
    );
  };
  return {
    async request<T>(
      method: string,
      path: string,
      options: { body?: unknown; key?: string; headers?: Record<string, string> } = {},
    ) {
      const response = await call(
        method,
        path,
        {
          headers: {
            ...(options.body === undefined ? {} : { "content-type": "application/json" }),
            ...options.headers,
          },
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
        },
        options.key,
      );
      const text = await response.text();
      return (text ? JSON.parse(text) : {}) as T;
    },
    open: (path, signal) => call("GET", path, { headers: { accept: "text/event-stream" }, signal }),
  };
}

export function reason(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}
