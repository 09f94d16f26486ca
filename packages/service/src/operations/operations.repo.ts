/** SQL of operations (child transactions): reservations, finalisation, lookups by reference. */
import type { GatewayKind, Operation } from "@svc/protocol";
import type { GatewayConnection } from "../gateways/connection.js";
import type { TransactionRow } from "../payments/transactions.repo.js";
import { type Queryable, statementText } from "../db/client.js";
import { enqueueFragment, type OwnedEnqueue } from "../webhooks/outbox.js";
import type { PgResponse } from "../gateways/adapter.js";
import type { IdempotencyClaim } from "../http/idempotency.js";
import {
  ROUTING_COLUMNS,
  type Routing,
  type RoutingColumns,
  routingFrom,
} from "../webhooks/settings.repo.js";
import { jsonParam } from "../db/json.js";

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
  /** Why a person did it (the dashboard's optional reason); never in the webhook. */
  reason?: string | null;
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
  "metadata",
  "captures_once",
] as const satisfies readonly (keyof TransactionRow)[];
export type OperationParent = Pick<TransactionRow, (typeof PARENT_KEYS)[number]>;
const PARENT_COLUMNS = PARENT_KEYS.map((key) => `t.${key}`).join(", ");

export interface ParentForOperation {
  parent: OperationParent;
  /** The parent's gateway setting, as its adapter is built from (null when the setting is gone). */
  gateway: GatewayConnection | null;
  routing: Routing;
  /** Read in the same statement as the parent (one snapshot); absent when the parent was locked. */
  childSums?: ChildSum[];
}

/** Which parent an operation is for: the merchant's transaction with this session_id or order_no. */
export interface ParentKey {
  merchantId: string;
  sessionId?: string | undefined;
  orderNo?: string | undefined;
}

type ParentRow = OperationParent &
  RoutingColumns & {
    op_gateway_id: string | null;
    op_gateway_kind: GatewayKind | null;
    op_gateway_secret: string | null;
    op_gateway_credentials: string | null;
    op_gateway_base_url: string | null;
    op_gateway_updated_at: Date | null;
    op_children?: ChildSum[];
    op_i?: number;
  };

/** The parent's gateway setting: what its adapter is built from. */
const GATEWAY_COLUMNS = `g.id as op_gateway_id, g.kind as op_gateway_kind, g.notification_secret as op_gateway_secret,
  g.credentials as op_gateway_credentials, g.api_base_url as op_gateway_base_url, g.updated_at as op_gateway_updated_at`;

/** The parent with its gateway setting and routing; `from` and `where` pick the parents. */
const parentSql = (from: string, where: string, lock: boolean, tag = "") =>
  `select ${tag}${PARENT_COLUMNS}, ${GATEWAY_COLUMNS}, ${ROUTING_COLUMNS}${
    lock
      ? ""
      : `, (select coalesce(json_agg(s), '[]') from (${CHILD_SUMS.replace("$1", "t.session_id")}) s) as op_children`
  }
     from ${from}
     left join gateway_settings g on g.pg_code = t.pg_code
     left join webhook_configs c on c.merchant_id = t.merchant_id
     left join webhook_plugins p on p.merchant_id = t.merchant_id and p.type = t.type
    where ${where}
    ${lock ? "for update of t" : ""}`;

/** Unlocked, many parents at once: one row per key found, tagged with the key's position. */
const parentsSql = (column: "session_id" | "order_no") =>
  parentSql(
    `unnest($1::text[], $2::text[]) with ordinality as v(merchant_id, key, i)
     join transactions t on t.merchant_id = v.merchant_id and t.${column} = v.key`,
    "true",
    false,
    "v.i as op_i, ",
  );
const PARENTS_BY = { session_id: parentsSql("session_id"), order_no: parentsSql("order_no") };

function parentFrom(row: ParentRow): ParentForOperation {
  // Only the parent's own columns: the routing columns (the signing secret among them) stay out.
  const parent = Object.fromEntries(PARENT_KEYS.map((key) => [key, row[key]])) as OperationParent;
  return {
    parent,
    gateway:
      row.op_gateway_id && row.op_gateway_kind && row.pg_code
        ? {
            id: row.op_gateway_id,
            pg_code: row.pg_code,
            kind: row.op_gateway_kind,
            notification_secret: row.op_gateway_secret,
            credentials: row.op_gateway_credentials,
            api_base_url: row.op_gateway_base_url,
            updated_at: row.op_gateway_updated_at!,
          }
        : null,
    routing: routingFrom(row),
    ...(row.op_children ? { childSums: row.op_children } : {}),
  };
}

