/**
 * Payments on the sandbox: one function per thing the adapter can ask. The test values of
 * docs/gateways.md are decided here (cards in cards.ts).
 */
import type { PgResponse } from "../adapter.js";
import { GATEWAY_CAPABILITIES } from "../capabilities.js";
import { evaluateCard } from "./cards.js";
import { authCode, type SandboxContext, sandboxId } from "./context.js";
import { HttpError } from "./http.js";
import { OTP_MAX_ATTEMPTS, type SandboxPayment } from "./state.js";
import type { PaymentRequestBody } from "./validate.js";
import type { WirePaymentResult } from "./wire.js";

export const WALLET_B_OTP = "123456";
export const WALLET_A_DECLINE_TOKEN = "decline";

/** The instrument type each form of payment must carry. */
const INSTRUMENT_FOR = {
  svc_pg: "card",
  token_pay: "token",
  wallet_a_pay: "wallet_a",
  wallet_b_pay: "wallet_b",
  redirect: "redirect",
} as const;

export function findPayment(ctx: SandboxContext, pgReference: string): SandboxPayment {
  const payment = ctx.state.payments.get(pgReference);
  if (!payment)
    throw new HttpError(
      404,
      "payment_not_found",
      `no sandbox payment ${pgReference} (a sandbox restart forgets payments)`,
    );
  return payment;
}

/** Marks a payment approved: captured at once for purchase, held for authorize. */
export function approve(
  payment: SandboxPayment,
  pgResponse: PgResponse,
  extra: Partial<WirePaymentResult> = {},
): void {
  const captured = payment.operation === "purchase";
  payment.capturedMinor = captured ? payment.amountMinor : 0;
  payment.result = {
    status: "approved",
    pg_reference: payment.pgReference,
    pg_response: { ...pgResponse, authorized: true, captured, auth_code: authCode(), is_sandbox: true },
    ...extra,
  };
}

/** ndebit declines look like its switch's receipts so the service's cancel-popup rule has data. */
export function decline(
  payment: SandboxPayment,
  pgResponse: PgResponse,
  extra: Partial<WirePaymentResult> = {},
): void {
  const switchFields =
    payment.kind === "ndebit" ? { result: "NOT CAPTURED", auth_code: authCode(), ref: sandboxId("nd") } : {};
  payment.result = {
    status: "declined",
    pg_reference: payment.pgReference,
    pg_response: { ...pgResponse, ...switchFields, is_sandbox: true },
    ...extra,
  };
}

/** The payment made for svc's `attemptId` (svc's recovery asks when it lost the answer), or 404. */
export function paymentByAttempt(ctx: SandboxContext, attemptId: string): SandboxPayment {
  const pgReference = ctx.state.paymentsByAttempt.get(attemptId);
  if (!pgReference) throw new HttpError(404, "not_found", `no payment for attempt_id ${attemptId}`);
  return findPayment(ctx, pgReference);
}

export function createPayment(ctx: SandboxContext, request: PaymentRequestBody): WirePaymentResult {
  const known = ctx.state.paymentsByAttempt.get(request.attemptId);
  if (known) {
    const payment = findPayment(ctx, known);
    if (
      payment.amountMinor !== request.amountMinor ||
      payment.currency !== request.currency ||
      payment.kind !== request.kind
    ) {
      throw new HttpError(
        409,
        "attempt_conflict",
        `attempt_id ${request.attemptId} was already used for a different payment`,
      );
    }
    return payment.result;
  }
  if (!GATEWAY_CAPABILITIES[request.kind].formsOfPayment.includes(request.formOfPayment)) {
    throw new HttpError(
      400,
      "unsupported_form_of_payment",
      `gateway ${request.kind} does not accept ${request.formOfPayment}`,
    );
  }
  const instrumentType = INSTRUMENT_FOR[request.formOfPayment];
  if (request.instrument.type !== instrumentType) {
    throw new HttpError(
      400,
      "invalid_request",
      `instrument.type must be "${instrumentType}" for ${request.formOfPayment}`,
    );
  }
  const pgReference = sandboxId("pg");
  // The instrument (a card number, a token) is used to decide and then dropped, never kept.
  const { instrument, ...fields } = request;
  const payment: SandboxPayment = {
    ...fields,
    pgReference,
    result: { status: "declined", pg_reference: pgReference, pg_response: { is_sandbox: true } },
    otpAttemptsLeft: OTP_MAX_ATTEMPTS,
    capturedMinor: 0,
    refundedMinor: 0,
    voidedMinor: 0,
    operations: [],
    createdAt: new Date().toISOString(),
  };
  decide(ctx, payment, instrument);
  // Stored only after deciding, so a request rejected with 400 leaves nothing behind.
  ctx.state.payments.set(pgReference, payment);
  ctx.state.paymentsByAttempt.set(request.attemptId, pgReference);
  return payment.result;
}

