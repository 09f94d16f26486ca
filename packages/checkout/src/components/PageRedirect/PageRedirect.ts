/**
 * svcPG and redirect: the hosted card page or the gateway's page opens in a window of its own
 * (opened during the click, so no popup blocker interferes; the whole page goes there if a
 * window cannot open), and the view polls the service until the payment is final.
 */
import { getResult } from "../../api/get-result.js";
import { startPayment } from "../../api/start-payment.js";
import type { PaymentMethod } from "../../types.js";
import { errorData, settle, type ViewContext } from "../context.js";
import { h } from "../dom.js";

const POLL_MS = 1000;
const WINDOW_FEATURES = "popup,width=520,height=760";

export function PageRedirect(ctx: ViewContext, method: PaymentMethod): HTMLElement {
  const form = method.form_of_payment;
  const label = form === "svc_pg" ? ctx.t.card : ctx.t.redirect;

  async function poll(win: Window | null) {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      const closed = win?.closed === true;
      let result: Awaited<ReturnType<typeof getResult>>;
      try {
        result = await getResult(ctx.api, ctx.details.session_id);
      } catch (error) {
        win?.close();
        return ctx.finish(errorData(ctx, form, error));
      }
      if (result.status !== "pending") {
        win?.close();
        return ctx.finish(result);
      }
      // Closed before a payment started: the customer may choose again.
      if (closed && result.state !== "attempted") return ctx.busy(false);
    }
  }

  async function open() {
    const win = window.open("", "svc_checkout_page", WINDOW_FEATURES);
    ctx.busy(true, ctx.t.waitingPage);
    try {
      const answer = await startPayment(ctx.api, ctx.details.session_id, {
        form_of_payment: form,
        pg_code: method.pg_code,
      });
      const next = settle(ctx, answer);
      if (next?.status !== "redirect") return win?.close();
      if (!win) return location.assign(next.redirect_url);
      win.location.href = next.redirect_url;
      await poll(win);
    } catch (error) {
      win?.close();
      ctx.finish(errorData(ctx, form, error));
    }
  }

  return h("button", { class: "b", type: "button", onclick: () => void open() }, label);
}
