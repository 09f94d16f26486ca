/**
 * svc's adapter for Stripe, on the official `stripe` package (API version pinned in client.ts).
 * The hosted card page's card goes to a PaymentIntent (`payment_method_data`, Stripe's raw card
 * data API) confirmed at once; 3-D Secure goes through `return_url` (the customer visits the
 * bank's page and comes back to svc, which asks Stripe). Every POST carries an Idempotency-Key:
 * the attempt id for a payment, the reference number for an operation, so a request sent again
 * after a lost answer is one payment or one refund at Stripe. Stripe's events reach svc at the
 * setting's notification URL, verified with the setting's webhook signing secret (events.ts).
 */
import type Stripe from "stripe";
import type {
  GatewayAdapter,
  GatewayOperationRequest,
  GatewayOperationResult,
  GatewayPaymentRef,
  GatewayPaymentRequest,
  GatewayPaymentResult,
  InboundNotification,
  NotificationContext,
  NotificationRead,
} from "../adapter.js";
import { GATEWAY_CAPABILITIES } from "../capabilities.js";
import type { GatewayConnection } from "../connection.js";
import { GatewayError } from "../gateway-error.js";
import { errorResponse, stripeClient, transportError } from "./client.js";
import { stripeAmountProblem, toStripeAmount } from "./currency.js";
import { readStripeEvent } from "./events.js";
import { paymentResultOf, refundResultOf } from "./mapping.js";

/** How far around an attempt's start svc looks for its PaymentIntent when the answer was lost. */
const LOOKUP_WINDOW_MS = 15 * 60_000;
/**
 * The most objects a look-up reads (a hundred pages of Stripe's largest) before it gives up
 * saying "not there": past it, the outcome is unknown (firstListed).
 */
const LOOKUP_MAX_OBJECTS = 10_000;
/** The statuses Stripe gives a Refund and a PaymentIntent (docs.stripe.com/api/refunds/object, …/payment_intents/object). */
const REFUND_STATUSES = ["pending", "requires_action", "succeeded", "failed", "canceled"];
const PAYMENT_INTENT_STATUSES = [
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
  "processing",
  "requires_capture",
  "canceled",
  "succeeded",
];

export class StripeGatewayAdapter implements GatewayAdapter {
  readonly kind = "stripe" as const;
  readonly formsOfPayment = GATEWAY_CAPABILITIES.stripe.formsOfPayment;
  readonly operations = GATEWAY_CAPABILITIES.stripe.operations;
  readonly queued = false;
  readonly recoversOperations = true;

  constructor(
    private readonly stripe: Stripe,
    private readonly webhookSecret: string,
    /**
     * How long a whole call may take. The client's own `timeout` only ends a silence, so an
     * answer dripped a byte at a time would hold a refund for ever without this.
     */
    private readonly deadlineMs = 0,
    /** LOOKUP_MAX_OBJECTS; lower in tests. */
    private readonly lookupMax = LOOKUP_MAX_OBJECTS,
  ) {}

