/**
 * The embeddable view: a host element with an open shadow root (styles adopted, never inline),
 * carrying the stable hooks `dir`, `data-theme`, `data-layout` and `data-state`; one
 * `data-form-of-payment` entry per option.
 *
 * States (`data-state`): `loading` (a skeleton while the details load) → `options` (a radio list;
 * the selected option shows its one primary action) → `waiting` (a payment window is open: a
 * banner with progress at the top) ⇄ `closed` (the window closed without a result: Reopen,
 * Choose another way) → `success` | `declined` | `error` (the outcome screen; the checkout ends).
 */
import {
  type ApiContext,
  availableOptions,
  browserLanguage,
  type CallbackData,
  type CheckoutTheme,
  customerMessage,
  errorData,
  type ErrorReport,
  fill,
  type FormOfPayment,
  getDetails,
  getResult,
  isMinified,
  type PaymentMethod,
  type SavedCard,
  savedCardsFirst,
  sessionEnd,
  type SvcDelegate,
  type Texts,
  textsFor,
  type TransactionDetails,
} from "@svc/checkout-core";
import { adoptStyles } from "../../theme/adopt.js";
import { BASE_CSS } from "../../theme/styles.js";
import { type Appearance, themeRule } from "../../theme/variables.js";
import { type WalletAApi, walletAUnsupported } from "../../wallet-a.js";
import { type ClosedActions, type OptionComponent, type ViewContext } from "../context.js";
import { h, uid } from "../dom.js";
import { brandMark, icon } from "../icons/icons.js";
import { PageRedirect } from "../PageRedirect/index.js";
import { TokenPay } from "../TokenPay/index.js";
import { WalletA } from "../WalletA/index.js";
import { WalletB } from "../WalletB/index.js";

const COMPONENTS: Record<FormOfPayment, OptionComponent> = {
  wallet_a_pay: WalletA,
  wallet_b_pay: WalletB,
  svc_pg: PageRedirect,
  token_pay: TokenPay,
  redirect: PageRedirect,
};

export interface PaymentViewInput {
  api: ApiContext;
  sessionId: string;
  forms: FormOfPayment[] | undefined;
  preload: TransactionDetails | undefined;
  theme: CheckoutTheme | undefined;
  delegate: SvcDelegate;
  nonce: string | undefined;
  walletA: WalletAApi | undefined;
  report: (report: ErrorReport) => Promise<void>;
}

function appearance(): Appearance {
  return typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches
    ? "dark"
    : "light";
}

