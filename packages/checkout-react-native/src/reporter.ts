/**
 * The app's error reporter: imported by the view only after `GET /v1/sdk/config` said
 * `is_enabled: true` (@svc/checkout-core's switch), so an app whose merchant disabled reporting
 * never loads it.
 */
import { type ApiContext, type ErrorReport, sendLimitedReport } from "@svc/checkout-core";
import { Platform } from "react-native";

export const sendReport = (ctx: ApiContext, endpoint: string, report: ErrorReport): Promise<void> =>
  sendLimitedReport(ctx, endpoint, report, {
    platform: Platform.OS,
    platform_version: String(Platform.Version),
  });
