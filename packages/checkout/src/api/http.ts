/** The one fetch wrapper: public key header, JSON both ways, RFC 9457 problems turned into ApiProblem. */

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
}

export async function request<T>(
  ctx: ApiContext,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(/^https?:/.test(path) ? path : ctx.baseUrl + path, {
      method,
      headers: {
        authorization: `Api-Key ${ctx.apiKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
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

export const sessionPath = (sessionId: string) => `/v1/checkout/${encodeURIComponent(sessionId)}`;
