/**
 * Loads the reporter chunk on demand. The ESM build code-splits `./reporter.js`; the single-file
 * script build defines SVC_SCRIPT_BUILD and loads `svc-checkout-reporter.js` beside itself.
 */

import { type ApiContext, createReporter as createSharedReporter } from "@svc/checkout-core";

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

/** A report function bound to one checkout: the switch is @svc/checkout-core's, the chunk is this page's. */
export const createReporter = (ctx: ApiContext) => createSharedReporter(ctx, importReporter);
