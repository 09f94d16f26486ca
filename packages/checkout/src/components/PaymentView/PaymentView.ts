/**
 * The embeddable view: a host element with an open shadow root (styles adopted, never inline),
 * carrying the stable hooks `dir`, `data-theme`, `data-layout`; one `data-form-of-payment`
 * section per option.
 */
import { getDetails } from "../../api/get-details.js";
import { getResult } from "../../api/get-result.js";
import type { ApiContext } from "../../api/http.js";
import type { ErrorReport } from "../../api/post-error.js";
import { browserLanguage, type Texts, textsFor } from "../../i18n/index.js";
import { adoptStyles } from "../../theme/adopt.js";
import type { CheckoutTheme } from "../../theme/checkout-theme.js";
import { BASE_CSS } from "../../theme/styles.js";
import { type Appearance, themeRule } from "../../theme/variables.js";
import type {
  CallbackData,
  FormOfPayment,
  PaymentMethod,
  SvcDelegate,
  TransactionDetails,
} from "../../types.js";
import type { WalletAApi } from "../../wallet-a.js";
import { errorData, type OptionComponent, type ViewContext } from "../context.js";
import { h } from "../dom.js";
import { PageRedirect } from "../PageRedirect/index.js";
import { TokenPay } from "../TokenPay/index.js";
import { WalletA } from "../WalletA/index.js";
import { WalletB } from "../WalletB/index.js";
import { availableOptions, isMinified } from "./options.js";

const COMPONENTS: Record<FormOfPayment, OptionComponent> = {
  wallet_a_pay: WalletA,
  wallet_b_pay: WalletB,
  svc_pg: PageRedirect,
  token_pay: TokenPay,
  redirect: PageRedirect,
};
const OPEN_STATES = ["created", "pending"];
const FINAL_STATES = ["paid", "authorized", "failed", "canceled"];

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
    "aria-busy": "true",
  });
  const shadow = host.attachShadow({ mode: "open" });
  adoptStyles(shadow, [BASE_CSS, themeRule(input.theme, mode)], input.nonce);
  const status = h("p", { class: "s", role: "status" });
  const alert = h("p", { class: "s e", role: "alert" });
  const root = h("div", { class: "r", part: "root" });
  shadow.append(root);
  let finished = false;
  let disabledByBusy: HTMLButtonElement[] = [];

  function busy(on: boolean, text = "") {
    status.textContent = text;
    host.setAttribute("aria-busy", String(on));
    if (on) {
      disabledByBusy = [...shadow.querySelectorAll("button")].filter((b) => !b.disabled);
      for (const b of disabledByBusy) b.disabled = true;
    } else if (!finished) {
      for (const b of disabledByBusy) b.disabled = false;
      disabledByBusy = [];
    }
  }

  function finish(data: CallbackData) {
    if (finished) return;
    finished = true;
    busy(true);
    host.setAttribute("aria-busy", "false");
    host.dataset.outcome = data.status;
    for (const el of shadow.querySelectorAll("input")) el.disabled = true;
    if (data.status === "success") status.textContent = data.message || t.success;
    else alert.textContent = `${data.message} ${t.restart}`;
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

  function render(details: TransactionDetails) {
    const options = availableOptions(details, input.forms);
    const minified = isMinified(options);
    host.dataset.layout = minified ? "minified" : "full";
    const ctx: ViewContext = { t, api: input.api, details, walletA: input.walletA, minified, finish, busy };
    const showDetails = !minified && input.theme?.showPaymentDetails !== false;
    const money = `${details.amount} ${details.currency_code}`;
    root.append(
      ...(minified ? [] : [h("h2", { class: "mt" }, t.title)]),
      ...(showDetails ? [detailsList()] : []),
    );
    function detailsList() {
      return h(
        "dl",
        { class: "d" },
        h("dt", { class: "dl" }, t.amount),
        h("dd", { class: "dv" }, h("bdi", { dir: "ltr" }, money)),
        ...(details.order_no
          ? [h("dt", { class: "dl" }, t.order), h("dd", { class: "dv" }, h("bdi", {}, details.order_no))]
          : []),
      );
    }
    if (FINAL_STATES.includes(details.state)) {
      alert.textContent = t.restart;
      // Back from a card or gateway page the whole window went to: report the stored outcome.
      getResult(input.api, details.session_id).then(
        (result) => result.status !== "pending" && finish(result),
        () => undefined,
      );
    } else if (!OPEN_STATES.includes(details.state) || options.length === 0) {
      alert.textContent = options.length === 0 ? t.noOptions : t.restart;
    } else {
      root.append(h("ul", { class: "o" }, ...options.map((m) => option(ctx, m))));
    }
    root.append(status, alert);
    host.setAttribute("aria-busy", "false");
  }

  function option(ctx: ViewContext, method: PaymentMethod) {
    const titleId = `svc-${method.form_of_payment}-${method.pg_code}`;
    return h(
      "li",
      {
        class: "op",
        "data-form-of-payment": method.form_of_payment,
        "data-pg-code": method.pg_code,
        "aria-labelledby": titleId,
      },
      h(
        "h3",
        { class: "t", id: titleId, ...(ctx.minified ? { hidden: true } : {}) },
        h("span", { class: "ic", "aria-hidden": "true" }, ICONS[method.icon] ?? "•"),
        method.name,
      ),
      !ctx.minified &&
        h(
          "p",
          { class: "f" },
          h("span", { class: "ft" }, `${t.fee}:`),
          h("span", { class: "fs" }, method.fee_description),
        ),
      COMPONENTS[method.form_of_payment](ctx, method),
    );
  }

  if (input.preload) render(input.preload);
  else
    getDetails(input.api, input.sessionId).then(render, (error: unknown) => {
      root.append(status, alert);
      // No option was chosen yet: the error names the first requested form (svc_pg by default).
      const details = { session_id: input.sessionId, order_no: null } as TransactionDetails;
      finish(errorData({ details } as ViewContext, input.forms?.[0] ?? "svc_pg", error));
    });
  return host;
}

const ICONS: Record<string, string> = { card: "▭", wallet_a: "◈", wallet_b: "✆", saved_card: "▣", bank: "⌂" };