function decide(ctx: SandboxContext, payment: SandboxPayment, instrument: Record<string, unknown>): void {
  const pageUrl = `${ctx.publicUrl()}/pages/${payment.pgReference}`;
  switch (instrument.type) {
    case "card": {
      const outcome = evaluateCard(instrument, new Date(), ctx.state.fingerprintKey);
      if (outcome.decision === "declined") {
        decline(payment, outcome.pgResponse);
      } else if (outcome.decision === "challenge") {
        payment.pendingCard = { card: outcome.card, save: outcome.save };
        payment.page = "challenge";
        payment.result = {
          status: "action_required",
          pg_reference: payment.pgReference,
          redirect_url: pageUrl,
          pg_response: outcome.pgResponse,
        };
      } else {
        payment.pendingCard = { card: outcome.card, save: outcome.save };
        approveCard(ctx, payment, outcome.pgResponse, false);
      }
      break;
    }
    case "token": {
      const token = instrument.gateway_token;
      if (typeof token !== "string") {
        throw new HttpError(400, "invalid_request", "instrument.gateway_token must be a string");
      }
      const card = ctx.state.savedCards.get(token);
      if (card) approve(payment, { result: "APPROVED", brand: card.brand, last4: card.last4 });
      else decline(payment, { result: "DECLINED", reason: "unknown gateway token" });
      break;
    }
    case "wallet_a": {
      const token = instrument.payment_token;
      if (typeof token !== "string") {
        throw new HttpError(400, "invalid_request", "instrument.payment_token must be a string");
      }
      if (token === WALLET_A_DECLINE_TOKEN) {
        decline(payment, { result: "DECLINED", reason: "wallet A declined the token (test value)" });
      } else {
        approve(payment, { result: "APPROVED", wallet: "wallet_a" });
      }
      break;
    }
    case "wallet_b": {
      const mobile = instrument.mobile_number;
      if (typeof mobile !== "string" || !/^\+?\d{6,15}$/.test(mobile)) {
        throw new HttpError(
          400,
          "invalid_request",
          "instrument.mobile_number must be 6 to 15 digits, optionally with a leading +",
        );
      }
      payment.mobileNumber = mobile;
      payment.result = {
        status: "otp_required",
        pg_reference: payment.pgReference,
        pg_response: { result: "OTP SENT", is_sandbox: true },
      };
      break;
    }
    default: {
      payment.page = "redirect";
      payment.result = {
        status: "action_required",
        pg_reference: payment.pgReference,
        redirect_url: pageUrl,
        pg_response: { result: "PENDING", is_sandbox: true },
      };
    }
  }
}

/** Approves a card payment and saves the card when asked. */
export function approveCard(
  ctx: SandboxContext,
  payment: SandboxPayment,
  pgResponse: PgResponse,
  challengeOccurred: boolean,
): void {
  const pending = payment.pendingCard;
  const extra: Partial<WirePaymentResult> = challengeOccurred ? { challenge_occurred: true } : {};
  if (pending?.save) {
    const savedCard = { ...pending.card, gateway_token: sandboxId("tok") };
    ctx.state.savedCards.set(savedCard.gateway_token, savedCard);
    extra.saved_card = savedCard;
  }
  approve(payment, { ...pgResponse, result: "APPROVED" }, extra);
}

export function confirmOtp(ctx: SandboxContext, pgReference: string, otp: string): WirePaymentResult {
  const payment = findPayment(ctx, pgReference);
  if (payment.mobileNumber === undefined)
    throw new HttpError(409, "not_wallet_b", `payment ${pgReference} does not take a one-time code`);
  // A code sent again after the payment is decided gets the same answer (idempotent retry).
  if (payment.result.status !== "otp_required") return payment.result;
  if (otp !== WALLET_B_OTP) {
    payment.otpAttemptsLeft -= 1;
    if (payment.otpAttemptsLeft <= 0) {
      decline(payment, { result: "DECLINED", reason: "too many wrong one-time codes" });
      return payment.result;
    }
    // Still otp_required on the gateway: the customer may try again.
    const left = payment.otpAttemptsLeft;
    return {
      status: "otp_required",
      pg_reference: pgReference,
      pg_response: {
        result: "WRONG OTP",
        reason: "the one-time code is wrong",
        attempts_left: left,
        is_sandbox: true,
      },
    };
  }
  if (payment.mobileNumber.endsWith("0000")) {
    decline(payment, { result: "DECLINED", reason: "wallet B declined the payment (number ends in 0000)" });
  } else {
    approve(payment, { result: "APPROVED", wallet: "wallet_b" });
  }
  return payment.result;
}