export function PaymentView(input: PaymentViewInput): HTMLElement {
  const language = browserLanguage();
  const t: Texts = textsFor(language);
  const mode = appearance();
  const host = h("div", {
    class: "svc-checkout",
    lang: language,
    dir: language === "ar" ? "rtl" : "ltr",
    "data-theme": mode,
    "data-layout": "full",
    "data-state": "loading",
    "aria-busy": "true",
  });
  const shadow = host.attachShadow({ mode: "open" });
  adoptStyles(shadow, [BASE_CSS, themeRule(input.theme, mode)], input.nonce);
  // Live regions exist from the start, so what is put in them later is announced.
  const status = h("p", { class: "s vh", role: "status" });
  const banner = h("div", { class: "bn", hidden: true });
  const root = h("div", { class: "r", part: "root" }, banner);
  shadow.append(root, status);
  let finished = false;
  let fieldset: HTMLFieldSetElement | undefined;
  let details: TransactionDetails | undefined;
  const setState = (state: string) => host.setAttribute("data-state", state);
  // Before an option is chosen, an error names the first requested form (svc_pg by default).
  const firstForm = input.forms?.[0] ?? "svc_pg";

  function busy(on: boolean, text = "") {
    status.textContent = text;
    host.setAttribute("aria-busy", String(on));
    if (fieldset && !finished) fieldset.disabled = on;
  }

  function showBanner(kind: "waiting" | "closed", title: string, body: string, actions: HTMLElement[]) {
    const titleId = uid("banner");
    banner.replaceChildren(
      h(
        "div",
        { class: `bi ${kind}`, role: "group", "aria-labelledby": titleId },
        kind === "waiting" ? h("span", { class: "sp", "aria-hidden": "true" }) : icon("closed", "ic bic"),
        h("div", { class: "bt" }, h("p", { class: "btt", id: titleId }, title), h("p", { class: "h" }, body)),
      ),
      ...(kind === "waiting" ? [h("div", { class: "pb", "aria-hidden": "true" }, h("span"))] : []),
      ...(actions.length ? [h("div", { class: "ba" }, ...actions)] : []),
    );
    banner.hidden = false;
    status.textContent = `${title}. ${body}`;
    if (typeof banner.scrollIntoView === "function") banner.scrollIntoView({ block: "nearest" });
  }

  function waiting(win: { focus(): void } | null) {
    setState("waiting");
    busy(true);
    const show = h("button", { class: "sb", type: "button", onclick: () => win?.focus() }, t.showWindow);
    showBanner("waiting", t.waitingTitle, t.waitingPage, win ? [show] : []);
    status.textContent = t.waitingPage;
  }

  function windowClosed(actions: ClosedActions) {
    setState("closed");
    busy(true);
    const reopen = h("button", { class: "b", type: "button", onclick: () => actions.reopen() }, t.reopen);
    const another = actions.chooseAnother
      ? [
          h(
            "button",
            { class: "sb", type: "button", onclick: () => actions.chooseAnother?.() },
            t.chooseAnother,
          ),
        ]
      : [];
    showBanner("closed", t.closedTitle, actions.chooseAnother ? t.closedBody : t.closedAttempted, [
      reopen,
      ...another,
    ]);
    reopen.focus();
  }

  function idle() {
    banner.hidden = true;
    banner.replaceChildren();
    setState("options");
    busy(false);
    fieldset?.querySelector<HTMLInputElement>("input[type=radio]:checked")?.focus();
  }

  /** The outcome screen: what happened, in the customer's words, and what to do next. */
  function outcome(kind: "success" | "declined" | "error", title: string, body: string, next?: string) {
    banner.hidden = true;
    if (fieldset) {
      fieldset.disabled = true;
      fieldset.hidden = true;
    }
    const titleId = uid("outcome");
    const rows: [string, string][] = [
      [t.amount, details ? `${details.amount} ${details.currency_code}` : ""],
    ];
    if (details?.order_no) rows.push([t.order, details.order_no]);
    else if (kind === "success") rows.push([t.reference, details?.session_id ?? input.sessionId]);
    const panel = h(
      "section",
      { class: `out ${kind}`, tabindex: "-1", "aria-labelledby": titleId },
      icon(kind === "success" ? "success" : "failure", "ic oi"),
      // One level below the view's title, or the view's top heading when it has none (minified, failed load).
      h(root.querySelector(".mt") ? "h3" : "h2", { class: "ot", id: titleId }, title),
      h("p", {}, body),
      ...(kind === "success" && details
        ? [
            h(
              "dl",
              { class: "d" },
              ...rows.flatMap(([k, v]) => [
                h("dt", { class: "dl" }, k),
                h("dd", { class: "dv" }, h("bdi", { dir: "ltr" }, v)),
              ]),
            ),
          ]
        : []),
      ...(next ? [h("p", { class: "h" }, next)] : []),
    );
    root.querySelector(".out")?.remove();
    // The outcome carries the amount and reference itself: the details above would repeat them.
    const summary = root.querySelector<HTMLElement>(":scope > .d");
    if (summary && kind === "success") summary.hidden = true;
    root.append(panel);
    setState(kind);
    status.textContent = `${title}. ${body}`;
    const active = document.activeElement;
    if (!active || active === document.body || active === host) panel.focus();
  }

  function finish(data: CallbackData) {
    if (finished) return;
    finished = true;
    host.setAttribute("aria-busy", "false");
    host.dataset.outcome = data.status;
    if (data.status === "success") outcome("success", t.successTitle, t.successBody);
    else if (data.status === "canceled") outcome("declined", t.declinedTitle, data.message, t.declinedNext);
    else if (!root.querySelector(".out")) outcome("error", t.errorTitle, t.err_generic, t.errorNext);
    try {
      if (data.status === "success") input.delegate.successCallback(data);
      else if (data.status === "canceled") input.delegate.cancelCallback(data);
      else input.delegate.errorCallback(data);
    } finally {
      if (data.status === "error")
        void input.report({
          message: data.message,
          session_id: data.session_id ?? input.sessionId,
          form_of_payment: data.form_of_payment,
        });
    }
  }

  function fail(form: FormOfPayment, error: unknown) {
    if (finished) return;
    const data = errorData(details ?? { session_id: input.sessionId, order_no: null }, form, error);
    console.error(`svc-checkout: ${data.message}`);
    outcome("error", t.errorTitle, customerMessage(t, error), t.errorNext);
    finish(data);
  }

  function render(loaded: TransactionDetails) {
    details = loaded;
    root.querySelector(".sk")?.remove();
    const options = availableOptions(loaded, input.forms);
    const minified = isMinified(options);
    host.dataset.layout = minified ? "minified" : "full";
    const amountText = `${loaded.amount} ${loaded.currency_code}`;
    const ctx: ViewContext = {
      t,
      language,
      api: input.api,
      details: loaded,
      walletA: input.walletA,
      minified,
      amountText,
      finish,
      fail,
      busy,
      finished: () => finished,
      waiting,
      windowClosed,
      idle,
    };
    const showDetails = !minified && input.theme?.showPaymentDetails !== false;
    if (!minified) root.append(h("h2", { class: "mt" }, t.title));
    if (showDetails) {
      root.append(
        h(
          "dl",
          { class: "d" },
          h("dt", { class: "dl" }, t.amount),
          h("dd", { class: "dv" }, h("bdi", { dir: "ltr" }, amountText)),
          ...(loaded.order_no
            ? [h("dt", { class: "dl" }, t.order), h("dd", { class: "dv" }, h("bdi", {}, loaded.order_no))]
            : []),
        ),
      );
    }
    setState("options");
    // Not busy any more, and the status no longer says the options are loading.
    busy(false);
    const end = sessionEnd(loaded, options);
    if (end === "final") {
      // Back from a card or gateway page the whole window went to: report the stored outcome.
      status.textContent = t.restart;
      getResult(input.api, loaded.session_id).then(
        (result) => (result.status !== "pending" ? finish(result) : undefined),
        (error: unknown) => fail(firstForm, error),
      );
      return;
    }
    // Expired, a payment in progress, another state, no option to show: errorCallback.
    if (end) return fail(firstForm, end);
    fieldset = optionList(ctx, options);
    root.append(fieldset);
  }

  function optionList(ctx: ViewContext, methods: PaymentMethod[]): HTMLFieldSetElement {
    // Radios group per shadow root: one fixed name is enough, however many views a page holds.
    const name = "method";
    const entries = savedCardsFirst(methods, ctx.details.cards);
    const unsupported = (m: PaymentMethod) =>
      m.form_of_payment === "wallet_a_pay" && walletAUnsupported(ctx.walletA);
    const selectable = entries.filter((e) => !unsupported(e.method));
    const list = h("div", { class: "o" });
    const set = h(
      "fieldset",
      { class: "fs0" },
      h("legend", { class: ctx.minified ? "vh" : "lg" }, t.choose),
      list,
    );
    const rows = selectable.map((entry, index) =>
      optionRow(ctx, name, entry.method, entry.card, index === 0),
    );
    list.append(...rows.map((r) => r.el));
    // The seed's check 2: a device that cannot pay with its wallet gets one line, no button.
    for (const entry of entries.filter((e) => unsupported(e.method)))
      list.append(
        h(
          "p",
          {
            class: "un",
            "data-form-of-payment": "wallet_a_pay",
            "data-pg-code": entry.method.pg_code,
            "data-wallet-status": "unsupported",
          },
          icon("wallet_a"),
          t.walletAUnsupported,
        ),
      );
    set.addEventListener("change", () => {
      for (const r of rows) r.sync();
    });
    return set;
  }

  function optionRow(
    ctx: ViewContext,
    name: string,
    method: PaymentMethod,
    card: SavedCard | undefined,
    checked: boolean,
  ) {
    const id = uid("opt");
    const fee = Number(method.fee) > 0 ? method.fee_description : "";
    const title = card
      ? fill(t.savedCard, { brand: card.brand.toUpperCase(), last4: card.last4 })
      : method.name;
    const subtitle = card ? fill(t.savedCardExpiry, { expiry: card.expiry }) : "";
    const radio = h("input", {
      type: "radio",
      name,
      id,
      value: card?.token ?? `${method.form_of_payment}:${method.pg_code}`,
      checked,
    });
    const el = h(
      "div",
      {
        class: "op",
        "data-form-of-payment": method.form_of_payment,
        "data-pg-code": method.pg_code,
        ...(card ? { "data-token": card.token } : {}),
      },
      h(
        "label",
        { class: "oh", for: id, ...(ctx.minified ? { hidden: true } : {}) },
        radio,
        card ? brandMark(card.brand) : icon(method.icon),
        h(
          "span",
          { class: "tx" },
          h("span", { class: "t", id: `${id}-t` }, title),
          ...(subtitle ? [h("span", { class: "st" }, h("bdi", { dir: "ltr" }, subtitle))] : []),
        ),
        ...(fee
          ? [
              h(
                "span",
                { class: "f" },
                h("span", { class: "ft" }, `${t.fee}:`),
                h("span", { class: "fs" }, fee),
              ),
            ]
          : []),
      ),
    );
    // An option's form is built when it is first selected: the first render builds one, not all.
    let body: HTMLElement | undefined;
    const sync = () => {
      const selected = radio.checked || ctx.minified;
      el.toggleAttribute("data-selected", selected);
      if (selected && !body) {
        body = h(
          "div",
          { class: "ob", role: "group", "aria-labelledby": `${id}-t` },
          COMPONENTS[method.form_of_payment](ctx, method, card),
        );
        el.append(body);
      }
      if (body) body.hidden = !selected;
    };
    sync();
    return { el, sync };
  }

  if (input.preload) render(input.preload);
  else {
    root.append(h("div", { class: "sk", "aria-hidden": "true" }, h("span"), h("span"), h("span"), h("span")));
    status.textContent = t.loading;
    getDetails(input.api, input.sessionId).then(render, (error: unknown) => {
      root.querySelector(".sk")?.remove();
      host.setAttribute("aria-busy", "false");
      fail(firstForm, error);
    });
  }
  return host;
}
