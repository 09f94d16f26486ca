import { type ApiContext, request } from "./http.js";

export interface ErrorReport {
  message: string;
  session_id?: string;
  form_of_payment?: string;
  details?: Record<string, unknown>;
}

/** `POST /v1/sdk/errors` (or the endpoint the configuration names): only the reporter chunk imports this. */
export const postError = (ctx: ApiContext, endpoint: string | undefined, report: ErrorReport) =>
  request<{ stored: boolean }>(ctx, "POST", endpoint || "/v1/sdk/errors", report);
