/**
 * svcPG and redirect: the hosted card page or the gateway's page opens in a window of its own
 * (opened during the click, so no popup blocker interferes; the whole page goes there if a window
 * cannot open). The window's whole life is watched:
 * - while it is open, a waiting banner sits at the top of the view and the service is asked for
 *   the result every second;
 * - when it closes without a result, the view says so and offers Reopen and — while no payment
 *   started there — Choose another way, and keeps asking (more slowly), so a payment finished
 *   just before the window closed is still reported.
 */
import { getResult, isTransient, type PaymentMethod, startPayment } from "@svc/checkout-core";
import { settle, type ViewContext } from "../context.js";
import { h } from "../dom.js";

const POLL_MS = 1000;
const CLOSED_POLL_MAX_MS = 5000;
const TRANSIENT_POLL_MAX_MS = 10000;
/** After this long without a result and with the window gone, the view stops asking. */
const GIVE_UP_MS = 30 * 60 * 1000;
const WINDOW_NAME = "svc_checkout_page";
const WINDOW_FEATURES = "popup,width=520,height=760";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function PageRedirect(ctx: ViewContext, method: PaymentMethod): HTMLElement {
  const form = method.form_of_payment;
  const label = form === "svc_pg" ? ctx.t.card : ctx.t.redirect;
  /** Each watch has a number; a newer one (reopen, choose another way) ends the older loop. */
  let watchId = 0;

  /** The card page opens in the language the SDK runs in (the seed: texts follow the device). */
  function pageUrl(url: string): string {
    if (form !== "svc_pg") return url;
    const u = new URL(url);
    u.searchParams.set("lang", ctx.language);
    return u.toString();
  }

  async function watch(win: Window | null, url: string) {
    const id = ++watchId;
    const started = Date.now();
    let delay = POLL_MS;
    let closedShown: "none" | "open" | "bound" = "none";
    while (id === watchId && !ctx.finished()) {
      await sleep(delay);
      if (id !== watchId || ctx.finished()) return;
      const closed = win === null || win.closed;
      let result: Awaited<ReturnType<typeof getResult>>;
      try {
        result = await getResult(ctx.api, ctx.details.session_id);
      } catch (error) {
        // getResult already retried; a longer outage keeps the window's payment alive: ask on.
        if (isTransient(error) && Date.now() - started < GIVE_UP_MS) {
          delay = Math.min(delay * 2, TRANSIENT_POLL_MAX_MS);
          continue;
        }
        if (!win?.closed) win?.close();
        return ctx.fail(form, error);
      }
      if (id !== watchId || ctx.finished()) return;
      if (result.status !== "pending") {
        if (!win?.closed) win?.close();
        return ctx.finish(result);
      }
      if (!closed) {
        delay = POLL_MS;
        continue;
      }
      // Closed without a result. Once a payment started in the window the checkout is bound to it.
      const bound = result.state === "attempted";
      const shown = bound ? "bound" : "open";
      if (closedShown !== shown) {
        closedShown = shown;
        ctx.windowClosed({
          reopen: () => reopen(url),
          ...(bound ? {} : { chooseAnother }),
        });
      }
      if (Date.now() - started > GIVE_UP_MS) return;
      delay = Math.min(delay * 1.5, CLOSED_POLL_MAX_MS);
    }
  }

  function reopen(url: string) {
    const win = window.open(url, WINDOW_NAME, WINDOW_FEATURES);
    if (!win) return location.assign(url);
    ctx.waiting(win);
    void watch(win, url);
  }

  function chooseAnother() {
    watchId++;
    ctx.idle();
  }

  async function open() {
    const win = window.open("", WINDOW_NAME, WINDOW_FEATURES);
    ctx.busy(true, ctx.t.working);
    ctx.waiting(win);
    try {
      const answer = await startPayment(ctx.api, ctx.details.session_id, {
        form_of_payment: form,
        pg_code: method.pg_code,
      });
      const next = settle(ctx, answer);
      if (next?.status !== "redirect") return win?.close();
      const url = pageUrl(next.redirect_url);
      if (!win) return location.assign(url);
      win.location.href = url;
      await watch(win, url);
    } catch (error) {
      win?.close();
      ctx.fail(form, error);
    }
  }

  return h("button", { class: "b", type: "button", onclick: () => void open() }, label);
}
