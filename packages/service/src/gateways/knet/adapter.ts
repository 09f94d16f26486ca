/**
 * svc's adapter for KNET, Kuwait's national debit network, on KNET's "raw" integration (its
 * Merchant Integration Manual K-064 v1.4): the customer pays on KNET's page (the `redirect` form
 * of payment) with trandata svc builds and encrypts; KNET posts its encrypted response to svc's
 * notification endpoint, which svc believes only once KNET's inquiry (action 8) confirms it;
 * refunds go through KNET's server API (action 2).
 *
 * What KNET does not offer shapes the rest: no idempotency and no query of a refund, so a refund
 * whose answer was lost is never sent again (`recoversOperations: false`); no notifications of
 * its own (a customer who closed the browser is found by inquiry); KWD only; no capture or void.
 */
import { Pool } from "undici";
import {
  type GatewayAdapter,
  type GatewayOperationRequest,
  type GatewayOperationResult,
  type GatewayPaymentRef,
  type GatewayPaymentRequest,
  type GatewayPaymentResult,
  type InboundNotification,
  type NotificationContext,
  type NotificationRead,
} from "../adapter.js";
import { GATEWAY_CAPABILITIES } from "../capabilities.js";
import type { GatewayConnection } from "../connection.js";
import { GatewayError } from "../gateway-error.js";
import {
  filsOf,
  KNET_CURRENCY_KWD,
  KNET_LANG,
  KNET_PRODUCTION_HOST,
  knetAmount,
  paymentInitPlain,
  paymentPageUrl,
} from "./fields.js";
import {
  inquiryFields,
  inquiryPaid,
  KNET_NOT_FOUND,
  type KnetTerminal,
  refundFields,
  type TranPipeAnswer,
  tranPipe,
} from "./inquiry.js";
import { present } from "./xml.js";
import { knetResponse, readKnetResponse } from "./response.js";
import { encryptTrandata } from "./trandata.js";

/** Idle keep-alive sockets to KNET are closed after this. */
const KEEP_ALIVE_MS = 30_000;
/**
 * A payment KNET still has no transaction for this long after it started was never paid: the
 * customer left KNET's page (whose own session ends well before this). Until then, "not found"
 * means the customer may still be paying.
 */
export const KNET_ABANDONED_AFTER_MS = 30 * 60_000;
/**
 * How long svc's handler of KNET's response may spend before its inquiry has answered. KNET
 * waits about 10 s for the `REDIRECT=` line and then reverses the payment (its manual, 9.2.1;
 * the stand-in's MERCHANT_TIMEOUT_MS mirrors it): an inquiry still unanswered after this is given
 * up, svc answers `REDIRECT=` in time, and the payment is confirmed by a later inquiry (the
 * result page's poll, the sweep). The rest of KNET's wait is left for svc's own work.
 */
export const KNET_RESPONSE_INQUIRY_BUDGET_MS = 4_000;

/** A request svc refuses to send to KNET: nothing left, so its outcome is known. */
const refused = (message: string) =>
  new GatewayError("gateway_request_rejected", message, { outcomeUnknown: false });

/**
 * The longest track id svc makes. KNET takes 40 in `trackid`, but an inquiry or a refund by track
 * id carries it in `transid`, which the manual's field table (3.5.4) gives as STRING 19: 19 fits both.
 */
const TRACK_ID_MAX = 19;

/**
 * svc's attempt id as KNET's track id: the first 19 characters of its random part (base32: 95
 * random bits), letters and digits only. One attempt, one track id; it is kept as the attempt's
 * pg_reference when the payment starts, so it is derived again only for an attempt that never
 * reached KNET.
 */
export function trackIdOf(attemptId: string): string {
  return attemptId
    .slice(attemptId.indexOf("_") + 1)
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, TRACK_ID_MAX);
}

/**
 * What in a server API answer names another transaction than (`trackId`, `amountMinor` fils): its
 * track id or its amount, in words; undefined when it names this one or nothing. An empty tag
 * names nothing: the manual's refund sample (3.7.3) has `<amt></amt>`, and FSS iPay writes "null"
 * in a tag it has nothing for. Amounts compare as amounts (`1`, `1.0`, `1.000`).
 */
