import type { TransactionRow } from "./transactions.repo.js";
import type { Queryable } from "../db/client.js";

export interface ChildRow {
  session_id: string;
  parent_session_id: string;
  operation: "refund" | "capture" | "void";
  amount_minor: number;
  currency_code: string;
  state: string;
  reference_number: string;
  source: "input" | "pg";
  created_at: Date;
}

/** Filters of the dashboard's payment list; every one optional. */
export interface PaymentListFilter {
  /** Matches a session_id exactly, an order_no by prefix, or a customer id, email, phone or name by substring. */
  search?: string | undefined;
  state?: string | undefined;
  pgCode?: string | undefined;
  /** created_at >= from (inclusive), created_at < to (exclusive). */
  from?: Date | undefined;
  to?: Date | undefined;
}

/** The WHERE clause of a filter, with its parameters ($1 is the merchant). */
function whereOf(merchantId: string, filter: PaymentListFilter): { where: string; params: unknown[] } {
  const where = ["merchant_id = $1"];
  const params: unknown[] = [merchantId];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  const search = filter.search?.trim();
  if (search) {
    params.push(search, `${likeLiteral(search)}%`, `%${likeLiteral(search.toLowerCase())}%`);
    const [exact, prefix, contains] = [params.length - 2, params.length - 1, params.length].map(
      (i) => `$${i}`,
    );
    where.push(
      `(session_id = ${exact} or order_no like ${prefix} or lower(customer_id) like ${contains}
        or lower(customer_email) like ${contains} or customer_phone like ${contains}
        or lower(coalesce(customer_first_name, '') || ' ' || coalesce(customer_last_name, '')) like ${contains})`,
    );
  }
  if (filter.state) add((n) => `state = ${n}`, filter.state);
  if (filter.pgCode)
    add((n) => `(pg_code = ${n} or (pg_code is null and ${n} = any(pg_codes)))`, filter.pgCode);
  if (filter.from) add((n) => `created_at >= ${n}`, filter.from);
  if (filter.to) add((n) => `created_at < ${n}`, filter.to);
  return { where: where.join(" and "), params };
}

/** Escapes LIKE wildcards so a search for "50%" means the characters, not a pattern. */
function likeLiteral(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export const paymentsRepo = {
  /** A merchant's parents, newest first; `limit + 1` rows tell the caller whether a next page exists. */
  async list(
    q: Queryable,
    merchantId: string,
    filter: PaymentListFilter,
    page: { limit: number; offset: number },
  ): Promise<TransactionRow[]> {
    const { where, params } = whereOf(merchantId, filter);
    params.push(page.limit + 1, page.offset);
    return q.query<TransactionRow>(
      `select * from transactions where ${where}
        order by created_at desc, session_id desc limit $${params.length - 1} offset $${params.length}`,
      params,
    );
  },

  /**
   * One page after `cursor` (newest first; keyset on created_at, session_id): a payment created
   * while a client pages is newer than every cursor, so it never shifts a later page — no
   * duplicate, no gap. Reads `limit + 1` rows to tell whether there is more.
   */
  async listAfter(
    q: Queryable,
    merchantId: string,
    filter: PaymentListFilter,
    /** `createdAt` to the microsecond, as `cursor_at` gave it (a Date would lose the microseconds). */
    cursor: { createdAt: string; sessionId: string } | undefined,
    limit: number,
  ): Promise<(TransactionRow & { cursor_at: string })[]> {
    const { where, params } = whereOf(merchantId, filter);
    let keyset = "";
    if (cursor) {
      params.push(cursor.createdAt, cursor.sessionId);
      keyset = ` and (created_at, session_id) < ($${params.length - 1}::timestamptz, $${params.length})`;
    }
    params.push(limit + 1);
    return q.query<TransactionRow & { cursor_at: string }>(
      `select *, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at
         from transactions where ${where}${keyset}
        order by created_at desc, session_id desc limit $${params.length}`,
      params,
    );
  },

  /** How many payments match, and their amounts per currency (all, and those paid or authorized). */
  async summary(
    q: Queryable,
    merchantId: string,
    filter: PaymentListFilter,
  ): Promise<{ currency_code: string; n: number; total: number; successful: number }[]> {
    const { where, params } = whereOf(merchantId, filter);
    return q.query(
      `select currency_code, count(*)::int4 as n, sum(amount_minor)::int8 as total,
              coalesce(sum(amount_minor) filter (where state in ('paid', 'authorized')), 0)::int8 as successful
         from transactions where ${where} group by currency_code order by count(*) desc, currency_code`,
      params,
    );
  },

  /**
   * The children of several parents added up by parent, operation and state: what
   * `deriveTotals` needs for a page of the list, in one statement (`children` reads one parent's
   * rows).
   */
  async childSums(
    q: Queryable,
    parentSessionIds: string[],
  ): Promise<Pick<ChildRow, "parent_session_id" | "operation" | "state" | "amount_minor">[]> {
    if (parentSessionIds.length === 0) return [];
    return q.query(
      `select parent_session_id, operation, state, sum(amount_minor)::int8 as amount_minor
         from operations where parent_session_id = any($1::text[])
        group by parent_session_id, operation, state`,
      [parentSessionIds],
    );
  },

  async children(q: Queryable, parentSessionId: string): Promise<ChildRow[]> {
    return q.query<ChildRow>(
      `select session_id, parent_session_id, operation, amount_minor, currency_code, state, reference_number, source, created_at
         from operations where parent_session_id = $1 order by created_at, session_id`,
      [parentSessionId],
    );
  },
};
