import type { Queryable } from "../db/client.js";
import type { TransactionRow } from "./checkout.repo.js";

export const hostedPageRepo = {
  /**
   * The customer canceled on the hosted page: open (created or pending) with no payment attempt,
   * decided by this one statement, so a payment that began first (its attempt row, its
   * `attempted` state, written together under the row's lock) is never canceled. Returns the
   * canceled row, or undefined when nothing was canceled.
   */
  async cancelOpen(q: Queryable, sessionId: string, at: Date): Promise<TransactionRow | undefined> {
    const rows = await q.query<TransactionRow>(
      `update transactions t set state = 'canceled', updated_at = now(), completed_at = $2,
              form_of_payment = coalesce(t.form_of_payment, 'svc_pg')
        where t.session_id = $1 and t.state in ('created', 'pending')
          and not exists (select 1 from payment_attempts a where a.session_id = t.session_id)
        returning t.*`,
      [sessionId, at],
    );
    return rows[0];
  },
};
