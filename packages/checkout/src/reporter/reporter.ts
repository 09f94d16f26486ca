/**
 * The error reporter: its own chunk, imported only after `GET /v1/sdk/config` said
 * `is_enabled: true`, so a merchant who disabled reporting never downloads it.
 */
import { type ApiContext, type ErrorReport, sendLimitedReport } from "@svc/checkout-core";

export const sendReport = (ctx: ApiContext, endpoint: string, report: ErrorReport): Promise<void> =>
  sendLimitedReport(ctx, endpoint, report, { user_agent: navigator.userAgent, page: location.origin });