function otherTransaction(
  fields: Record<string, string>,
  trackId: string,
  amountMinor: number,
): string | undefined {
  const trackid = present(fields.trackid);
  if (trackid !== undefined && trackid !== trackId) return `track id ${JSON.stringify(trackid)}`;
  const amt = present(fields.amt);
  if (amt !== undefined && filsOf(amt) !== amountMinor) return `amount ${JSON.stringify(amt)}`;
  return undefined;
}

export class KnetGatewayAdapter implements GatewayAdapter {
  readonly kind = "knet" as const;
  readonly formsOfPayment = GATEWAY_CAPABILITIES.knet.formsOfPayment;
  readonly operations = GATEWAY_CAPABILITIES.knet.operations;
  readonly queued = false;
  readonly recoversOperations = false;
  private readonly pool: Pool;
  private readonly base: URL;
  private readonly responseInquiryBudgetMs: number;

  constructor(
    private readonly terminal: KnetTerminal,
    baseUrl: string,
    private readonly timeoutMs: number,
    private readonly now: () => Date = () => new Date(),
    options: { responseInquiryBudgetMs?: number } = {},
  ) {
    this.responseInquiryBudgetMs = options.responseInquiryBudgetMs ?? KNET_RESPONSE_INQUIRY_BUDGET_MS;
    this.base = new URL(baseUrl);
    this.pool = new Pool(this.base.origin, {
      keepAliveTimeout: KEEP_ALIVE_MS,
      connect: { timeout: timeoutMs },
    });
  }

  /** No call to KNET: the customer's browser takes the encrypted trandata to KNET's page. */
  async pay(request: GatewayPaymentRequest): Promise<GatewayPaymentResult> {
    if (request.currency !== "KWD") throw refused(`KNET takes KWD only, not ${request.currency}.`);
    if (request.operation !== "purchase") throw refused("KNET's authorisation is not enabled: use purchase.");
    const trackId = trackIdOf(request.attemptId);
    // KNET wants response and error URLs without a query string (its sample kit, 3.5.4).
    const errorUrl = request.returnUrl.split("?")[0]!;
    const plain = paymentInitPlain({
      id: this.terminal.tranportalId,
      password: this.terminal.password,
      action: "1",
      langid: KNET_LANG[request.language],
      currencycode: KNET_CURRENCY_KWD,
      amt: knetAmount(request.amountMinor),
      responseURL: request.notificationUrl,
      errorURL: errorUrl,
      trackid: trackId,
      // The session id, so KNET's reports and portal lead back to svc's payment.
      udf1: request.sessionId,
      udf2: "",
      udf3: "",
      udf4: "",
      udf5: "",
    });
    const redirectUrl = paymentPageUrl(this.base.toString().replace(/\/+$/, ""), {
      trandata: encryptTrandata(plain, this.terminal.resourceKey),
      tranportalId: this.terminal.tranportalId,
      responseURL: request.notificationUrl,
      errorURL: errorUrl,
    });
    return { status: "action_required", pgReference: trackId, redirectUrl, pgResponse: { trackid: trackId } };
  }

  async confirmOtp(): Promise<GatewayPaymentResult> {
    throw refused("KNET has no one-time codes.");
  }

  /** KNET's inquiry, by track id with the original amount, answered within `timeoutMs`. */
  private inquire(
    ref: Pick<GatewayPaymentRef, "pgReference" | "attemptId" | "amountMinor">,
    timeoutMs: number,
  ): Promise<TranPipeAnswer> {
    const trackId = ref.pgReference ?? trackIdOf(ref.attemptId);
    return tranPipe(
      this.pool,
      this.basePath,
      timeoutMs,
      inquiryFields(this.terminal, trackId, knetAmount(ref.amountMinor)),
    );
  }

  private get basePath(): string {
    return this.base.pathname.replace(/\/+$/, "");
  }

