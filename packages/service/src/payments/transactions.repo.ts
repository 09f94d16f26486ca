/**
 * The parent transactions, as payments/ owns them: the row, and the reads every domain needs (by
 * session, by order number, with the lazy expiry of a due checkout). Checkout creates and pays
 * transactions (checkout.repo.ts adds its writes on top); payments, operations and webhooks read
 * them from here, so none of them depends on checkout/.
 */
import type { Queryable } from "../db/client.js";

export interface TransactionRow {
  session_id: string;
  merchant_id: string;
  order_no: string | null;
  type: "e_commerce" | "payment_request";
  created_via: "api" | "dashboard";
  state: string;
  amount_minor: number;
  currency_code: string;
  operation: "purchase" | "authorize";
  pg_codes: string[];
  language: "en" | "ar";
  customer_id: string | null;
  /** The merchant's own data: string values by key (`{}` when none was given). */
  metadata: Record<string, string>;
  customer_email: string | null;
  customer_phone: string | null;
  customer_first_name: string | null;
  customer_last_name: string | null;
  redirect_url: string | null;
  webhook_url: string | null;
  expires_at: Date;
  pg_code: string | null;
  form_of_payment: string | null;
  pg_reference: string | null;
  pg_response: Record<string, unknown> | null;
  challenge_occurred: boolean;
  /** Its gateway captures an authorization once (GatewayCapabilities.capturesOnce); set when it is attempted there. */
  captures_once: boolean;
  completed_at: Date | null;
  /** Bumped by every statement that adds a child (optimistic concurrency of operations). */
  ops_version: number;
  created_at: Date;
  updated_at: Date;
}

export const transactionsRepo = {
  async find(
    q: Queryable,
    merchantId: string,
    sessionId: string,
    lock = false,
  ): Promise<TransactionRow | undefined> {
    return (
      await q.query<TransactionRow>(
        `select * from transactions where session_id = $1 and merchant_id = $2${lock ? " for update" : ""}`,
        [sessionId, merchantId],
      )
    )[0];
  } /** For hosted pages, which know only the session id. */,
  async findBySession(q: Queryable, sessionId: string, lock = false): Promise<TransactionRow | undefined> {
    return (
      await q.query<TransactionRow>(
        `select * from transactions where session_id = $1${lock ? " for update" : ""}`,
        [sessionId],
      )
    )[0];
  },
  async findByOrderNo(
    q: Queryable,
    merchantId: string,
    orderNo: string,
  ): Promise<TransactionRow | undefined> {
    return (
      await q.query<TransactionRow>("select * from transactions where merchant_id = $1 and order_no = $2", [
        merchantId,
        orderNo,
      ])
    )[0];
  } /** Marks due open sessions expired (never one with a payment in flight). */,
  /** Whether the session is open past its expiry (expireDue would turn it `expired`). */
  async isDue(q: Queryable, now: Date, sessionId: string): Promise<boolean> {
    const rows = await q.query(
      "select 1 from transactions where session_id = $1 and state in ('created', 'pending') and expires_at <= $2",
      [sessionId, now],
    );
    return rows.length > 0;
  },
  async expireDue(q: Queryable, now: Date, sessionId?: string): Promise<TransactionRow[]> {
    return q.query<TransactionRow>(
      `update transactions set state = 'expired', updated_at = now(), completed_at = $1
        where state in ('created', 'pending') and expires_at <= $1 ${sessionId ? "and session_id = $2" : ""} returning *`,
      sessionId ? [now, sessionId] : [now],
    );
  },
};
