/** A parent's children as the Payment Status API and the payment webhook list them. */
import { formatAmount } from "@svc/protocol";
import type { TransactionRow } from "./transactions.repo.js";
import type { ChildRow } from "./payments.repo.js";

/** Reservations (`<operation>_pending`, a gateway call in flight) are not shown: they may vanish. */
export function transactionsOf(parent: Pick<TransactionRow, "order_no">, children: ChildRow[]) {
  return children
    .filter((c) => !c.state.endsWith("_pending"))
    .map((c) => ({
      session_id: c.session_id,
      order_no: parent.order_no ?? c.reference_number,
      amount: formatAmount(c.amount_minor, c.currency_code),
      currency_code: c.currency_code,
      state: c.state,
      operation: c.operation,
      reference_number: c.reference_number,
      source: c.source,
      created_at: c.created_at.toISOString(),
    }));
}
