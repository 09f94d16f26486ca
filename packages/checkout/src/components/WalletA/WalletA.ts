/**
 * walletAPay: the seed's four checks — pg_code present (else the option is not offered at all),
 * wallet supported (else no button and a message), cards present (else a Setup button that opens
 * the wallet's setup), else the pay button, which opens the wallet's payment sheet.
 */
import { type PaymentMethod, startPayment, walletStatus } from "@svc/checkout-core";
import { settle, type ViewContext } from "../context.js";
import { h } from "../dom.js";

const FORM = "wallet_a_pay";
const WALLET_API_VERSION = 3;

export function WalletA(ctx: ViewContext, method: PaymentMethod): HTMLElement {
  const { t } = ctx;
  const wallet = ctx.details.wallet_a!;
  const message = h("p", { class: "h", hidden: true });
  const pay = h("button", { class: "b", type: "button", hidden: true, onclick: () => begin() }, t.walletA);
  const setup = h(
    "button",
    {
      class: "b",
      type: "button",
      hidden: true,
      onclick: () => void ctx.walletA?.openPaymentSetup(wallet.merchant_identifier).then(check, check),
    },
    t.walletASetup,
  );
  const container = h("div", {}, pay, setup, message);

  async function check() {
    const status = await walletStatus(ctx.walletA, wallet);
    container.dataset.walletStatus = status;
    pay.hidden = status !== "ready";
    setup.hidden = status !== "setup";
    message.hidden = status === "ready";
    message.textContent =
      status === "unsupported" ? t.walletAUnsupported : status === "setup" ? t.walletASetupHint : "";
  }

  function begin() {
    const Session = ctx.walletA!;
    let session: InstanceType<typeof Session>;
    try {
      session = new Session(WALLET_API_VERSION, {
        merchantIdentifier: wallet.merchant_identifier,
        currencyCode: method.currency_code,
        total: { label: ctx.details.order_no ?? ctx.details.session_id, amount: method.amount },
      });
    } catch (error) {
      return ctx.fail(FORM, error);
    }
    session.oncancel = () => ctx.busy(false);
    session.onpaymentauthorized = async (event) => {
      const data = event.payment.token.paymentData;
      try {
        const answer = await startPayment(ctx.api, ctx.details.session_id, {
          form_of_payment: FORM,
          pg_code: wallet.pg_code,
          payment_token: typeof data === "string" ? data : JSON.stringify(data),
        });
        session.completePayment(answer.status === "success");
        settle(ctx, answer);
      } catch (error) {
        session.completePayment(false);
        ctx.fail(FORM, error);
      }
    };
    ctx.busy(true, t.working);
    session.begin();
  }

  void check();
  return container;
}