/**
 * One child to insert; with `expectedVersion`, only if its parent's `ops_version` is still that;
 * with `idempotency`, only if that claimed key gets the child as its recovery point (in the same
 * statement, so a key and its reservation commit together or not at all).
 */
export interface ChildInsert {
  op: NewOperation;
  expectedVersion: number | null;
  idempotency?: Pick<IdempotencyClaim, "merchantId" | "credential" | "key"> | undefined;
}

// The children in `v`; `parent` bumps the version of each parent whose condition holds. When
// several children of one parent come in one statement, the parent row is updated once, for one
// of them (RETURNING names which): only that one is inserted, as if they had come one by one.
// With idempotency keys, `claim` makes each child the recovery point of its key, if the key has
// none yet; a child whose key was already linked (a retry that took the key over got there
// first) is not inserted. A batch without keys uses the statement without `claim`.
const insertChildren = (withKeys: boolean) => `with v as (
    select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[], $6::text[], $7::text[],
      $8::text[], $9::text[], $10::text[], $11::jsonb[], $12::text[], $13::jsonb[], $14::text[],
      $15::timestamptz[], $16::int4[], $17::text[]${withKeys ? ", $18::text[], $19::text[]" : ""})
      with ordinality as v(session_id, parent_session_id, merchant_id, operation, amount_minor, currency_code, state,
        reference_number, source, via, initiator, pg_code, pg_response, gateway_operation_id, operated_at,
        expected_version, reason, ${withKeys ? "idem_credential, idem_key, " : ""}i)),
  parent as (
    update transactions t set ops_version = t.ops_version + 1
      from v
     where t.session_id = v.parent_session_id and (v.expected_version is null or t.ops_version = v.expected_version)
    returning v.i)${
      withKeys
        ? `,
  claim as (
    update idempotency_keys k set recovery_id = v.session_id
      from v join parent on parent.i = v.i
     where v.idem_key is not null and k.merchant_id = v.merchant_id and k.credential = v.idem_credential
       and k.key = v.idem_key and k.recovery_id is null and k.status = 'in_progress'
    returning v.i)`
        : ""
    }
  insert into operations (session_id, parent_session_id, merchant_id, operation, amount_minor, currency_code, state,
    reference_number, source, via, initiator, pg_code, pg_response, gateway_operation_id, operated_at, reason)
  select v.session_id, v.parent_session_id, v.merchant_id, v.operation, v.amount_minor, v.currency_code, v.state,
    v.reference_number, v.source, v.via, v.initiator, v.pg_code, v.pg_response, v.gateway_operation_id, v.operated_at,
    v.reason
    from v join parent on parent.i = v.i
   ${withKeys ? "where v.idem_key is null or v.i in (select i from claim)" : ""}
  on conflict do nothing returning session_id, created_at`;
const INSERT_CHILDREN = insertChildren(false);
const INSERT_CHILDREN_WITH_KEYS = insertChildren(true);

/** Settles a child read or inserted before, from the state it was read in to `state`. */
export interface ChildFinish {
  child: OperationRow;
  state: string;
  pgResponse: PgResponse;
  operatedAt: Date;
}

const FINISH_CHILDREN = `update operations o
    set state = v.state, pg_response = v.pg_response, operated_at = v.operated_at, updated_at = now()
   from unnest($1::text[], $2::text[], $3::jsonb[], $4::timestamptz[], $5::text[]) with ordinality
        as v(session_id, state, pg_response, operated_at, prior, i)
  where o.session_id = v.session_id and o.state = v.prior
  returning v.i`;

/** The child as a finish leaves it (what {@link operationsRepo.finishMany} returns for it). */
export function finishedChild({ child, state, pgResponse, operatedAt }: ChildFinish): OperationRow {
  return { ...child, state, pg_response: pgResponse, operated_at: operatedAt };
}

