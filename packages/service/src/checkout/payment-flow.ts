/**
 * Payment attempts on a parent: the SDK's on-site forms (wallet A, wallet B with OTP, saved card),
 * the hosted card page and redirect flows. One attempt per parent at most: the parent row is
 * locked and a unique index on payment_attempts refuses a second attempt even under concurrency.
 * The gateway is called outside any database transaction, so no lock is held across the network.
 *
 * A gateway call whose answer is lost (a timeout, a 5xx, a crash) leaves the attempt as it was:
 * the customer may have been charged, so it is never taken for a decline. It is recovered by
 * asking the gateway for the payment of that attempt id — by a retry with the same
 * Idempotency-Key (the attempt is the key's recovery point, written with the attempt), by the
 * customer's return from a gateway page, or by {@link sweepAttempts} for one nobody asks about.
 */
import {
  type CallbackData,
  FINAL_PARENT_STATES,
  type FormOfPayment,
  formatAmount,
  type GatewayKind,
  type Language,
  newId,
  type ParentState,
} from "@svc/protocol";
import type { ServiceConfig } from "../config.js";
import type { Db, Queryable } from "../db/client.js";
import type {
  GatewayAdapter,
  GatewayPaymentRef,
  GatewayPaymentResult,
  PaymentInstrument,
} from "../gateways/adapter.js";
import { capturesOnce, formsOfPaymentFor } from "../gateways/capabilities.js";
import { discrepanciesRepo } from "../gateways/discrepancies.repo.js";
import { GatewayError } from "../gateways/gateway-error.js";
import type { GatewayRegistry } from "../gateways/registry.js";
import { type IdempotencyClaim, idempotencyRepo } from "../http/idempotency.js";
import { AppError } from "../http/problem.js";
import { type GatewaySettingRow, merchantsRepo } from "../merchants/merchants.repo.js";
import type { PaymentsService } from "../payments/payments.service.js";
import { type AttemptRow, checkoutRepo, type TransactionRow } from "./checkout.repo.js";
import { t } from "./i18n.js";
import { noTransaction } from "../http/not-found.js";

export interface PaymentFlowDeps {
  config: ServiceConfig;
  gateways: GatewayRegistry;
  now: () => Date;
  load: (merchantId: string, sessionId: string) => Promise<TransactionRow>;
  payments: PaymentsService;
}

export type StartPaymentInput = {
  form_of_payment: FormOfPayment;
  pg_code: string;
  mobile_number?: string;
  payment_token?: string;
  token?: string;
};

export type CardInput = {
  number: string;
  expiryMonth: number;
  expiryYear: number;
  cvc: string;
  holder?: string;
  save: boolean;
};

export type PaymentOutcome =
  | { kind: "final"; tx: TransactionRow; callback: CallbackData }
  | { kind: "otp_required"; otpReference: string; tx: TransactionRow }
  | { kind: "redirect"; redirectUrl: string; tx: TransactionRow };

const OPEN_STATES = ["created", "pending"];

/** How often the result poll may ask the gateway about one session, and how many sessions it remembers. */
const RESULT_ASK_GAP_MS = 3000;
const RESULT_ASK_MEMORY = 10_000;

/**
 * A stored `pg_response` as the customer's browser may read it: the record svc writes itself for
 * a gateway call that failed (`{error, detail}`) keeps its code and loses its detail, which is
 * for the merchant (it can name the setting's key or what to fix in it).
 */
function customerPgResponse(pgResponse: Record<string, unknown>): Record<string, unknown> {
  if (pgResponse.error !== "gateway_unavailable" && pgResponse.error !== "gateway_request_rejected")
    return pgResponse;
  const { detail: _detail, ...rest } = pgResponse;
  return rest;
}

