/**
 * Discrepancies: operations a gateway reported that break a money rule (see
 * notifications.service.ts). Merchants list them and close them with a note once they have
 * reconciled them with the gateway (docs/operations.md, "Discrepancies").
 */
import type { Db } from "../db/client.js";
import { AppError } from "../http/problem.js";
import { type DiscrepancyFilter, type DiscrepancyRow, discrepanciesRepo } from "./discrepancies.repo.js";

/** A discrepancy as the API and the dashboard show it. */
export function discrepancyView(row: DiscrepancyRow) {
  return {
    id: row.id,
    status: row.status,
    rule: row.rule,
    detail: row.detail,
    session_id: row.parent_session_id,
    pg_code: row.pg_code,
    gateway_operation_id: row.gateway_operation_id,
    notification_id: row.notification_id,
    operation: row.operation,
    amount: row.amount,
    currency_code: row.currency_code,
    pg_response: row.pg_response,
    created_at: new Date(row.created_at).toISOString(),
    resolution:
      row.status === "resolved"
        ? {
            note: row.resolution_note,
            resolved_by: row.resolved_by,
            resolved_at: row.resolved_at ? new Date(row.resolved_at).toISOString() : null,
          }
        : null,
  };
}

export type DiscrepancyView = ReturnType<typeof discrepancyView>;

export function createDiscrepanciesService(db: Db, deps: { now: () => Date }) {
  return {
    async list(merchantId: string, filter: DiscrepancyFilter): Promise<{ discrepancies: DiscrepancyView[] }> {
      return { discrepancies: (await discrepanciesRepo.list(db, merchantId, filter)).map(discrepancyView) };
    },
    async get(merchantId: string, id: string): Promise<DiscrepancyView> {
      const row = await discrepanciesRepo.find(db, merchantId, id);
      if (!row) throw new AppError("not_found", `No discrepancy ${id}.`);
      return discrepancyView(row);
    },
    /**
     * Closes an open discrepancy: the operator says, in `note`, what they did about it (e.g.
     * "refund reversed on the gateway"). Nothing is applied to the payment's totals.
     * @throws AppError 404 unknown, 409 already resolved
     */
    async resolve(merchantId: string, id: string, note: string, by: string): Promise<DiscrepancyView> {
      const row = await discrepanciesRepo.resolve(db, merchantId, id, { note, by, at: deps.now() });
      if (row) return discrepancyView(row);
      const existing = await discrepanciesRepo.find(db, merchantId, id);
      if (!existing) throw new AppError("not_found", `No discrepancy ${id}.`);
      throw new AppError("conflict", `The discrepancy ${id} is already resolved.`, { status: 409 });
    },
  };
}

export type DiscrepanciesService = ReturnType<typeof createDiscrepanciesService>;
