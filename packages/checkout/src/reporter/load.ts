/**
 * Loads the reporter chunk on demand. The ESM build code-splits `./reporter.js`; the single-file
 * script build defines SVC_SCRIPT_BUILD and loads `svc-checkout-reporter.js` beside itself.
 */

import { getConfig } from "../api/get-config.js";
import type { ApiContext } from "../api/http.js";
import type { ErrorReport } from "../api/post-error.js";

declare const SVC_SCRIPT_BUILD: boolean | undefined;

type ReporterModule = typeof import("./reporter.js");

let scriptReporterUrl: string | undefined;

/** Set by the script build from its own URL. */
export function setReporterUrl(url: string): void {
  scriptReporterUrl = url;
}

function importReporter(): Promise<ReporterModule> {
  if (typeof SVC_SCRIPT_BUILD !== "undefined" && SVC_SCRIPT_BUILD)
    return import(/* @vite-ignore */ scriptReporterUrl!) as Promise<ReporterModule>;
  return import("./reporter.js");
}

/**
 * A report function bound to one checkout: reads the configuration once and, only when
 * reporting is enabled, imports the reporter and sends.
 */
export function createReporter(ctx: ApiContext): (report: ErrorReport) => Promise<void> {
  let endpoint: Promise<string | undefined> | undefined;
  return async (report) => {
    endpoint ??= getConfig(ctx).then(
      (c) => (c.error_reporting?.is_enabled === true ? c.error_reporting.endpoint : undefined),
      () => undefined,
    );
    const to = await endpoint;
    if (to === undefined) return;
    const reporter = await importReporter().catch(() => undefined);
    await reporter?.sendReport(ctx, to, report);
  };
}
