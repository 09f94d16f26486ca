/**
 * The error-reporting switch: `GET /v1/sdk/config` is read once per checkout and only when it says
 * `is_enabled: true` is the platform's reporter loaded (by the `load` it passes: a separate chunk
 * in the browser, a lazy module in an app) and called, so a merchant who disabled reporting never
 * downloads its code.
 */
import { getConfig } from "./api/get-config.js";
import type { ApiContext } from "./api/http.js";
import { type ErrorReport, postError } from "./api/post-error.js";

/** A platform's reporter module: sends one report to the configured endpoint. */
export interface ReporterModule {
  sendReport(ctx: ApiContext, endpoint: string, report: ErrorReport): Promise<void>;
}

/** A report function bound to one checkout. */
export function createReporter(
  ctx: ApiContext,
  load: () => Promise<ReporterModule>,
): (report: ErrorReport) => Promise<void> {
  let endpoint: Promise<string | undefined> | undefined;
  return async (report) => {
    endpoint ??= getConfig(ctx).then(
      (c) => (c.error_reporting?.is_enabled === true ? c.error_reporting.endpoint : undefined),
      () => undefined,
    );
    const to = await endpoint;
    if (to === undefined) return;
    const reporter = await load().catch(() => undefined);
    await reporter?.sendReport(ctx, to, report);
  };
}

/** At most this many reports per page or app run: a broken integration must not flood the service. */
const MAX_REPORTS = 20;

let sent = 0;

/**
 * Sends one report, best effort: at most {@link MAX_REPORTS} per run, the message cut to 2,000
 * characters, the platform's own details (browser page, app platform) added. A platform's
 * reporter module is this function with its details.
 */
export async function sendLimitedReport(
  ctx: ApiContext,
  endpoint: string,
  report: ErrorReport,
  platform: Record<string, string>,
): Promise<void> {
  if (sent >= MAX_REPORTS) return;
  sent++;
  await postError(ctx, endpoint, {
    ...report,
    message: report.message.slice(0, 2000),
    details: { ...report.details, ...platform },
  }).catch(() => undefined);
}