  /** Runs one Stripe call; Stripe's own answers (errors included) come back, transport failures throw. */
  private async call<T>(
    what: string,
    fn: () => Promise<T>,
    /** false for a paged list: its pages are calls of their own, each ended by the idle timeout. */
    bounded = true,
  ): Promise<{ ok: T } | { refused: Stripe.errors.StripeError }> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const call = fn();
      if (this.deadlineMs <= 0 || !bounded) return { ok: await call };
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new GatewayError(
                "gateway_unavailable",
                `Stripe did not finish answering the ${what} within ${this.deadlineMs} ms: its outcome is unknown`,
                { outcomeUnknown: true },
              ),
            ),
          this.deadlineMs,
        );
      });
      call.catch(() => {}); // the late answer, if any, is not waited for
      return { ok: await Promise.race([call, deadline]) };
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      const transport = transportError(error, what);
      if (transport) throw transport;
      return { refused: error as Stripe.errors.StripeError };
    } finally {
      clearTimeout(timer);
    }
  }

  async pay(request: GatewayPaymentRequest): Promise<GatewayPaymentResult> {
    if (request.instrument.type !== "card")
      throw new GatewayError("gateway_request_rejected", "Stripe takes cards from svc's card page only.", {
        outcomeUnknown: false,
      });
    const problem = stripeAmountProblem(request.amountMinor, request.currency);
    if (problem) throw new GatewayError("gateway_request_rejected", problem, { outcomeUnknown: false });
    const card = request.instrument;
    const declined = (error: Stripe.errors.StripeError): GatewayPaymentResult => {
      const raw = error.raw as { payment_intent?: { id?: string } } | undefined;
      return {
        status: "declined",
        pgReference: raw?.payment_intent?.id ?? "",
        pgResponse: errorResponse(error),
      };
    };
    // The card goes in payment_method_data, which Stripe takes for accounts with raw card data
    // access; the package's published types leave that member out (it is gated), hence the type.
    const paymentMethodData = {
      type: "card",
      card: { number: card.number, exp_month: card.expiryMonth, exp_year: card.expiryYear, cvc: card.cvc },
      ...(card.holder ? { billing_details: { name: card.holder } } : {}),
    } as Stripe.PaymentIntentCreateParams.PaymentMethodData;
    const intent = await this.call("payment", () =>
      this.stripe.paymentIntents.create(
        {
          amount: toStripeAmount(request.amountMinor, request.currency),
          currency: request.currency.toLowerCase(),
          payment_method_data: paymentMethodData,
          allowed_payment_method_types: ["card"],
          confirm: true,
          capture_method: request.operation === "authorize" ? "manual" : "automatic",
          return_url: request.returnUrl,
          description: `svc ${request.sessionId}`,
          metadata: { session_id: request.sessionId, attempt_id: request.attemptId, pg_code: request.pgCode },
        },
        { idempotencyKey: request.attemptId },
      ),
    );
    if ("refused" in intent) return declined(intent.refused);
    return paymentResultOf(intent.ok, request.returnUrl);
  }

  async confirmOtp(): Promise<GatewayPaymentResult> {
    throw new GatewayError("gateway_request_rejected", "Stripe has no one-time codes here.", {
      outcomeUnknown: false,
    });
  }

  private async retrieve(id: string, waitUrl: string): Promise<GatewayPaymentResult> {
    const got = await this.call("payment status", () =>
      this.stripe.paymentIntents.retrieve(id, { expand: ["latest_charge"] }),
    );
    if ("refused" in got)
      throw new GatewayError(
        "gateway_request_rejected",
        `Stripe refused the payment status: ${got.refused.message}`,
        {
          pgResponse: errorResponse(got.refused),
        },
      );
    return paymentResultOf(got.ok, waitUrl);
  }

  async paymentStatus(ref: GatewayPaymentRef): Promise<GatewayPaymentResult> {
    if (ref.pgReference) return this.retrieve(ref.pgReference, ref.returnUrl);
    const found = await this.paymentByAttempt(ref);
    if (!found)
      throw new GatewayError("gateway_unavailable", "Stripe has no PaymentIntent for this attempt yet.");
    return found;
  }

  /**
   * The PaymentIntent made for the attempt: among those created around its start (a list is
   * consistent at once, unlike Stripe's search), the one whose metadata names the attempt.
   */
  async paymentByAttempt(ref: GatewayPaymentRef): Promise<GatewayPaymentResult | undefined> {
    if (ref.pgReference) return this.retrieve(ref.pgReference, ref.returnUrl);
    const started = Math.floor(ref.startedAt.getTime() / 1000);
    const window = LOOKUP_WINDOW_MS / 1000;
    const listed = await this.call(
      "payment lookup",
      () =>
        firstListed(
          this.stripe.paymentIntents.list({
            created: { gte: started - window, lte: started + window },
            limit: 100,
          }),
          (p) => p.metadata?.attempt_id === ref.attemptId,
          { what: `the PaymentIntent of attempt ${ref.attemptId}`, max: this.lookupMax },
        ),
      false,
    );
    if ("refused" in listed)
      throw new GatewayError(
        "gateway_request_rejected",
        `Stripe refused the lookup: ${listed.refused.message}`,
      );
    return listed.ok ? this.retrieve(listed.ok.id, ref.returnUrl) : undefined;
  }

  async operate(request: GatewayOperationRequest): Promise<GatewayOperationResult> {
    const amount = toStripeAmount(request.amountMinor, request.currency);
    const options = { idempotencyKey: request.referenceNumber };
    const answer =
      request.operation === "refund"
        ? await this.call("refund", () =>
            this.stripe.refunds.create(
              {
                payment_intent: request.pgReference,
                amount,
                metadata: { reference_number: request.referenceNumber, pg_code: request.pgCode },
              },
              options,
            ),
          )
        : request.operation === "capture"
          ? await this.call("capture", () =>
              this.stripe.paymentIntents.capture(
                request.pgReference,
                { amount_to_capture: amount, metadata: { capture_reference: request.referenceNumber } },
                options,
              ),
            )
          : await this.call("void", () =>
              this.stripe.paymentIntents.cancel(
                request.pgReference,
                { cancellation_reason: "requested_by_customer" },
                options,
              ),
            );
    if ("refused" in answer) return { status: "declined", pgResponse: errorResponse(answer.refused) };
    const object = answer.ok as Partial<Stripe.Refund | Stripe.PaymentIntent> | null;
    // An answer that is not what Stripe answers (an empty object, another kind, a status Stripe
    // does not have) says nothing about what Stripe did: the outcome is unknown, never a decline
    // (a merchant told "declined" would refund again).
    const expected = request.operation === "refund" ? "refund" : "payment_intent";
    const statuses = request.operation === "refund" ? REFUND_STATUSES : PAYMENT_INTENT_STATUSES;
    if (
      object === null ||
      typeof object !== "object" ||
      object.object !== expected ||
      typeof object.status !== "string" ||
      !statuses.includes(object.status)
    )
      throw new GatewayError(
        "gateway_unavailable",
        `Stripe answered the ${request.operation} with something that is not a ${expected}: its outcome is unknown`,
        { outcomeUnknown: true, pgResponse: { raw: JSON.stringify(object)?.slice(0, 500) ?? "" } },
      );
    if (object.object === "refund") return refundResultOf(object as Stripe.Refund);
    const done =
      request.operation === "capture" ? object.status === "succeeded" : object.status === "canceled";
    return {
      status: done ? "success" : "declined",
      pgResponse: paymentResultOf(object as Stripe.PaymentIntent, "").pgResponse,
    };
  }

  /**
   * What became of an operation whose answer was lost: a refund is found by the reference in its
   * metadata; a capture by the reference it wrote on the PaymentIntent; a void by the
   * PaymentIntent being canceled. Not found: undefined, and svc sends it again under the same key.
   */
  async operationStatus(request: GatewayOperationRequest): Promise<GatewayOperationResult | undefined> {
    if (request.operation === "refund") {
      const listed = await this.call(
        "refund lookup",
        () =>
          firstListed(
            this.stripe.refunds.list({ payment_intent: request.pgReference, limit: 100 }),
            (r) => r.metadata?.reference_number === request.referenceNumber,
            { what: `the refund ${request.referenceNumber}`, max: this.lookupMax },
          ),
        false,
      );
      if ("refused" in listed) throw lookupRefused(listed.refused);
      return listed.ok ? refundResultOf(listed.ok) : undefined;
    }
    const got = await this.call("payment status", () =>
      this.stripe.paymentIntents.retrieve(request.pgReference),
    );
    if ("refused" in got) throw lookupRefused(got.refused);
    const pi = got.ok;
    const pgResponse = paymentResultOf(pi, "").pgResponse;
    if (request.operation === "capture")
      return pi.metadata?.capture_reference === request.referenceNumber
        ? { status: "success", pgResponse }
        : undefined;
    return pi.status === "canceled" ? { status: "success", pgResponse } : undefined;
  }

  async readNotification(
    input: InboundNotification,
    context: NotificationContext,
  ): Promise<NotificationRead> {
    return readStripeEvent(input, context, { stripe: this.stripe, webhookSecret: this.webhookSecret });
  }

  async close(): Promise<void> {
    // The client's keep-alive agent closes its idle sockets by itself.
  }
}

