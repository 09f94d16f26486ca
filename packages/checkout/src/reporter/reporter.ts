/**
 * The error reporter: its own chunk, imported only after `GET /v1/sdk/config` said
 * `is_enabled: true`, so a merchant who disabled reporting never downloads it.
 */
import type { ApiContext } from "../api/http.js";
import { type ErrorReport, postError } from "../api/post-error.js";

const MAX_REPORTS_PER_PAGE = 20; // a broken page must not flood the service

let sent = 0;

export async function sendReport(ctx: ApiContext, endpoint: string, report: ErrorReport): Promise<void> {
  if (sent >= MAX_REPORTS_PER_PAGE) return;
  sent++;
  await postError(ctx, endpoint, {
    ...report,
    message: report.message.slice(0, 2000),
    details: { ...report.details, user_agent: navigator.userAgent, page: location.origin },
  }).catch(() => undefined);
}
