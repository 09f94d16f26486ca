/** The SDK's studio configuration (error reporting on/off) and its error reports. */
import { newId } from "@svc/protocol";
import type { Db } from "../db/client.js";

export interface SdkErrorReport {
  message: string;
  session_id?: string;
  form_of_payment?: string;
  details?: Record<string, unknown>;
}

/**
 * What is kept of a merchant's reports: the newest {@link REPORTS_KEPT} (`kept`), none older
 * than {@link REPORT_DAYS} days. The public key that sends them is public, so a flood of reports
 * replaces older ones rather than growing the table without bound; the dashboard shows the
 * newest 100.
 */
export const REPORTS_KEPT = 1000;
export const REPORT_DAYS = 30;

export function createSdkService(db: Db, publicUrl: string, kept = REPORTS_KEPT) {
  return {
    async config(merchantId: string) {
      const rows = await db.query<{ error_reporting_enabled: boolean }>(
        "select error_reporting_enabled from merchants where id = $1",
        [merchantId],
      );
      return {
        error_reporting: {
          is_enabled: rows[0]?.error_reporting_enabled ?? false,
          endpoint: `${publicUrl}/v1/sdk/errors`,
        },
      };
    },
    async setErrorReporting(merchantId: string, enabled: boolean): Promise<void> {
      await db.query("update merchants set error_reporting_enabled = $2 where id = $1", [
        merchantId,
        enabled,
      ]);
    },
    /** Stores a report; returns false (and stores nothing) while reporting is disabled. */
    async report(
      merchantId: string,
      report: SdkErrorReport,
      userAgent: string | undefined,
    ): Promise<{ id: string } | undefined> {
      const rows = await db.query<{ id: string }>(
        `insert into sdk_error_reports (id, merchant_id, session_id, message, form_of_payment, details, user_agent)
         select $1, $2, $3, $4, $5, $6, $7 from merchants where id = $2 and error_reporting_enabled returning id`,
        [
          newId("err"),
          merchantId,
          report.session_id ?? null,
          report.message,
          report.form_of_payment ?? null,
          JSON.stringify(report.details ?? {}),
          userAgent?.slice(0, 500) ?? null,
        ],
      );
      // Only after a report was stored, through the merchant's (merchant_id, created_at) index:
      // at most REPORTS_KEPT entries read, a few rows deleted.
      if (rows[0])
        await db.query(
          `delete from sdk_error_reports
            where merchant_id = $1
              and created_at < greatest(
                    now() - make_interval(days => $3),
                    (select created_at from sdk_error_reports where merchant_id = $1
                      order by created_at desc offset $2 - 1 limit 1))`,
          [merchantId, kept, REPORT_DAYS],
        );
      return rows[0];
    },
    async list(merchantId: string, limit = 100) {
      return db.query(
        "select * from sdk_error_reports where merchant_id = $1 order by created_at desc limit $2",
        [merchantId, limit],
      );
    },
  };
}

export type SdkService = ReturnType<typeof createSdkService>;