  /**
   * What KNET's inquiry says of a payment: approved (SUCCESS or CAPTURED), declined (FAILURE,
   * SUSPECTED, …), or undefined when KNET has no transaction for that track id. An inquiry KNET
   * refuses (a wrong password, an amount that is not the original's) tells nothing: it throws;
   * so does one that fails or answers something that is not KNET's (unknown: ask again later).
   */
  private async confirmed(
    ref: GatewayPaymentRef,
    timeoutMs = this.timeoutMs,
  ): Promise<GatewayPaymentResult | undefined> {
    const answer = await this.inquire(ref, timeoutMs);
    const trackId = ref.pgReference ?? trackIdOf(ref.attemptId);
    if (answer.error?.code === KNET_NOT_FOUND) return undefined;
    const pgResponse = knetResponse(answer.fields, answer.error);
    // The manual (3.5.3) asks that an inquiry's answer tally with the merchant's records: one
    // about another payment or amount tells nothing of this one (unknown: asked again later).
    const other = otherTransaction(answer.fields, trackId, ref.amountMinor);
    if (!answer.error && other)
      throw new GatewayError(
        "gateway_unavailable",
        `KNET's inquiry answered about ${other}, not this payment's`,
        {
          outcomeUnknown: true,
          pgResponse,
        },
      );
    if (inquiryPaid(answer)) return { status: "approved", pgReference: trackId, pgResponse };
    if (answer.error)
      throw new GatewayError(
        "gateway_request_rejected",
        `KNET refused the inquiry: ${answer.error.code} ${answer.error.text}`,
        { pgResponse },
      );
    return { status: "declined", pgReference: trackId, pgResponse };
  }

  async paymentStatus(ref: GatewayPaymentRef): Promise<GatewayPaymentResult> {
    const found = await this.confirmed(ref);
    if (found) return found;
    const trackId = ref.pgReference ?? trackIdOf(ref.attemptId);
    if (this.now().getTime() - ref.startedAt.getTime() < KNET_ABANDONED_AFTER_MS)
      return {
        status: "action_required",
        pgReference: trackId,
        redirectUrl: ref.redirectUrl ?? ref.returnUrl,
        pgResponse: { trackid: trackId },
      };
    return {
      status: "canceled",
      pgReference: trackId,
      pgResponse: {
        trackid: trackId,
        result: "NOT FOUND",
        error_code: KNET_NOT_FOUND,
        error_text: "KNET has no transaction for this track id: the customer never paid",
      },
    };
  }

  async paymentByAttempt(ref: GatewayPaymentRef): Promise<GatewayPaymentResult | undefined> {
    return this.confirmed(ref);
  }

  async operate(request: GatewayOperationRequest): Promise<GatewayOperationResult> {
    if (request.operation !== "refund") throw refused(`KNET does not support ${request.operation}.`);
    const answer = await tranPipe(
      this.pool,
      this.basePath,
      this.timeoutMs,
      refundFields(this.terminal, request.pgReference, knetAmount(request.amountMinor)),
    );
    // KNET's manual (3.7.3): a refund succeeded only when result is CAPTURED; anything else failed.
    const pgResponse = knetResponse(answer.fields, answer.error);
    if (answer.error || answer.fields.result !== "CAPTURED") return { status: "declined", pgResponse };
    // A CAPTURED about another payment or another amount is not an answer to this refund: what
    // KNET did is unknown.
    const other = otherTransaction(answer.fields, request.pgReference, request.amountMinor);
    if (other)
      throw new GatewayError(
        "gateway_unavailable",
        `KNET answered CAPTURED for ${other}, not this refund's: its outcome is unknown`,
        { outcomeUnknown: true, pgResponse },
      );
    return { status: "success", pgResponse };
  }

  /** Never asked (`recoversOperations` is false): KNET cannot tell what became of a refund. */
  async operationStatus(): Promise<GatewayOperationResult | undefined> {
    throw new Error("KNET offers no query of an operation; svc never asks it");
  }

  async readNotification(
    input: InboundNotification,
    context: NotificationContext,
  ): Promise<NotificationRead> {
    // KNET is waiting for this handler's answer: its inquiry gets what is left of the budget.
    const deadline = Date.now() + Math.min(this.responseInquiryBudgetMs, this.timeoutMs);
    return readKnetResponse(input, context, {
      resourceKey: this.terminal.resourceKey,
      confirm: async (ref) => {
        const left = deadline - Date.now();
        if (left <= 0)
          throw new GatewayError(
            "gateway_unavailable",
            "No time was left to ask KNET before its wait for REDIRECT= ends",
          );
        return this.confirmed(ref, left);
      },
    });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** The registry's factory for KNET settings. */
export function createKnetAdapter(
  connection: GatewayConnection,
  credentials: Record<string, string>,
  options: { timeoutMs: number },
): KnetGatewayAdapter {
  return new KnetGatewayAdapter(
    {
      tranportalId: credentials.tranportal_id ?? "",
      password: credentials.tranportal_password ?? "",
      resourceKey: credentials.resource_key ?? "",
    },
    connection.api_base_url ?? KNET_PRODUCTION_HOST,
    options.timeoutMs,
  );
}
