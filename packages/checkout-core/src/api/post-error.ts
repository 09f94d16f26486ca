import type { ApiContext } from "./http.js";

export interface ErrorReport {
  message: string;
  session_id?: string;
  form_of_payment?: string;
  details?: Record<string, unknown>;
}

/**
 * `POST /v1/sdk/errors` (or the endpoint the configuration names): only the reporter chunk
 * imports this. A report is best effort: one plain request, no retries (they would keep the
 * shared fetch wrapper's retry code in the reporter chunk for nothing).
 */
export async function postError(
  ctx: ApiContext,
  endpoint: string | undefined,
  report: ErrorReport,
): Promise<void> {
  const url = endpoint || `${ctx.baseUrl}/v1/sdk/errors`;
  await fetch(/^https?:/.test(url) ? url : ctx.baseUrl + url, {
    method: "POST",
    headers: { authorization: `Api-Key ${ctx.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(report),
  });
}
