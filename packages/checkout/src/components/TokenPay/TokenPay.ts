/** tokenPay: one saved card of the transaction's customer, paid with one button. */
import { fill, type PaymentMethod, type SavedCard, startPayment } from "@svc/checkout-core";
import { settle, type ViewContext } from "../context.js";
import { h } from "../dom.js";

const FORM = "token_pay";

export const cardsFor = (ctx: { details: { cards: SavedCard[] } }, method: PaymentMethod) =>
  ctx.details.cards.filter((c) => c.pg_code === method.pg_code);

export function TokenPay(ctx: ViewContext, method: PaymentMethod, card?: SavedCard): HTMLElement {
  const chosen = card ?? cardsFor(ctx, method)[0]!;
  const pay = async () => {
    ctx.busy(true, ctx.t.working);
    try {
      settle(
        ctx,
        await startPayment(ctx.api, ctx.details.session_id, {
          form_of_payment: FORM,
          pg_code: method.pg_code,
          token: chosen.token,
        }),
      );
    } catch (error) {
      ctx.fail(FORM, error);
    }
  };
  return h(
    "button",
    { class: "b", type: "button", "data-token": chosen.token, onclick: () => void pay() },
    fill(ctx.t.payAmount, { amount: ctx.amountText }),
  );
}
