/**
 * The Payment Status API: a parent with its derived totals and its children (the same
 * `transactions` array the payment webhook carries).
 */
import { formatAmount } from "@svc/protocol";
import type { TransactionRow } from "./transactions.repo.js";
import { transactionsRepo } from "./transactions.repo.js";
import type { Db, Queryable } from "../db/client.js";
import { AppError } from "../http/problem.js";
import { type ChildRow, type PaymentListFilter, paymentsRepo } from "./payments.repo.js";
import { deriveTotals } from "./totals.js";
import { transactionsOf } from "./transactions.js";
import { noTransaction } from "../http/not-found.js";

export interface PaymentEvents {
  /**
   * Called inside the transaction that moves a payment to a state with an event: final (paid,
   * authorized, failed, canceled, expired) or attempted and waiting on the customer (pending).
   */
  onPaymentEvent?: (q: Queryable, tx: TransactionRow) => Promise<void>;
  /** Called after that transaction has committed. */
  paymentEventCommitted?: () => void;
}

const CSV_BATCH = 500;
const CSV_COLUMNS = [
  "created_at",
  "session_id",
  "order_no",
  "state",
  "amount",
  "currency_code",
  "operation",
  "type",
  "form_of_payment",
  "pg_code",
  "customer_name",
  "customer_email",
  "customer_phone",
  "customer_id",
  "completed_at",
] as const;

function csvField(value: string | null | undefined): string {
  if (value === null || value === undefined) return "";
  // A spreadsheet runs a cell starting with = + - @ as a formula: keep it text.
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n']/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function csvLine(tx: TransactionRow): string {
  const name = [tx.customer_first_name, tx.customer_last_name].filter(Boolean).join(" ");
  return `${[
    tx.created_at.toISOString(),
    tx.session_id,
    tx.order_no,
    tx.state,
    formatAmount(tx.amount_minor, tx.currency_code),
    tx.currency_code,
    tx.operation,
    tx.type,
    tx.form_of_payment,
    tx.pg_code,
    name || null,
    tx.customer_email,
    tx.customer_phone,
    tx.customer_id,
    tx.completed_at?.toISOString() ?? null,
  ]
    .map(csvField)
    .join(",")}\r\n`;
}

/** The list API's cursor: opaque to clients (base64url of the position). */
function encodeCursor(createdAt: string, sessionId: string): string {
  return Buffer.from(`${createdAt}|${sessionId}`).toString("base64url");
}

function decodeCursor(cursor: string): { createdAt: string; sessionId: string } {
  const [createdAt = "", sessionId = ""] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  if (
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(createdAt) ||
    !/^sess_[a-z2-7]{1,40}$/.test(sessionId)
  )
    throw new AppError(
      "validation_failed",
      "The cursor is not one this API gave: pass next_cursor as it came.",
      {
        errors: { cursor: ["is not a cursor this API gave"] },
      },
    );
  return { createdAt, sessionId };
}

/** A payment in lists: what a person scans for (amount, state, customer) first. */
function listItem(tx: TransactionRow) {
  return {
    session_id: tx.session_id,
    order_no: tx.order_no,
    state: tx.state,
    amount: formatAmount(tx.amount_minor, tx.currency_code),
    currency_code: tx.currency_code,
    type: tx.type,
    operation: tx.operation,
    created_via: tx.created_via,
    pg_code: tx.pg_code,
    form_of_payment: tx.form_of_payment,
    customer_id: tx.customer_id,
    customer_first_name: tx.customer_first_name,
    customer_last_name: tx.customer_last_name,
    customer_email: tx.customer_email,
    customer_phone: tx.customer_phone,
    metadata: tx.metadata,
    created_at: tx.created_at.toISOString(),
    completed_at: tx.completed_at?.toISOString() ?? null,
  };
}

