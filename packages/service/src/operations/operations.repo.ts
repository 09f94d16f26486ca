/** SQL of operations (child transactions): reservations, finalisation, lookups by reference. */
import type { GatewayKind, Operation } from "@svc/protocol";
import type { TransactionRow } from "../checkout/checkout.repo.js";
import type { Queryable } from "../db/client.js";
import type { PgResponse } from "../gateways/adapter.js";

export interface InitiatorRecord {
  id: number;
  username: string;
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  phone?: string | null;
}

export type Via = "api" | "dashboard" | "gateway";

export interface OperationRow {
  session_id: string;
  parent_session_id: string;
  merchant_id: string;
  operation: Operation;
  amount_minor: number;
  currency_code: string;
  state: string;
  reference_number: string;
  source: "input" | "pg";
  via: Via;
  initiator: InitiatorRecord | null;
  pg_code: string;
  pg_response: PgResponse;
  gateway_operation_id: string | null;
  operated_at: Date | null;
  created_at: Date;
}

export type NewOperation = Omit<OperationRow, "created_at" | "operated_at"> & { operated_at?: Date | null };

export const operationsRepo = {
  /** The parent, locked for the rest of the transaction (serialises operations on one parent). */
  async lockParent(
    q: Queryable,
    merchantId: string,
    by: { sessionId?: string | undefined; orderNo?: string | undefined },
  ): Promise<TransactionRow | undefined> {
    const rows = by.sessionId
      ? await q.query<TransactionRow>(
          "select * from transactions where merchant_id = $1 and session_id = $2 for update",
          [merchantId, by.sessionId],
        )
      : await q.query<TransactionRow>(
          "select * from transactions where merchant_id = $1 and order_no = $2 for update",
          [merchantId, by.orderNo],
        );
    return rows[0];
  },
  /**
   * The parent locked, with its gateway setting's kind, in one round trip. The children are read
   * by a separate statement after this one: under READ COMMITTED a statement that waited for the
   * row lock still reads other tables with its old snapshot, so reading them here would miss a
   * concurrent operation that committed while we waited.
   */
  async lockParentForOperation(
    q: Queryable,
    merchantId: string,
    by: { sessionId?: string | undefined; orderNo?: string | undefined },
  ): Promise<{ parent: TransactionRow; gatewayKind: GatewayKind | null } | undefined> {
    const rows = await q.query<TransactionRow & { op_gateway_kind: GatewayKind | null }>(
      `select t.*, g.kind as op_gateway_kind
         from transactions t left join gateway_settings g on g.pg_code = t.pg_code
        where t.merchant_id = $1 and ${by.sessionId ? "t.session_id" : "t.order_no"} = $2
        for update of t`,
      [merchantId, by.sessionId ?? by.orderNo],
    );
    const row = rows[0];
    if (!row) return undefined;
    const { op_gateway_kind, ...parent } = row;
    return { parent: parent as TransactionRow, gatewayKind: op_gateway_kind };
  },
  async lockParentByPgReference(
    q: Queryable,
    pgCode: string,
    pgReference: string,
  ): Promise<TransactionRow | undefined> {
    const rows = await q.query<TransactionRow>(
      "select * from transactions where pg_code = $1 and pg_reference = $2 for update",
      [pgCode, pgReference],
    );
    return rows[0];
  },
  async parent(q: Queryable, sessionId: string): Promise<TransactionRow | undefined> {
    return (
      await q.query<TransactionRow>("select * from transactions where session_id = $1", [sessionId])
    )[0];
  },
  /** Inserts a child; returns undefined when its gateway_operation_id was already recorded. */
  async insert(q: Queryable, op: NewOperation): Promise<OperationRow | undefined> {
    const rows = await q.query<OperationRow>(
      `insert into operations (session_id, parent_session_id, merchant_id, operation, amount_minor, currency_code, state,
         reference_number, source, via, initiator, pg_code, pg_response, gateway_operation_id, operated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       on conflict do nothing returning *`,
      [
        op.session_id,
        op.parent_session_id,
        op.merchant_id,
        op.operation,
        op.amount_minor,
        op.currency_code,
        op.state,
        op.reference_number,
        op.source,
        op.via,
        op.initiator === null ? null : JSON.stringify(op.initiator),
        op.pg_code,
        JSON.stringify(op.pg_response),
        op.gateway_operation_id,
        op.operated_at ?? null,
      ],
    );
    return rows[0];
  },
  async finish(
    q: Queryable,
    sessionId: string,
    state: string,
    pgResponse: PgResponse,
    operatedAt: Date,
  ): Promise<OperationRow> {
    const rows = await q.query<OperationRow>(
      `update operations set state = $2, pg_response = $3, operated_at = $4, updated_at = now()
        where session_id = $1 returning *`,
      [sessionId, state, JSON.stringify(pgResponse), operatedAt],
    );
    return rows[0]!;
  },
  async deleteReservation(q: Queryable, sessionId: string): Promise<void> {
    await q.query("delete from operations where session_id = $1 and state like '%\\_pending'", [sessionId]);
  },
  async lockByReference(q: Queryable, pgCode: string, referenceNumber: string) {
    const rows = await q.query<OperationRow>(
      "select * from operations where pg_code = $1 and reference_number = $2 for update",
      [pgCode, referenceNumber],
    );
    return rows[0];
  },
};