const finishParams = (items: ChildFinish[]) => [
  items.map((f) => f.child.session_id),
  items.map((f) => f.state),
  items.map((f) => jsonParam(f.pgResponse)),
  items.map((f) => f.operatedAt),
  items.map((f) => f.child.state),
];

export const operationsRepo = {
  /**
   * The parent with its gateway setting's kind and its webhook routing, in one round trip.
   *
   * Unlocked (`lock` false, the fast path), the same statement reads the children's sums, so
   * parent and children come from one snapshot; the reservation then commits only if the
   * parent's `ops_version` is still the one read here (see {@link insertMany}).
   *
   * Locked (`for update`), the children are read by a separate statement after this one: under
   * READ COMMITTED a statement that waited for the row lock still reads other tables with its old
   * snapshot, so reading them here would miss a concurrent operation that committed while we waited.
   */
  async parentForOperation(
    q: Queryable,
    key: ParentKey,
    lock: boolean,
  ): Promise<ParentForOperation | undefined> {
    if (!lock) return (await operationsRepo.parentsForOperation(q, [key]))[0];
    const rows = await q.query<ParentRow>(
      parentSql(
        "transactions t",
        `t.merchant_id = $1 and ${key.sessionId ? "t.session_id" : "t.order_no"} = $2`,
        true,
      ),
      [key.merchantId, key.sessionId ?? key.orderNo],
    );
    return rows[0] && parentFrom(rows[0]);
  },
  /**
   * Unlocked {@link parentForOperation} of many keys in one statement (one per kind of key):
   * the result at each position is the parent of the key at that position, if found.
   */
  async parentsForOperation(q: Queryable, keys: ParentKey[]): Promise<(ParentForOperation | undefined)[]> {
    const found: (ParentForOperation | undefined)[] = Array.from({ length: keys.length });
    for (const column of ["session_id", "order_no"] as const) {
      const at = keys.flatMap((k, i) => ((column === "session_id") === Boolean(k.sessionId) ? [i] : []));
      if (at.length === 0) continue;
      const rows = await q.query<ParentRow>(PARENTS_BY[column], [
        at.map((i) => keys[i]!.merchantId),
        at.map((i) => keys[i]!.sessionId ?? keys[i]!.orderNo),
      ]);
      for (const row of rows) found[at[row.op_i! - 1]!] = parentFrom(row);
    }
    return found;
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
    idempotency?: ChildInsert["idempotency"],
  ): Promise<OperationRow | undefined> {
    return (await operationsRepo.insertMany(q, [{ op, expectedVersion, idempotency }]))[0];
  },
  /** {@link insert} of many children in one statement; the result at each position is that child's. */
  async insertMany(q: Queryable, items: ChildInsert[]): Promise<(OperationRow | undefined)[]> {
    const column = <T>(pick: (op: NewOperation) => T) => items.map((item) => pick(item.op));
    const withKeys = items.some((item) => item.idempotency);
    const keyColumns = withKeys
      ? [
          items.map((item) => item.idempotency?.credential ?? null),
          items.map((item) => item.idempotency?.key ?? null),
        ]
      : [];
    const rows = await q.query<{ session_id: string; created_at: Date }>(
      withKeys ? INSERT_CHILDREN_WITH_KEYS : INSERT_CHILDREN,
      [
        column((op) => op.session_id),
        column((op) => op.parent_session_id),
        column((op) => op.merchant_id),
        column((op) => op.operation),
        column((op) => op.amount_minor),
        column((op) => op.currency_code),
        column((op) => op.state),
        column((op) => op.reference_number),
        column((op) => op.source),
        column((op) => op.via),
        column((op) => (op.initiator === null ? null : jsonParam(op.initiator))),
        column((op) => op.pg_code),
        column((op) => jsonParam(op.pg_response)),
        column((op) => op.gateway_operation_id),
        column((op) => op.operated_at ?? null),
        items.map((item) => item.expectedVersion),
        column((op) => op.reason ?? null),
        ...keyColumns,
      ],
    );
    // Each row is what was sent, with the default created_at (no need to read every column back).
    const created = new Map(rows.map((row) => [row.session_id, row.created_at]));
    return items.map(({ op }) => {
      const createdAt = created.get(op.session_id);
      return createdAt && { ...op, operated_at: op.operated_at ?? null, created_at: createdAt };
    });
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
    return (await operationsRepo.finishMany(q, [{ child, state, pgResponse, operatedAt }]))[0];
  },
  /** {@link finish} of many children in one statement; the result at each position is that child's. */
  async finishMany(q: Queryable, items: ChildFinish[]): Promise<(OperationRow | undefined)[]> {
    const rows = await q.query<{ i: number }>(FINISH_CHILDREN, finishParams(items));
    // By position: if one child came twice, only the item its row was updated for counts.
    const finished = new Set(rows.map((row) => row.i - 1));
    return items.map((item, i) => (finished.has(i) ? finishedChild(item) : undefined));
  },
  /**
   * {@link finishMany} and the messages that report the finished children, in one statement:
   * atomic without a transaction, one round trip where `begin`, the finish, the outbox's insert
   * and `commit` were four. `messages` are owned by their child's position from 1; those of a
   * child that was not finished (settled meanwhile) are not written. Returns, position by
   * position, whether the child was finished, and the messages' ids (undefined where not written).
   */
  async finishManyReporting(
    q: Queryable,
    items: ChildFinish[],
    messages: OwnedEnqueue[],
  ): Promise<{ finished: boolean[]; messageIds: (string | undefined)[] }> {
    const finish = finishParams(items);
    const insert = enqueueFragment(messages, finish.length, "select i from finished");
    // Built once per shape (statementText); the insert's parameters start after the finish's.
    const sql = statementText(
      `finishManyReporting ${finish.length}`,
      () => `with finished as (${FINISH_CHILDREN}), reported as (${insert.sql}) select i from finished`,
    );
    const rows = await q.query<{ i: number }>(sql, [...finish, ...insert.params]);
    const finished = new Set(rows.map((row) => row.i));
    return {
      finished: items.map((_, i) => finished.has(i + 1)),
      messageIds: insert.ids.map((id, m) => (finished.has(messages[m]!.owner) ? id : undefined)),
    };
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
          select o.session_id from operations o
           where o.state like '%\\_pending' and o.updated_at < now() - make_interval(secs => $1)
             -- An unknown outcome on the Discrepancies page waits for an operator, not the sweep.
             and not exists (select 1 from gateway_discrepancies d
                              where d.pg_code = o.pg_code and d.gateway_operation_id = o.reference_number
                                and d.kind = 'unknown_outcome')
           order by o.updated_at limit $2 for update of o skip locked)
        returning *`,
      [olderThanSeconds, limit],
    );
  },
  /**
   * Queued operations not asked about for `olderThanSeconds`, claimed for the queued sweep as
   * reservations are: the claim moves `updated_at` on, so each is asked at most that often.
   */
  async claimStaleQueued(q: Queryable, olderThanSeconds: number, limit: number): Promise<OperationRow[]> {
    return q.query<OperationRow>(
      `update operations set updated_at = now()
        where session_id in (
          select session_id from operations
           where state like '%\\_queued' and updated_at < now() - make_interval(secs => $1)
           order by updated_at limit $2 for update skip locked)
        returning *`,
      [olderThanSeconds, limit],
    );
  },
  /** The merchant's child with this session_id. */
  async child(q: Queryable, merchantId: string, sessionId: string): Promise<OperationRow | undefined> {
    const rows = await q.query<OperationRow>(
      "select * from operations where session_id = $1 and merchant_id = $2",
      [sessionId, merchantId],
    );
    return rows[0];
  },
  async deleteReservation(q: Queryable, sessionId: string): Promise<void> {
    await q.query("delete from operations where session_id = $1 and state like '%\\_pending'", [sessionId]);
  },
  /** A child recorded from the gateway's own operation, by the gateway's id of it. */
  async lockByGatewayOperationId(q: Queryable, pgCode: string, gatewayOperationId: string) {
    const rows = await q.query<OperationRow>(
      "select * from operations where pg_code = $1 and gateway_operation_id = $2 for update",
      [pgCode, gatewayOperationId],
    );
    return rows[0];
  },
  async lockByReference(q: Queryable, pgCode: string, referenceNumber: string) {
    const rows = await q.query<OperationRow>(
      "select * from operations where pg_code = $1 and reference_number = $2 for update",
      [pgCode, referenceNumber],
    );
    return rows[0];
  },
};
