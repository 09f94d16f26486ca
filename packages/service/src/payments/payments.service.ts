/**
 * The Payment Status API: a parent with its derived totals and its children (the same
 * `transactions` array the payment webhook carries).
 */
import { formatAmount } from "@svc/protocol";
import type { TransactionRow } from "./transactions.repo.js";
import { transactionsRepo } from "./transactions.repo.js";
import type { Db, Queryable } from "../db/client.js";
import { AppError } from "../http/problem.js";
import { type PaymentListFilter, paymentsRepo } from "./payments.repo.js";
import { deriveTotals } from "./totals.js";
import { transactionsOf } from "./transactions.js";

export interface PaymentEvents {
  /**
   * Called inside the transaction that moves a payment to a state with an event: final (paid,
   * authorized, failed, canceled, expired) or attempted and waiting on the customer (pending).
   */
  onPaymentEvent?: (q: Queryable, tx: TransactionRow) => Promise<void>;
  /** Called after that transaction has committed. */
  paymentEventCommitted?: () => void;
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
    const count = q ? await run(q) : await db.tx(run);
    // Inside the caller's transaction the wake comes before its commit; the workers' poll covers that.
    if (count > 0) deps.events?.paymentEventCommitted?.();
    return count;
  }
  async function view(q: Queryable, tx: TransactionRow) {
    const children = await paymentsRepo.children(q, tx.session_id);
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
    /** One page of the merchant's payments (the dashboard's list), newest first. */
    async list(merchantId: string, filter: PaymentListFilter, page: { limit: number; offset: number }) {
      const rows = await paymentsRepo.list(db, merchantId, filter, page);
      return {
        items: rows.slice(0, page.limit).map((tx) => ({
          session_id: tx.session_id,
          order_no: tx.order_no,
          state: tx.state,
          amount: formatAmount(tx.amount_minor, tx.currency_code),
          currency_code: tx.currency_code,
          type: tx.type,
          created_via: tx.created_via,
          pg_code: tx.pg_code,
          customer:
            [tx.customer_first_name, tx.customer_last_name].filter(Boolean).join(" ") ||
            tx.customer_email ||
            tx.customer_id ||
            tx.customer_phone,
          metadata: tx.metadata,
          created_at: tx.created_at,
        })),
        hasMore: rows.length > page.limit,
      };
    },
    async status(merchantId: string, by: { sessionId?: string; orderNo?: string }) {
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
        throw new AppError(
          "not_found",
          by.sessionId
            ? `No transaction with session_id ${by.sessionId}.`
            : `No transaction with order_no ${by.orderNo}.`,
        );
      }
      return view(db, tx);
    },
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