/** Stripe refused to say what became of an operation: it stays unknown (never assumed either way). */
function lookupRefused(error: Stripe.errors.StripeError): GatewayError {
  return new GatewayError("gateway_unavailable", `Stripe refused the lookup: ${error.message}`, {
    outcomeUnknown: true,
    pgResponse: errorResponse(error),
  });
}

/**
 * The first object of a Stripe list that `matches`, read page by page only until it is found
 * (lists are newest first, so a recent attempt's PaymentIntent is on the first page); undefined
 * when the list ends without it. A list longer than `max` objects is not read to its end, and
 * the object is then neither found nor known to be absent: that throws, outcome unknown, so the
 * caller asks again later rather than act as if Stripe had none (until 2026-11-29 the look-ups
 * read at most 10,000 objects and answered "not there" past them).
 */
export async function firstListed<T>(
  list: AsyncIterable<T>,
  matches: (item: T) => boolean,
  { what, max }: { what: string; max: number },
): Promise<T | undefined> {
  let read = 0;
  for await (const item of list) {
    if (read === max)
      throw new GatewayError(
        "gateway_unavailable",
        `Stripe listed more than ${max} objects where svc looked for ${what}: whether it is there is unknown`,
        { outcomeUnknown: true },
      );
    if (matches(item)) return item;
    read += 1;
  }
  return undefined;
}

/** The registry's factory for Stripe settings. */
export function createStripeAdapter(
  connection: GatewayConnection,
  credentials: Record<string, string>,
  options: { timeoutMs: number; lookupMax?: number },
): StripeGatewayAdapter {
  return new StripeGatewayAdapter(
    stripeClient(credentials.secret_key ?? "", {
      baseUrl: connection.api_base_url,
      timeoutMs: options.timeoutMs,
    }),
    credentials.webhook_secret ?? "",
    options.timeoutMs,
    options.lookupMax,
  );
}
