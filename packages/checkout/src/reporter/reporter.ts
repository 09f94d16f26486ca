/**
 * The error reporter: its own chunk, imported only after `GET /v1/sdk/config` said
 * `is_enabled: true`, so a merchant who disabled reporting never downloads it.
 */
import { type ApiContext, type ErrorReport, MAX_REPORTS, postError } from "@svc/checkout-core";

let sent = 0;

export async function sendReport(ctx: ApiContext, endpoint: string, report: ErrorReport): Promise<void> {
  if (sent >= MAX_REPORTS) return;
  sent++;
  await postError(ctx, endpoint, {
    ...report,
    message: report.message.slice(0, 2000),
    details: { ...report.details, user_agent: navigator.userAgent, page: location.origin },
  }).catch(() => undefined);
}
