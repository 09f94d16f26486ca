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
    kind: row.kind,
    status: row.status,
    rule: row.rule,
    detail: row.detail,
    session_id: row.parent_session_id,
    operation_session_id: row.child_session_id,
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
            outcome: row.outcome,
            resolved_by: row.resolved_by,
            resolved_at: row.resolved_at ? new Date(row.resolved_at).toISOString() : null,
          }
        : null,
  };
}

export type DiscrepancyView = ReturnType<typeof discrepancyView>;

/** A discrepancy id this merchant has not, and where its ids are listed. */
const noDiscrepancy = (id: string) =>
  new AppError("not_found", `No discrepancy ${id}. GET /v1/discrepancies lists this merchant's.`);

export function createDiscrepanciesService(
  db: Db,
  deps: {
    now: () => Date;
    /**
     * Settles by hand an operation whose outcome was unknown (the operations domain, wired in
     * app.ts): `done` finishes it and sends its webhook, `not_done` removes it. Idempotent.
     */
    settleByHand: (
      merchantId: string,
      childSessionId: string,
      outcome: "done" | "not_done",
      by: string,
      note: string,
    ) => Promise<void>;
  },
) {
  return {
    async list(merchantId: string, filter: DiscrepancyFilter): Promise<{ discrepancies: DiscrepancyView[] }> {
      return { discrepancies: (await discrepanciesRepo.list(db, merchantId, filter)).map(discrepancyView) };
    },
    async get(merchantId: string, id: string): Promise<DiscrepancyView> {
      const row = await discrepanciesRepo.find(db, merchantId, id);
      if (!row) throw noDiscrepancy(id);
      return discrepancyView(row);
    },
    /**
     * Closes an open discrepancy: the operator says, in `note`, what they did about it (e.g.
     * "refund reversed on the gateway"). For a reported operation, nothing is applied to the
     * payment's totals. For an operation whose outcome was unknown, `outcome` says what the
     * operator found in the gateway's portal, and the operation is settled so: `done` (it counts,
     * its webhook is sent) or `not_done` (it is removed; a retry of its request gets a decline).
     * @throws AppError 404 unknown, 409 already resolved, 422 outcome missing or not applicable
     */
    async resolve(
      merchantId: string,
      id: string,
      note: string,
      by: string,
      outcome?: "done" | "not_done",
    ): Promise<DiscrepancyView> {
      const found = await discrepanciesRepo.find(db, merchantId, id);
      if (!found) throw noDiscrepancy(id);
      if (found.kind === "unknown_outcome" && found.status === "open") {
        if (!outcome)
          throw new AppError(
            "validation_failed",
            "Say what the gateway's portal shows: outcome done (the operation happened) or not_done.",
            { errors: { outcome: ["is required for an operation whose outcome was unknown"] } },
          );
        await deps.settleByHand(merchantId, found.child_session_id!, outcome, by, note);
      } else if (outcome && found.kind !== "unknown_outcome")
        throw new AppError(
          "validation_failed",
          "Only an operation whose outcome was unknown takes an outcome.",
          {
            errors: { outcome: ["applies only to unknown_outcome discrepancies"] },
          },
        );
      const row = await discrepanciesRepo.resolve(db, merchantId, id, { note, by, at: deps.now(), outcome });
      if (row) return discrepancyView(row);
      const existing = await discrepanciesRepo.find(db, merchantId, id);
      if (!existing) throw noDiscrepancy(id);
      throw new AppError("conflict", `The discrepancy ${id} is already resolved.`, { status: 409 });
    },
  };
}

export type DiscrepanciesService = ReturnType<typeof createDiscrepanciesService>;
