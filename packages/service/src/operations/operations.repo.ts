/** SQL of operations (child transactions): reservations, finalisation, lookups by reference. */
import type { GatewayKind, Operation } from "@svc/protocol";
import type { TransactionRow } from "../checkout/checkout.repo.js";
import type { Queryable } from "../db/client.js";
import type { PgResponse } from "../gateways/adapter.js";
import {
  ROUTING_COLUMNS,
  type Routing,
  type RoutingColumns,
  routingFrom,
} from "../webhooks/settings.repo.js";

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

/** What the totals need of a parent's children: per operation and state, the sum and the count. */
export interface ChildSum {
  operation: Operation;
  state: string;
  amount_minor: number;
  count: number;
}

// Children grouped by operation and state: a handful of rows however many children a parent has.
const CHILD_SUMS = `select operation, state, sum(amount_minor)::int8 as amount_minor, count(*)::int4 as count
  from operations where parent_session_id = $1 group by operation, state`;

/** The parent's columns an operation needs (rules, gateway call, payload, webhook gate). */
const PARENT_KEYS = [
  "session_id",
  "merchant_id",
  "order_no",
  "type",
  "created_via",
  "state",
  "amount_minor",
  "currency_code",
  "pg_code",
  "pg_reference",
  "ops_version",
] as const satisfies readonly (keyof TransactionRow)[];
export type OperationParent = Pick<TransactionRow, (typeof PARENT_KEYS)[number]>;
const PARENT_COLUMNS = PARENT_KEYS.map((key) => `t.${key}`).join(", ");

export interface ParentForOperation {
  parent: OperationParent;
  gatewayKind: GatewayKind | null;
  routing: Routing;
  /** Read in the same statement as the parent (one snapshot); absent when the parent was locked. */
  childSums?: ChildSum[];
}

export const operationsRepo = {
  /**
   * The parent with its gateway setting's kind and its webhook routing, in one round trip.
   *
   * Unlocked (`lock` false, the fast path), the same statement reads the children's sums, so
   * parent and children come from one snapshot; the reservation then commits only if the
   * parent's `ops_version` is still the one read here (see {@link insert}).
   *
   * Locked (`for update`), the children are read by a separate statement after this one: under
   * READ COMMITTED a statement that waited for the row lock still reads other tables with its old
   * snapshot, so reading them here would miss a concurrent operation that committed while we waited.
   */
  async parentForOperation(
    q: Queryable,
    merchantId: string,
    by: { sessionId?: string | undefined; orderNo?: string | undefined },
    lock: boolean,
  ): Promise<ParentForOperation | undefined> {
    const rows = await q.query<
      OperationParent & RoutingColumns & { op_gateway_kind: GatewayKind | null; op_children?: ChildSum[] }
    >(
      `select ${PARENT_COLUMNS}, g.kind as op_gateway_kind, ${ROUTING_COLUMNS}${
        lock
          ? ""
          : `, (select coalesce(json_agg(s), '[]') from (${CHILD_SUMS.replace("$1", "t.session_id")}) s) as op_children`
      }
         from transactions t
         left join gateway_settings g on g.pg_code = t.pg_code
         left join webhook_configs c on c.merchant_id = t.merchant_id
         left join webhook_plugins p on p.merchant_id = t.merchant_id and p.type = t.type
        where t.merchant_id = $1 and ${by.sessionId ? "t.session_id" : "t.order_no"} = $2
        ${lock ? "for update of t" : ""}`,
      [merchantId, by.sessionId ?? by.orderNo],
    );
    const row = rows[0];
    if (!row) return undefined;
    // Only the parent's own columns: the routing columns (the signing secret among them) stay out.
    const parent = Object.fromEntries(PARENT_KEYS.map((key) => [key, row[key]])) as OperationParent;
    return {
      parent,
      gatewayKind: row.op_gateway_kind,
      routing: routingFrom(row),
      ...(row.op_children ? { childSums: row.op_children } : {}),
    };
  },
  /** The children's sums by operation and state (after the parent's lock: a fresh snapshot). */
  async childSums(q: Queryable, parentSessionId: string): Promise<ChildSum[]> {
    return q.query<ChildSum>(CHILD_SUMS, [parentSessionId]);
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
  /**
   * Inserts a child and bumps its parent's `ops_version` in one statement. With `expectedVersion`
   * (an optimistic reservation), nothing is written unless the parent's version is still that
   * one: PostgreSQL re-checks the condition on the latest row after waiting for a concurrent
   * writer, so of two operations that read the same version only one commits. Returns undefined
   * when nothing was written: the version moved on, or the gateway_operation_id was already
   * recorded.
   */
  async insert(
    q: Queryable,
    op: NewOperation,
    expectedVersion: number | null = null,
  ): Promise<OperationRow | undefined> {
    const rows = await q.query<{ created_at: Date }>(
      `with parent as (
         update transactions set ops_version = ops_version + 1
          where session_id = $2 and ($16::int4 is null or ops_version = $16::int4)
          returning session_id)
       insert into operations (session_id, parent_session_id, merchant_id, operation, amount_minor, currency_code, state,
         reference_number, source, via, initiator, pg_code, pg_response, gateway_operation_id, operated_at)
       select $1, parent.session_id, $3, $4, $5::int8, $6, $7, $8, $9, $10, $11::jsonb, $12, $13::jsonb, $14, $15::timestamptz
         from parent
       on conflict do nothing returning created_at`,
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
        expectedVersion,
      ],
    );
    // The row is what was sent, with the default created_at (no need to read every column back).
    return rows[0] && { ...op, operated_at: op.operated_at ?? null, created_at: rows[0].created_at };
  },
  /**
   * Settles `child` (a row read or inserted before, still in the state it was read in) and
   * returns it as now stored; undefined when its state had changed meanwhile (a request and the
   * reservation sweep settling the same reservation: only the first one counts).
   */
  async finish(
    q: Queryable,
    child: OperationRow,
    state: string,
    pgResponse: PgResponse,
    operatedAt: Date,
  ): Promise<OperationRow | undefined> {
    const rows = await q.query(
      `update operations set state = $2, pg_response = $3, operated_at = $4, updated_at = now()
        where session_id = $1 and state = $5 returning session_id`,
      [child.session_id, state, JSON.stringify(pgResponse), operatedAt, child.state],
    );
    return rows.length ? { ...child, state, pg_response: pgResponse, operated_at: operatedAt } : undefined;
  },
  /**
   * Reservations older than `olderThanSeconds` (their request died during the gateway call),
   * claimed for the sweep: the claim moves `updated_at` on, so no other sweep takes them before
   * the same time has passed again.
   */
  async claimStaleReservations(
    q: Queryable,
    olderThanSeconds: number,
    limit: number,
  ): Promise<OperationRow[]> {
    return q.query<OperationRow>(
      `update operations set updated_at = now()
        where session_id in (
          select session_id from operations
           where state like '%\\_pending' and updated_at < now() - make_interval(secs => $1)
           order by updated_at limit $2 for update skip locked)
        returning *`,
      [olderThanSeconds, limit],
    );
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
