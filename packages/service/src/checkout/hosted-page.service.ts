/**
 * What the hosted card page needs beyond the payment flow: the merchant's name for its header,
 * and the customer's "Cancel and return to the shop".
 */
import type { Db } from "../db/client.js";
import { merchantsRepo } from "../merchants/merchants.repo.js";
import type { PaymentsService } from "../payments/payments.service.js";
import { checkoutRepo, type TransactionRow } from "./checkout.repo.js";
import { hostedPageRepo } from "./hosted-page.repo.js";

export function createHostedPageService(db: Db, deps: { now: () => Date; payments: PaymentsService }) {
  return {
    /** The merchant's display name (the root domain unless the operator gave a name). */
    async merchantName(merchantId: string): Promise<string | undefined> {
      return (await merchantsRepo.findMerchant(db, merchantId))?.name;
    },

    /**
     * Cancels an open transaction that has no payment attempt, writing its payment webhook in the
     * same database transaction; anything else is left as it is. Returns the stored row.
     */
    async cancelOnPage(sessionId: string): Promise<TransactionRow | undefined> {
      let canceled = false;
      const tx = await db.tx(async (q) => {
        await deps.payments.expireDue(sessionId, q);
        const row = await hostedPageRepo.cancelOpen(q, sessionId, deps.now());
        if (!row) return checkoutRepo.findBySession(q, sessionId);
        await deps.payments.onPaymentEvent(q, row);
        canceled = true;
        return row;
      });
      if (canceled) deps.payments.paymentEventCommitted();
      return tx;
    },
  };
}