export function createPaymentsService(db: Db, deps: { now: () => Date; events?: PaymentEvents }) {
  /**
   * Turns the due open sessions (or the one given) `expired`, each with its event, in one
   * transaction (the caller's, when given). Returns how many.
   */
  async function expireDue(sessionId?: string, q?: Queryable): Promise<number> {
    const run = async (t: Queryable) => {
      const expired = await transactionsRepo.expireDue(t, deps.now(), sessionId);
      for (const row of expired) await deps.events?.onPaymentEvent?.(t, row);
      return expired.length;
    };
    // One session that is not due (nearly every status read): one indexed look, no transaction.
    if (!q && sessionId && !(await transactionsRepo.isDue(db, deps.now(), sessionId))) return 0;
    const count = q ? await run(q) : await db.tx(run);
    // Inside the caller's transaction the wake comes before its commit; the workers' poll covers that.
    if (count > 0) deps.events?.paymentEventCommitted?.();
    return count;
  }
  /** The payment's row for `status`: expired first if it is due; `not_found` if there is none. */
  async function find(
    merchantId: string,
    by: { sessionId?: string; orderNo?: string },
  ): Promise<TransactionRow> {
    let tx: TransactionRow | undefined;
    if (by.sessionId) {
      await expireDue(by.sessionId);
      tx = await transactionsRepo.find(db, merchantId, by.sessionId);
    } else if (by.orderNo) {
      tx = await transactionsRepo.findByOrderNo(db, merchantId, by.orderNo);
      if (tx && (await expireDue(tx.session_id)))
        tx = await transactionsRepo.find(db, merchantId, tx.session_id);
    }
    if (!tx) {
      throw noTransaction(by);
    }
    return tx;
  }

  /** A payment as the Payment Status API shows it; `children` when the caller read them already. */
  async function view(q: Queryable, tx: TransactionRow, children?: ChildRow[]) {
    children ??= await paymentsRepo.children(q, tx.session_id);
    const totals = deriveTotals(tx, children);
    const money = (minor: number) => formatAmount(minor, tx.currency_code);
    return {
      session_id: tx.session_id,
      order_no: tx.order_no,
      state: tx.state,
      amount: money(tx.amount_minor),
      currency_code: tx.currency_code,
      operation: tx.operation,
      type: tx.type,
      created_via: tx.created_via,
      pg_code: tx.pg_code,
      form_of_payment: tx.form_of_payment,
      language: tx.language,
      customer_id: tx.customer_id,
      // Who paid, as the merchant gave it at checkout (their own data, back to them).
      customer_first_name: tx.customer_first_name,
      customer_last_name: tx.customer_last_name,
      customer_email: tx.customer_email,
      customer_phone: tx.customer_phone,
      metadata: tx.metadata,
      captured_amount: money(totals.captured),
      refunded_amount: money(totals.refunded),
      voided_amount: money(totals.voided),
      capturable_amount: money(totals.capturable),
      refundable_amount: money(totals.refundable),
      remaining_amount: money(totals.remaining),
      challenge_occurred: tx.challenge_occurred,
      pg_response: tx.pg_response,
      expires_at: tx.expires_at.toISOString(),
      created_at: tx.created_at.toISOString(),
      completed_at: tx.completed_at?.toISOString() ?? null,
      transactions: transactionsOf(tx, children),
    };
  }

  return {
    view,
    /**
     * A page of the list API, newest first, after an opaque `cursor` (the last page's
     * `next_cursor`): keyset pagination, so payments created meanwhile never shift a page.
     */
    async page(merchantId: string, filter: PaymentListFilter, cursor: string | undefined, limit: number) {
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      const rows = await paymentsRepo.listAfter(db, merchantId, filter, after, limit);
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      return {
        data: items.map(listItem),
        has_more: rows.length > limit,
        next_cursor: rows.length > limit && last ? encodeCursor(last.cursor_at, last.session_id) : null,
      };
    },
    /** How many payments match the filter, with their totals per currency. */
    async summary(merchantId: string, filter: PaymentListFilter) {
      const rows = await paymentsRepo.summary(db, merchantId, filter);
      return {
        count: rows.reduce((n, r) => n + Number(r.n), 0),
        currencies: rows.map((r) => ({
          currency_code: r.currency_code,
          count: Number(r.n),
          total: formatAmount(Number(r.total), r.currency_code),
          paid_or_authorized: formatAmount(Number(r.successful), r.currency_code),
        })),
      };
    },
    /**
     * The filtered list as CSV lines (a header first), read 500 rows at a time by keyset: memory
     * stays bounded however many payments match. Fields are quoted per RFC 4180, and a value that
     * a spreadsheet would run as a formula (=, +, -, @ first) is prefixed with a quote.
     */
    async *csv(merchantId: string, filter: PaymentListFilter): AsyncGenerator<string> {
      yield `${CSV_COLUMNS.join(",")}\r\n`;
      let after: { createdAt: string; sessionId: string } | undefined;
      for (;;) {
        const rows = await paymentsRepo.listAfter(db, merchantId, filter, after, CSV_BATCH);
        const batch = rows.slice(0, CSV_BATCH);
        if (batch.length > 0) yield batch.map((tx) => csvLine(tx)).join("");
        if (rows.length <= CSV_BATCH) return;
        const last = batch.at(-1)!;
        after = { createdAt: last.cursor_at, sessionId: last.session_id };
      }
    },
    /**
     * One page of the merchant's payments (the dashboard's list), newest first, each with its
     * totals (minor units), so the list can say what a payment is now as its page does.
     */
    async list(merchantId: string, filter: PaymentListFilter, page: { limit: number; offset: number }) {
      const read = await paymentsRepo.list(db, merchantId, filter, page);
      const rows = read.slice(0, page.limit);
      const sums = await paymentsRepo.childSums(
        db,
        rows.map((tx) => tx.session_id),
      );
      return {
        items: rows.map((tx) => ({
          ...listItem(tx),
          totals: deriveTotals(
            tx,
            sums.filter((c) => c.parent_session_id === tx.session_id),
          ),
          // One line for people: the name, else how else the customer is known.
          customer:
            [tx.customer_first_name, tx.customer_last_name].filter(Boolean).join(" ") ||
            tx.customer_email ||
            tx.customer_id ||
            tx.customer_phone,
        })),
        hasMore: read.length > page.limit,
      };
    },
    async status(merchantId: string, by: { sessionId?: string; orderNo?: string }) {
      return view(db, await find(merchantId, by));
    },
    find,
    expireDue,
    async onPaymentEvent(q: Queryable, tx: TransactionRow): Promise<void> {
      await deps.events?.onPaymentEvent?.(q, tx);
    },
    paymentEventCommitted(): void {
      deps.events?.paymentEventCommitted?.();
    },
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
