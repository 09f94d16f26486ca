/**
 * SQL of gateway discrepancies: what svc's books and a gateway's disagree on, for an operator —
 * operations a gateway reported that break a money rule (`gateway_operation`), operations svc
 * sent whose outcome is unknown at a gateway that cannot be asked (`unknown_outcome`), payments
 * a gateway took after svc closed their attempt (`late_payment`).
 */
import { newId } from "@svc/protocol";
import type { Queryable } from "../db/client.js";
import type { PgResponse } from "./adapter.js";
import { jsonParam } from "../db/json.js";

export type DiscrepancyKind = "gateway_operation" | "unknown_outcome" | "late_payment";

export interface DiscrepancyRow {
  id: string;
  kind: DiscrepancyKind;
  /** unknown_outcome: the operation (child) svc sent. */
  child_session_id: string | null;
  merchant_id: string;
  parent_session_id: string;
  pg_code: string;
  gateway_operation_id: string;
  notification_id: string | null;
  operation: string;
  amount: string;
  currency_code: string;
  rule: string;
  detail: string;
  pg_response: PgResponse;
  status: "open" | "resolved";
  resolution_note: string | null;
  resolved_by: string | null;
  resolved_at: Date | null;
  /** unknown_outcome, once settled: what the operator found at the gateway. */
  outcome: "done" | "not_done" | null;
  created_at: Date;
}

export type NewDiscrepancy = Partial<Pick<DiscrepancyRow, "kind" | "child_session_id">> &
  Pick<
    DiscrepancyRow,
    | "merchant_id"
    | "parent_session_id"
    | "pg_code"
    | "gateway_operation_id"
    | "notification_id"
    | "operation"
    | "amount"
    | "currency_code"
    | "rule"
    | "detail"
    | "pg_response"
  >;

export interface DiscrepancyFilter {
  status?: "open" | "resolved" | undefined;
  sessionId?: string | undefined;
  limit: number;
}

export const discrepanciesRepo = {
  /**
   * Records a discrepancy once per gateway operation. Returns it and whether it is new (false:
   * the same gateway operation was reported before, under another notification id).
   */
  async record(q: Queryable, d: NewDiscrepancy): Promise<{ row: DiscrepancyRow; created: boolean }> {
    const inserted = await q.query<DiscrepancyRow>(
      `insert into gateway_discrepancies (id, merchant_id, parent_session_id, pg_code, gateway_operation_id,
         notification_id, operation, amount, currency_code, rule, detail, pg_response, kind, child_session_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       on conflict (pg_code, gateway_operation_id) do nothing returning *`,
      [
        newId("dsc"),
        d.merchant_id,
        d.parent_session_id,
        d.pg_code,
        d.gateway_operation_id,
        d.notification_id,
        d.operation,
        d.amount,
        d.currency_code,
        d.rule,
        d.detail,
        jsonParam(d.pg_response),
        d.kind ?? "gateway_operation",
        d.child_session_id ?? null,
      ],
    );
    if (inserted[0]) return { row: inserted[0], created: true };
    const existing = await q.query<DiscrepancyRow>(
      "select * from gateway_discrepancies where pg_code = $1 and gateway_operation_id = $2",
      [d.pg_code, d.gateway_operation_id],
    );
    return { row: existing[0]!, created: false };
  },
  async list(q: Queryable, merchantId: string, filter: DiscrepancyFilter): Promise<DiscrepancyRow[]> {
    return q.query<DiscrepancyRow>(
      `select * from gateway_discrepancies
        where merchant_id = $1 and ($2::text is null or status = $2) and ($3::text is null or parent_session_id = $3)
        order by created_at desc, id desc limit $4`,
      [merchantId, filter.status ?? null, filter.sessionId ?? null, filter.limit],
    );
  },
  async find(q: Queryable, merchantId: string, id: string): Promise<DiscrepancyRow | undefined> {
    return (
      await q.query<DiscrepancyRow>(
        "select * from gateway_discrepancies where merchant_id = $1 and id = $2",
        [merchantId, id],
      )
    )[0];
  },
  /** Closes an open discrepancy with the operator's note; undefined when it is not open (or not found). */
  async resolve(
    q: Queryable,
    merchantId: string,
    id: string,
    resolution: { note: string; by: string; at: Date; outcome?: "done" | "not_done" | undefined },
  ): Promise<DiscrepancyRow | undefined> {
    return (
      await q.query<DiscrepancyRow>(
        `update gateway_discrepancies set status = 'resolved', resolution_note = $3, resolved_by = $4, resolved_at = $5,
                outcome = $6
          where merchant_id = $1 and id = $2 and status = 'open' returning *`,
        [merchantId, id, resolution.note, resolution.by, resolution.at, resolution.outcome ?? null],
      )
    )[0];
  },
  /** Counts for /metrics, across every merchant: recorded per rule, and how many are open. */
  async counts(q: Queryable): Promise<{ rule: string; total: number; open: number }[]> {
    return q.query<{ rule: string; total: number; open: number }>(
      `select rule, count(*)::int8 as total, count(*) filter (where status = 'open')::int8 as open
         from gateway_discrepancies group by rule order by rule`,
    );
  },
};
