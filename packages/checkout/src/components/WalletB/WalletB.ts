/** walletBPay: the mobile number (prefilled when known), then the one-time code. */
import { ApiProblem, confirmOtp, fill, type PaymentMethod, startPayment } from "@svc/checkout-core";
import { settle, type ViewContext } from "../context.js";
import { h, uid } from "../dom.js";

const FORM = "wallet_b_pay";

function field(name: string, label: string, hint: string, attrs: Record<string, string>) {
  const id = uid(name);
  const hintEl = h("p", { class: "h", id: `${id}-h` }, hint);
  const error = h("p", { class: "e", id: `${id}-e`, "aria-live": "assertive" });
  const input = h("input", {
    id,
    name,
    dir: "ltr",
    required: true,
    inputmode: "numeric",
    "aria-describedby": `${id}-h ${id}-e`,
    ...attrs,
  });
  const setError = (text: string) => {
    error.textContent = text;
    if (text) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  };
  return { nodes: [h("label", { for: id }, label), input, hintEl, error], input, setError };
}

export function WalletB(ctx: ViewContext, method: PaymentMethod): HTMLElement {
  const { t } = ctx;
  const known = (ctx.details.customer_phone ?? "").replace(/[^0-9+]/g, "");
  const mobile = field("mobile_number", t.mobileNumber, t.mobileHint, {
    type: "tel",
    autocomplete: "tel",
    value: known,
  });
  const otp = field("otp", t.otp, t.otpHint, {
    type: "text",
    autocomplete: "one-time-code",
    pattern: "[0-9]*",
    maxlength: "8",
  });
  const container = h("div");
  let reference = "";

  const numberForm = h(
    "form",
    { novalidate: true, onsubmit: (e) => void submitNumber(e) },
    ...mobile.nodes,
    h("button", { class: "b", type: "submit" }, t.sendCode),
  );
  const otpForm = h(
    "form",
    { novalidate: true, hidden: true, onsubmit: (e) => void submitOtp(e) },
    ...otp.nodes,
    h("button", { class: "b", type: "submit" }, fill(t.payAmount, { amount: ctx.amountText })),
  );
  container.append(numberForm, otpForm);

  async function submitNumber(event: Event) {
    event.preventDefault();
    const number = mobile.input.value.replace(/[\s-]/g, "");
    if (!/^\+?[0-9]{6,15}$/.test(number)) {
      mobile.setError(t.mobileWrong);
      return mobile.input.focus();
    }
    mobile.setError("");
    ctx.busy(true, t.working);
    try {
      const answer = await startPayment(ctx.api, ctx.details.session_id, {
        form_of_payment: FORM,
        pg_code: method.pg_code,
        mobile_number: number,
      });
      const next = settle(ctx, answer);
      if (next?.status === "otp_required") {
        reference = next.otp_reference;
        ctx.busy(false);
        numberForm.hidden = true;
        otpForm.hidden = false;
        otp.input.focus();
      }
    } catch (error) {
      if (error instanceof ApiProblem && error.code === "validation_failed") {
        ctx.busy(false);
        mobile.setError(t.mobileWrong);
        mobile.input.focus();
      } else ctx.fail(FORM, error);
    }
  }

  async function submitOtp(event: Event) {
    event.preventDefault();
    const code = otp.input.value.trim();
    if (!/^[0-9]{4,8}$/.test(code)) {
      otp.setError(t.otpFormat);
      return otp.input.focus();
    }
    otp.setError("");
    ctx.busy(true, t.working);
    try {
      settle(ctx, await confirmOtp(ctx.api, ctx.details.session_id, reference, code));
    } catch (error) {
      if (error instanceof ApiProblem && error.code === "invalid_otp") {
        // The gateway allows a few tries; the customer types the code again.
        ctx.busy(false);
        otp.setError(t.otpWrong);
        otp.input.value = "";
        otp.input.focus();
      } else ctx.fail(FORM, error);
    }
  }
  return container;
}
