/**
 * The app's error reporter: imported by the view only after `GET /v1/sdk/config` said
 * `is_enabled: true` (@svc/checkout-core's switch), so an app whose merchant disabled reporting
 * never loads it.
 */
import { type ApiContext, type ErrorReport, MAX_REPORTS, postError } from "@svc/checkout-core";
import { Platform } from "react-native";

let sent = 0;

export async function sendReport(ctx: ApiContext, endpoint: string, report: ErrorReport): Promise<void> {
  if (sent >= MAX_REPORTS) return;
  sent++;
  await postError(ctx, endpoint, {
    ...report,
    message: report.message.slice(0, 2000),
    details: { ...report.details, platform: Platform.OS, platform_version: String(Platform.Version) },
  }).catch(() => undefined);
}
