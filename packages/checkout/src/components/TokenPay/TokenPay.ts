/** tokenPay: one button per saved card of the transaction's customer for this gateway. */
import { startPayment } from "../../api/start-payment.js";
import { fill } from "../../i18n/index.js";
import type { PaymentMethod, SavedCard } from "../../types.js";
import { errorData, settle, type ViewContext } from "../context.js";
import { h } from "../dom.js";

const FORM = "token_pay";

export const cardsFor = (ctx: { details: { cards: SavedCard[] } }, method: PaymentMethod) =>
  ctx.details.cards.filter((c) => c.pg_code === method.pg_code);

export function TokenPay(ctx: ViewContext, method: PaymentMethod): HTMLElement {
  const pay = async (card: SavedCard) => {
    ctx.busy(true, ctx.t.working);
    try {
      settle(
        ctx,
        await startPayment(ctx.api, ctx.details.session_id, {
          form_of_payment: FORM,
          pg_code: method.pg_code,
          token: card.token,
        }),
      );
    } catch (error) {
      ctx.finish(errorData(ctx, FORM, error));
    }
  };
  return h(
    "div",
    { class: "o" },
    ...cardsFor(ctx, method).map((card) =>
      h(
        "button",
        { class: "sb", type: "button", "data-token": card.token, onclick: () => void pay(card) },
        fill(ctx.t.savedCard, { brand: card.brand.toUpperCase(), last4: card.last4, expiry: card.expiry }),
      ),
    ),
  );
}