export function createPaymentFlow(db: Db, deps: PaymentFlowDeps) {
  const { config, gateways, now } = deps;
  const lastAsked = new Map<string, number>();

  /** Where a gateway page sends the browser back; with the card page's chosen language, if any. */
  function returnUrl(sessionId: string, language?: Language) {
    return `${config.publicUrl}/pay/${sessionId}/return${language ? `?lang=${language}` : ""}`;
  }
  function notificationUrl(pgCode: string) {
    return `${config.publicUrl}/v1/gateways/${encodeURIComponent(pgCode)}/notifications`;
  }

  /**
   * The gateway setting `pgCode` names, if the transaction offers it and it takes `form`; else
   * `form_of_payment_not_available`, saying what to pick instead.
   */
  async function offeredSetting(
    q: Queryable,
    tx: TransactionRow,
    pgCode: string,
    form: FormOfPayment,
  ): Promise<GatewaySettingRow> {
    if (!tx.pg_codes.includes(pgCode)) {
      throw new AppError(
        "form_of_payment_not_available",
        `pg_code "${pgCode}" is not offered by this transaction; use one of ${tx.pg_codes.join(", ")}.`,
        {
          errors: { pg_code: ["is not one of the transaction's pg_codes"] },
        },
      );
    }
    const setting = await merchantsRepo.findGatewayByCode(q, pgCode);
    if (!setting || !formsOfPaymentFor(setting.kind).includes(form)) {
      throw new AppError(
        "form_of_payment_not_available",
        `${form} is not available with pg_code "${pgCode}". Pick a form of payment from the transaction's payment_methods.`,
        {
          errors: { form_of_payment: [`is not offered by ${pgCode}`] },
        },
      );
    }
    return setting;
  }

  /** Locks the parent, checks it can take a payment with this gateway and form, and records the attempt. */
  async function beginAttempt(
    sessionId: string,
    merchantId: string | undefined,
    pgCode: string,
    form: FormOfPayment,
    saveCard: boolean,
    claim?: IdempotencyClaim,
  ): Promise<{ tx: TransactionRow; attemptId: string; setting: GatewaySettingRow }> {
    return db.tx(async (q) => {
      await deps.payments.expireDue(sessionId, q);
      const tx = merchantId
        ? await checkoutRepo.find(q, merchantId, sessionId, true)
        : await checkoutRepo.findBySession(q, sessionId, true);
      if (!tx) throw noTransaction({ sessionId });
      assertPayable(tx);
      const setting = await offeredSetting(q, tx, pgCode, form);
      // Built now, so a setting whose credentials cannot be opened fails before anything is written.
      gateways.adapterFor(setting);
      const attemptId = newId("pay");
      if (
        !(await checkoutRepo.insertAttempt(q, {
          id: attemptId,
          sessionId,
          pgCode,
          formOfPayment: form,
          saveCard,
        }))
      ) {
        throw new AppError(
          "payment_in_progress",
          "A payment for this session is already in progress. Create a new checkout session to pay again.",
        );
      }
      // The attempt is the key's recovery point: a retry with the key asks about this attempt.
      if (claim) await idempotencyRepo.link(q, claim, attemptId);
      const updated = await checkoutRepo.setState(q, sessionId, "attempted", {
        pg_code: pgCode,
        form_of_payment: form,
        captures_once: capturesOnce(setting.kind),
      });
      return { tx: updated, attemptId, setting };
    });
  }

  function assertPayable(tx: TransactionRow): void {
    if (OPEN_STATES.includes(tx.state)) return;
    if (tx.state === "expired")
      throw new AppError(
        "session_expired",
        "This checkout session has expired. Create a new one with POST /v1/checkout.",
      );
    if (tx.state === "attempted")
      throw new AppError(
        "payment_in_progress",
        "A payment for this session is already in progress. Create a new checkout session to pay again.",
      );
    throw new AppError(
      "invalid_state",
      `This transaction is ${tx.state} and takes no further payment. Create a new checkout session to pay again.`,
    );
  }

  function callbackFor(
    tx: TransactionRow,
    setting: { pg_code: string; kind: string },
    form: FormOfPayment,
    result: GatewayPaymentResult,
  ): CallbackData {
    const base = {
      form_of_payment: form,
      session_id: tx.session_id,
      ...(tx.order_no ? { order_no: tx.order_no } : {}),
      ...("challengeOccurred" in result && result.challengeOccurred ? { challenge_occurred: true } : {}),
    };
    const info = { pg_code: setting.pg_code, pg_name: setting.kind, pg_response: result.pgResponse };
    if (result.status === "approved") {
      return {
        ...base,
        status: "success",
        message: t(tx.language, "msg_success"),
        payment_gateway_info: info,
        ...(tx.redirect_url ? { redirect_url: tx.redirect_url } : {}),
      };
    }
    return {
      ...base,
      status: "canceled",
      message: t(tx.language, result.status === "declined" ? "msg_declined" : "msg_canceled"),
      payment_gateway_info: info,
    };
  }

  /** Records a gateway result on the attempt and, when final, on the parent. Applying twice is harmless. */
  async function applyResult(
    sessionId: string,
    attemptId: string,
    result: GatewayPaymentResult,
  ): Promise<PaymentOutcome> {
    let wroteEvent = false;
    const outcome = await db.tx(async (q) => {
      const tx = (await checkoutRepo.findBySession(q, sessionId, true))!;
      const attempt = (await checkoutRepo.findAttempt(q, sessionId, true))!;
      const setting = (await merchantsRepo.findGatewayByCode(q, attempt.pg_code))!;
      const form = attempt.form_of_payment as FormOfPayment;
      if (tx.state !== "attempted" || attempt.id !== attemptId) {
        // A gateway that took the money after svc had closed this payment as not paid (KNET's
        // customer paying after the page was given up): svc's books cannot take it back by
        // themselves, so it goes to the Discrepancies page, to be refunded on the gateway.
        if (result.status === "approved" && ["failed", "canceled", "expired"].includes(tx.state))
          await discrepanciesRepo.record(q, {
            kind: "late_payment",
            merchant_id: tx.merchant_id,
            parent_session_id: tx.session_id,
            pg_code: attempt.pg_code,
            gateway_operation_id: `payment:${result.pgReference || attempt.id}`,
            notification_id: null,
            operation: "payment",
            amount: formatAmount(tx.amount_minor, tx.currency_code),
            currency_code: tx.currency_code,
            rule: "payment_after_close",
            detail: `The gateway reports this payment as paid, but svc had already closed it as ${tx.state}. Refund it on the gateway's portal (svc did not count it), then resolve this with a note.`,
            pg_response: result.pgResponse,
          });
        // Already settled (the browser's return and the gateway's notification race): report what is stored.
        return { kind: "final" as const, tx, callback: storedCallback(tx, setting, form) };
      }
      switch (result.status) {
        case "otp_required":
        case "action_required":
          // Waiting on the customer: `payment.pending`, once per attempt (when it starts waiting).
          if (attempt.status === "started") {
            await deps.payments.onPaymentEvent(q, tx);
            wroteEvent = true;
          }
          await checkoutRepo.updateAttempt(q, attemptId, {
            status: result.status,
            pg_reference: result.pgReference,
            pg_response: result.pgResponse,
            ...(result.status === "action_required" ? { redirect_url: result.redirectUrl } : {}),
          });
          return result.status === "otp_required"
            ? { kind: "otp_required" as const, otpReference: attemptId, tx }
            : { kind: "redirect" as const, redirectUrl: result.redirectUrl, tx };
        default: {
          const state =
            result.status === "approved"
              ? tx.operation === "authorize"
                ? "authorized"
                : "paid"
              : result.status === "declined"
                ? "failed"
                : "canceled";
          await checkoutRepo.updateAttempt(q, attemptId, {
            status: result.status,
            pg_reference: result.pgReference,
            pg_response: result.pgResponse,
          });
          if (result.status === "approved" && result.savedCard && attempt.save_card && tx.customer_id) {
            await checkoutRepo.insertSavedCard(q, {
              token: newId("tok"),
              merchantId: tx.merchant_id,
              customerId: tx.customer_id,
              pgCode: attempt.pg_code,
              ...result.savedCard,
            });
          }
          const updated = await checkoutRepo.setState(q, sessionId, state, {
            pg_reference: result.pgReference,
            pg_response: result.pgResponse,
            challenge_occurred: "challengeOccurred" in result && result.challengeOccurred === true,
            completed_at: now(),
          });
          await deps.payments.onPaymentEvent(q, updated);
          wroteEvent = true;
          return {
            kind: "final" as const,
            tx: updated,
            callback: callbackFor(updated, setting, form, result),
          };
        }
      }
    });
    if (wroteEvent) deps.payments.paymentEventCommitted();
    return outcome;
  }

  function storedCallback(
    tx: TransactionRow,
    setting: { pg_code: string; kind: string },
    form: FormOfPayment,
  ): CallbackData {
    const pgResponse = customerPgResponse(tx.pg_response ?? {});
    const status =
      tx.state === "paid" || tx.state === "authorized"
        ? "approved"
        : tx.state === "failed"
          ? "declined"
          : "canceled";
    if (tx.state === "attempted") {
      return {
        status: "error",
        message: "The payment is still in progress; wait for its result.",
        form_of_payment: form,
        session_id: tx.session_id,
      };
    }
    return callbackFor(tx, setting, form, {
      status,
      pgReference: tx.pg_reference ?? "",
      pgResponse,
      challengeOccurred: tx.challenge_occurred,
    } as GatewayPaymentResult);
  }

  /**
   * Calls the gateway and records its answer. `pay`: a gateway that was never reached fails the
   * attempt with a clear error. Without an answer (its outcome unknown), and for a `query` (asking
   * about a payment the gateway may have made), nothing is recorded: 504 gateway_outcome_unknown.
   */
  async function callGateway(
    sessionId: string,
    attemptId: string,
    call: () => Promise<GatewayPaymentResult>,
    mode: "pay" | "query" = "pay",
  ): Promise<PaymentOutcome> {
    let result: GatewayPaymentResult;
    try {
      result = await call();
    } catch (error) {
      if (mode === "query" || (error instanceof GatewayError && error.outcomeUnknown)) {
        if (!(error instanceof GatewayError)) throw error;
        throw new AppError(
          "gateway_outcome_unknown",
          "The payment gateway did not answer in time, so whether the payment was taken is not known yet. " +
            "Send the same request with the same Idempotency-Key in a moment (or poll the payment's result): " +
            "svc asks the gateway, and the payment is never taken twice.",
        );
      }
      // Refused by the gateway (the merchant's setting, e.g. a revoked key) is not unreachable.
      // Its reason is for the merchant: kept on the attempt (the Payment Status API, the
      // dashboard), never in the answer or the result the customer's browser reads.
      const rejected = error instanceof GatewayError && error.code === "gateway_request_rejected";
      const pgResponse = {
        error: rejected ? "gateway_request_rejected" : "gateway_unavailable",
        detail: error instanceof Error ? error.message : String(error),
      };
      await applyResult(sessionId, attemptId, { status: "declined", pgReference: "", pgResponse });
      throw rejected
        ? new AppError(
            "gateway_request_rejected",
            "The payment gateway refused the request and the payment was not taken; the merchant's gateway setting needs attention. Try another way to pay.",
          )
        : new AppError(
            "gateway_unavailable",
            "The payment gateway could not be reached and the payment was not taken. Create a new checkout session and try again.",
          );
    }
    return applyResult(sessionId, attemptId, result);
  }

  function payRequest(
    tx: TransactionRow,
    attemptId: string,
    setting: GatewaySettingRow,
    form: FormOfPayment,
    instrument: PaymentInstrument,
    /** The card page's `?lang=` choice: the gateway's page and the way back speak it too. */
    language?: Language,
  ) {
    return {
      pgCode: setting.pg_code,
      kind: setting.kind as GatewayKind,
      sessionId: tx.session_id,
      attemptId,
      amount: formatAmount(tx.amount_minor, tx.currency_code),
      amountMinor: tx.amount_minor,
      currency: tx.currency_code,
      operation: tx.operation,
      formOfPayment: form,
      instrument,
      language: language ?? tx.language,
      returnUrl: returnUrl(tx.session_id, language),
      notificationUrl: notificationUrl(setting.pg_code),
    };
  }

  async function pay(
    tx: TransactionRow,
    attemptId: string,
    setting: GatewaySettingRow,
    form: FormOfPayment,
    instrument: PaymentInstrument,
    language?: Language,
  ) {
    return callGateway(tx.session_id, attemptId, () =>
      gateways.adapterFor(setting).pay(payRequest(tx, attemptId, setting, form, instrument, language)),
    );
  }

  /** The attempt as a gateway is asked about it. */
  function paymentRef(tx: TransactionRow, attempt: AttemptRow): GatewayPaymentRef {
    return {
      pgCode: attempt.pg_code,
      sessionId: attempt.session_id,
      attemptId: attempt.id,
      pgReference: attempt.pg_reference,
      amount: formatAmount(tx.amount_minor, tx.currency_code),
      amountMinor: tx.amount_minor,
      currency: tx.currency_code,
      operation: tx.operation,
      startedAt: new Date(attempt.created_at),
      redirectUrl: attempt.redirect_url,
      returnUrl: returnUrl(tx.session_id),
    };
  }

  /**
   * The answer to an attempt whose first answer was lost: the payment the gateway made for it,
   * or, when it never received it, `resend` (the same attempt id again, which the gateway treats
   * as its idempotency key) or `notReceived`. Errors leave the attempt as it is (504).
   */
  async function recoverAttempt(
    attempt: AttemptRow,
    fallback:
      | { resend: (adapter: GatewayAdapter, setting: GatewaySettingRow) => Promise<GatewayPaymentResult> }
      | {
          notReceived: GatewayPaymentResult;
        },
  ): Promise<PaymentOutcome> {
    const setting = (await merchantsRepo.findGatewayByCode(db, attempt.pg_code))!;
    const tx = (await checkoutRepo.findBySession(db, attempt.session_id))!;
    return callGateway(
      attempt.session_id,
      attempt.id,
      async () => {
        const adapter = gateways.adapterFor(setting);
        return (
          (await adapter.paymentByAttempt(paymentRef(tx, attempt))) ??
          ("resend" in fallback ? fallback.resend(adapter, setting) : fallback.notReceived)
        );
      },
      "query",
    );
  }

  /** What the attempt a key points at came to; asks the gateway while it is undecided. */
  async function outcomeOf(
    attemptId: string,
    resend: (adapter: GatewayAdapter, setting: GatewaySettingRow) => Promise<GatewayPaymentResult>,
  ): Promise<PaymentOutcome> {
    const attempt = await checkoutRepo.attemptById(db, attemptId);
    if (!attempt) throw new Error(`recovery point ${attemptId} names no payment attempt`);
    const tx = (await checkoutRepo.findBySession(db, attempt.session_id))!;
    if (tx.state === "attempted" && attempt.status === "otp_required")
      return { kind: "otp_required", otpReference: attempt.id, tx };
    if (tx.state === "attempted") return recoverAttempt(attempt, { resend });
    const setting = (await merchantsRepo.findGatewayByCode(db, attempt.pg_code))!;
    return {
      kind: "final",
      tx,
      callback: storedCallback(tx, setting, attempt.form_of_payment as FormOfPayment),
    };
  }

  const flow = {
    /** `POST /v1/checkout/{session_id}/payments` from the SDK. */
    async startPayment(
      merchantId: string,
      sessionId: string,
      input: StartPaymentInput,
      claim?: IdempotencyClaim,
    ): Promise<PaymentOutcome> {
      const form = input.form_of_payment;
      if (form === "svc_pg") {
        const tx = await deps.load(merchantId, sessionId);
        assertPayable(tx);
        // The card page is only for a gateway the transaction offers that takes cards there: any
        // other pg_code led the customer to a page that does not exist.
        await offeredSetting(db, tx, input.pg_code, form);
        return {
          kind: "redirect",
          redirectUrl: `${config.publicUrl}/pay/${sessionId}?pg_code=${encodeURIComponent(input.pg_code)}`,
          tx,
        };
      }
      let instrument: PaymentInstrument;
      if (form === "wallet_b_pay") {
        if (!input.mobile_number || !/^\+?[0-9]{6,15}$/.test(input.mobile_number)) {
          throw new AppError(
            "validation_failed",
            "Give mobile_number: 6 to 15 digits, optionally starting with +.",
            { errors: { mobile_number: ["must be 6 to 15 digits, optionally starting with +"] } },
          );
        }
        instrument = { type: "wallet_b", mobileNumber: input.mobile_number };
      } else if (form === "wallet_a_pay") {
        if (!input.payment_token) {
          throw new AppError(
            "validation_failed",
            "Give payment_token: the token the device wallet returned.",
            { errors: { payment_token: ["is required for wallet_a_pay"] } },
          );
        }
        instrument = { type: "wallet_a", paymentToken: input.payment_token };
      } else if (form === "token_pay") {
        if (!input.token) {
          throw new AppError(
            "validation_failed",
            "Give token: one of the saved cards listed in the transaction's cards[] for this pg_code.",
            { errors: { token: ["is required for token_pay"] } },
          );
        }
        const tx = await deps.load(merchantId, sessionId);
        const card = tx.customer_id
          ? (await checkoutRepo.savedCards(db, merchantId, tx.customer_id, [input.pg_code])).find(
              (c) => c.token === input.token,
            )
          : undefined;
        if (!card) {
          throw new AppError(
            "invalid_token",
            "Give token: one of the saved cards listed in the transaction's cards[] for this pg_code.",
            { errors: { token: ["is not a saved card of this customer"] } },
          );
        }
        instrument = { type: "token", gatewayToken: card.gateway_token };
      } else {
        instrument = { type: "redirect" };
      }
      // A retry of a request that started an attempt finishes that attempt, never another.
      const resend = async (adapter: GatewayAdapter, setting: GatewaySettingRow) => {
        const attempt = (await checkoutRepo.findAttempt(db, sessionId))!;
        const tx = await deps.load(merchantId, sessionId);
        return adapter.pay(payRequest(tx, attempt.id, setting, form, instrument));
      };
      if (claim?.recoveryId) return outcomeOf(claim.recoveryId, resend);
      let begun: Awaited<ReturnType<typeof beginAttempt>>;
      try {
        begun = await beginAttempt(sessionId, merchantId, input.pg_code, form, false, claim);
      } catch (error) {
        const recoveryId =
          claim && error instanceof AppError && error.code === "payment_in_progress"
            ? await idempotencyRepo.recoveryOf(db, claim)
            : undefined;
        if (recoveryId) return outcomeOf(recoveryId, resend);
        throw error;
      }
      return pay(begun.tx, begun.attemptId, begun.setting, form, instrument);
    },

    /** `POST /v1/checkout/{session_id}/payments/otp`: the one-time code of wallet B. */
    async confirmOtp(
      merchantId: string,
      sessionId: string,
      otpReference: string,
      otp: string,
    ): Promise<PaymentOutcome> {
      const tx = await deps.load(merchantId, sessionId);
      const attempt: AttemptRow | undefined = await checkoutRepo.findAttempt(db, sessionId);
      if (!attempt || attempt.id !== otpReference) {
        throw new AppError(
          "validation_failed",
          "otp_reference does not match this session's payment; use the one the payment call returned.",
          { errors: { otp_reference: ["is unknown"] } },
        );
      }
      if (attempt.status !== "otp_required" || tx.state !== "attempted") {
        throw new AppError("invalid_state", "This payment is not waiting for a one-time code any more.");
      }
      const setting = (await merchantsRepo.findGatewayByCode(db, attempt.pg_code))!;
      const outcome = await callGateway(sessionId, attempt.id, () =>
        gateways.adapterFor(setting).confirmOtp(attempt.pg_reference ?? "", otp),
      );
      if (outcome.kind === "otp_required") {
        throw new AppError(
          "invalid_otp",
          "The one-time code is not correct. Check the code sent to the mobile number and enter it again.",
          { errors: { otp: ["is not correct"] } },
        );
      }
      return outcome;
    },

    /**
     * The SDK's poll while the customer is on a hosted or gateway page (svc_pg, redirect): the
     * callback data once the payment is final, otherwise `pending` with the parent's state.
     */
    async paymentResult(
      merchantId: string,
      sessionId: string,
    ): Promise<{ kind: "final"; callback: CallbackData } | { kind: "pending"; tx: TransactionRow }> {
      let tx = await deps.load(merchantId, sessionId);
      const attempt = await checkoutRepo.findAttempt(db, sessionId);
      // A customer on a gateway page (or whose window closed there) may have finished before the
      // gateway's notification arrives: ask the gateway now and then, never the browser.
      if (tx.state === "attempted" && attempt?.status === "action_required" && attempt.pg_reference) {
        const at = now().getTime();
        if (at - (lastAsked.get(sessionId) ?? 0) >= RESULT_ASK_GAP_MS) {
          if (lastAsked.size >= RESULT_ASK_MEMORY) lastAsked.clear();
          lastAsked.set(sessionId, at);
          tx = (await flow.handleReturn(sessionId).catch(() => undefined)) ?? tx;
        }
      }
      // Canceled on the hosted card page before any payment: the SDK's cancel callback.
      if (!attempt && tx.state === "canceled") {
        return {
          kind: "final",
          callback: {
            status: "canceled",
            message: t(tx.language, "msg_canceled"),
            form_of_payment: (tx.form_of_payment as FormOfPayment | null) ?? "svc_pg",
            session_id: tx.session_id,
            ...(tx.order_no ? { order_no: tx.order_no } : {}),
          },
        };
      }
      if (!attempt || !FINAL_PARENT_STATES.includes(tx.state as ParentState)) return { kind: "pending", tx };
      const setting = (await merchantsRepo.findGatewayByCode(db, attempt.pg_code))!;
      return {
        kind: "final",
        callback: storedCallback(tx, setting, attempt.form_of_payment as FormOfPayment),
      };
    },

    /**
     * Where a customer who left an unfinished payment should go back to: the gateway page or card
     * challenge the session's attempt waits on (the SDK's Reopen after that window was closed).
     */
    async continueUrl(sessionId: string): Promise<string | undefined> {
      const tx = await checkoutRepo.findBySession(db, sessionId);
      if (tx?.state !== "attempted") return undefined;
      const attempt = await checkoutRepo.findAttempt(db, sessionId);
      return attempt?.status === "action_required" ? (attempt.redirect_url ?? undefined) : undefined;
    },

    /** The hosted card page's submit; `language` is the page's `?lang=` choice, when one was made. */
    async payByCard(
      sessionId: string,
      pgCode: string,
      card: CardInput,
      language?: Language,
    ): Promise<PaymentOutcome> {
      const { tx, attemptId, setting } = await beginAttempt(
        sessionId,
        undefined,
        pgCode,
        "svc_pg",
        card.save,
      );
      return pay(tx, attemptId, setting, "svc_pg", { type: "card", ...card }, language);
    },

    /** The customer's browser is back from a gateway page: ask the gateway, never the browser, how it went. */
    async handleReturn(sessionId: string): Promise<TransactionRow | undefined> {
      const tx = await checkoutRepo.findBySession(db, sessionId);
      if (!tx) return undefined;
      const attempt = await checkoutRepo.findAttempt(db, sessionId);
      if (tx.state !== "attempted" || !attempt?.pg_reference) return tx;
      const setting = (await merchantsRepo.findGatewayByCode(db, attempt.pg_code))!;
      const outcome = await callGateway(
        sessionId,
        attempt.id,
        () => gateways.adapterFor(setting).paymentStatus(paymentRef(tx, attempt)),
        "query",
      );
      return outcome.tx;
    },

    /**
     * Settles attempts whose request died before the gateway's answer was recorded (no answer
     * for longer than `olderThanSeconds`, far beyond the gateway timeout): the payment the
     * gateway made for the attempt, or — when it never received it — a failed payment, since
     * nothing was taken. An unreachable gateway leaves them for the next sweep.
     */
    async sweepAttempts(olderThanSeconds: number, limit = 100): Promise<number> {
      let settled = 0;
      for (const attempt of await checkoutRepo.claimStaleAttempts(db, olderThanSeconds, limit)) {
        const notReceived: GatewayPaymentResult = {
          status: "declined",
          pgReference: "",
          pgResponse: {
            error: "gateway_never_received",
            detail: "the gateway has no payment for this attempt",
          },
        };
        try {
          await recoverAttempt(attempt, { notReceived });
          settled += 1;
        } catch (error) {
          if (!(error instanceof AppError)) throw error; // still unknown: the next sweep asks again
        }
      }
      // Payments waiting on a gateway page whose result never reached svc (the customer closed
      // the browser; the gateway's notification was lost, or it sends none, as KNET): asked
      // again, each at most once per `olderThanSeconds`, until the gateway says how they ended.
      for (const attempt of await checkoutRepo.claimStaleWaitingAttempts(db, olderThanSeconds, limit)) {
        const tx = await flow.handleReturn(attempt.session_id).catch((error: unknown) => {
          if (error instanceof AppError) return undefined; // unknown for now: asked again later
          throw error;
        });
        if (tx && tx.state !== "attempted") settled += 1;
      }
      return settled;
    },

    /** The payment svc knows under a gateway's reference on `pgCode`, as the gateway is asked about it. */
    async paymentByReference(pgCode: string, pgReference: string): Promise<GatewayPaymentRef | undefined> {
      const attempt = await checkoutRepo.attemptByReference(db, pgCode, pgReference);
      const tx = attempt && (await checkoutRepo.findBySession(db, attempt.session_id));
      return attempt && tx ? paymentRef(tx, attempt) : undefined;
    },

    /** The payment svc made as `attemptId` on setting `pgCode` (not another setting's attempt). */
    async paymentByAttempt(pgCode: string, attemptId: string): Promise<GatewayPaymentRef | undefined> {
      const attempt = await checkoutRepo.attemptById(db, attemptId);
      if (attempt?.pg_code !== pgCode) return undefined;
      const tx = await checkoutRepo.findBySession(db, attempt.session_id);
      return tx ? paymentRef(tx, attempt) : undefined;
    },

    /**
     * A gateway's payment_result notification (redirect flows whose customer never came back),
     * found by the gateway's reference, or by the attempt the gateway's record names when svc
     * never stored that reference (the payment's answer was lost): then applied at once, not
     * left to the attempt sweep (which may not find it, and would close the attempt as unpaid).
     */
    async applyPaymentNotification(
      pgCode: string,
      pgReference: string,
      result: GatewayPaymentResult,
      attemptId?: string,
    ): Promise<void> {
      let attempt = await checkoutRepo.attemptByReference(db, pgCode, pgReference);
      if (!attempt && attemptId) {
        const named = await checkoutRepo.attemptById(db, attemptId);
        // Only an attempt of this setting that has no other gateway reference.
        if (named?.pg_code === pgCode && !named.pg_reference) attempt = named;
      }
      if (attempt) await applyResult(attempt.session_id, attempt.id, result);
    },

    supportsCard: (kind: GatewayKind) => formsOfPaymentFor(kind).includes("svc_pg"),
    gatewaySettingsFor: (tx: TransactionRow) =>
      merchantsRepo
        .listGateways(db, tx.merchant_id)
        .then((all) => all.filter((s) => tx.pg_codes.includes(s.pg_code))),
    /** Hosted page view: loads by session id alone (the id is the capability) and expires if due. */
    async loadForPage(sessionId: string): Promise<TransactionRow | undefined> {
      await deps.payments.expireDue(sessionId);
      const tx = await checkoutRepo.findBySession(db, sessionId);
      if (tx?.state === "created") return checkoutRepo.markPending(db, sessionId);
      return tx;
    },
  };
  return flow;
}
