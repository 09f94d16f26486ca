/**
 * The seam where a payment gateway plugs into svc. The service never talks to a gateway except
 * through a GatewayAdapter, and the sandbox gateways are reached through one too, over real HTTP,
 * so the sandbox path is the path a production gateway takes. To add a real gateway, implement
 * this interface and register it for a gateway kind (see docs/gateways.md).
 *
 * Amounts cross this seam twice: as minor units (for arithmetic) and as the wire string (what a
 * gateway's API expects), both computed by the service from the transaction's currency.
 */
import type { FormOfPayment, GatewayKind, Language, Operation, PaymentOperation } from "@svc/protocol";

/** What the customer pays with. Card numbers pass through and are never stored by svc. */
export type PaymentInstrument =
  | { type: "wallet_b"; mobileNumber: string }
  | { type: "wallet_a"; paymentToken: string }
  | {
      type: "card";
      number: string;
      expiryMonth: number;
      expiryYear: number;
      cvc: string;
      holder?: string;
      save: boolean;
    }
  | { type: "token"; gatewayToken: string }
  | { type: "redirect" };

export interface GatewayPaymentRequest {
  pgCode: string;
  kind: GatewayKind;
  /** The parent's session id; gateways show it as the merchant reference. */
  sessionId: string;
  /** Unique per attempt; a gateway must treat a repeated attemptId as the same payment (idempotency). */
  attemptId: string;
  amount: string;
  amountMinor: number;
  currency: string;
  operation: PaymentOperation;
  formOfPayment: FormOfPayment;
  instrument: PaymentInstrument;
  language: Language;
  /** Where the gateway sends the customer's browser back after a redirect or challenge page. */
  returnUrl: string;
  /** Where the gateway posts notifications for this payment and its later operations. */
  notificationUrl: string;
}

export interface SavedCard {
  gatewayToken: string;
  brand: string;
  last4: string;
  /** "MM/YY" */
  expiry: string;
  /** The gateway's fingerprint of the card (same card, same value), when it gives one. */
  fingerprint?: string;
}

/** pg_response is always a JSON object (a non-JSON gateway reply is wrapped as {raw}). */
export type PgResponse = Record<string, unknown>;

export type GatewayPaymentResult =
  | {
      status: "approved";
      pgReference: string;
      pgResponse: PgResponse;
      challengeOccurred?: boolean;
      savedCard?: SavedCard;
    }
  | { status: "declined"; pgReference: string; pgResponse: PgResponse; challengeOccurred?: boolean }
  /** The customer must visit `redirectUrl` (a gateway page or a 3-D Secure style challenge). */
  | { status: "action_required"; pgReference: string; redirectUrl: string; pgResponse: PgResponse }
  /** Wallet B: a one-time code was sent to the mobile number; confirm it with confirmOtp. */
  | { status: "otp_required"; pgReference: string; pgResponse: PgResponse }
  /** The customer abandoned a gateway page (or never finished it). */
  | { status: "canceled"; pgReference: string; pgResponse: PgResponse };

export interface GatewayOperationRequest {
  pgCode: string;
  kind: GatewayKind;
  operation: Operation;
  /** The gateway's reference of the parent payment. */
  pgReference: string;
  /** svc's unique reference for this operation; the gateway echoes it in notifications. */
  referenceNumber: string;
  amount: string;
  amountMinor: number;
  currency: string;
  notificationUrl: string;
}

export type GatewayOperationResult =
  | { status: "success"; pgResponse: PgResponse }
  | { status: "declined"; pgResponse: PgResponse }
  | { status: "queued"; pgResponse: PgResponse };

/** What a gateway tells svc on its notification endpoint. */
export type GatewayNotification =
  /** Final result of a queued operation svc asked for. */
  | {
      type: "operation_result";
      referenceNumber: string;
      status: "success" | "rejected";
      pgResponse: PgResponse;
      notificationId: string;
    }
  /**
   * An operation made on the gateway's own dashboard, which svc relayed as done, reported failed
   * later (Stripe: a refund that succeeded, then failed). Found by the gateway's id of it.
   */
  | {
      type: "operation_reversed";
      gatewayOperationId: string;
      pgResponse: PgResponse;
      notificationId: string;
    }
  /** An operation performed on the gateway's own dashboard (svc relays it with source "pg"). */
  | {
      type: "operation";
      operation: Operation;
      pgReference: string;
      /** The gateway's own id of the operation; svc dedupes on it. */
      gatewayOperationId: string;
      amount: string;
      currency: string;
      pgResponse: PgResponse;
      notificationId: string;
      /**
       * The gateway reports svc's own operations of this kind too, without saying which are svc's
       * (Stripe tells every cancel of a PaymentIntent, and a cancel carries no reference): svc
       * then takes the report for its own operation while one of that kind is done or on its way.
       */
      includesOwn?: boolean;
    }
  /** Final result of a payment that went through a gateway page (redirect flows). */
  | {
      type: "payment_result";
      pgReference: string;
      result: GatewayPaymentResult;
      notificationId: string;
      /**
       * The attempt the gateway's own record names (Stripe: the PaymentIntent's metadata), for an
       * attempt whose gateway reference svc never stored (the answer to the payment was lost).
       */
      attemptId?: string;
    };

/**
 * A payment svc asks a gateway about: the attempt as svc recorded it. A gateway that cannot look
 * a payment up by svc's attempt id finds it from the rest (KNET by track id with the original
 * amount, Stripe among the PaymentIntents created around `startedAt`).
 */
export interface GatewayPaymentRef {
  pgCode: string;
  sessionId: string;
  attemptId: string;
  /** The gateway's reference, once it gave one (KNET: the track id; Stripe: the PaymentIntent id). */
  pgReference: string | null;
  amount: string;
  amountMinor: number;
  currency: string;
  operation: PaymentOperation;
  /** When the attempt started. */
  startedAt: Date;
  /** The gateway page the customer was sent to, if any (kept while the payment waits on it). */
  redirectUrl: string | null;
  /** Where the customer's browser comes back to svc for this payment (svc's result page). */
  returnUrl: string;
}

/** What a gateway posted to svc's notification endpoint, as received. */
export interface InboundNotification {
  /** The exact bytes: signatures cover them, so they are never re-serialised. */
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
  /** The media type of the body, lower case, without parameters. */
  contentType: string;
}

/** What svc can tell an adapter while it reads a notification. */
export interface NotificationContext {
  /** The payment svc knows under this gateway reference on this setting, if any. */
  paymentByReference(pgReference: string): Promise<GatewayPaymentRef | undefined>;
  /** The payment of this setting svc made as attempt `attemptId`, if any. */
  paymentByAttempt(attemptId: string): Promise<GatewayPaymentRef | undefined>;
}

/** An authenticated notification, read. */
export interface NotificationRead {
  /** What it tells svc (none: nothing to apply, e.g. an event type svc does not use). */
  notifications: GatewayNotification[];
  /** What to keep of it as received and as read (table gateway_messages). */
  record?: { pgReference: string | null; raw: string; decoded: Record<string, unknown>; outcome: string };
  /**
   * The gateway's protocol answer, when it is not svc's JSON receipt (KNET: the one line
   * `REDIRECT=<svc's result page>` that sends the customer's browser back).
   */
  reply?: { contentType: string; body: string };
}

/** Thrown by {@link GatewayAdapter.readNotification} for a notification that does not authenticate. */
export class NotificationRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NotificationRejected";
  }
}

export interface GatewayAdapter {
  readonly kind: GatewayKind;
  /** Forms of payment this gateway accepts, and whether its operations are queued. */
  readonly formsOfPayment: readonly FormOfPayment[];
  readonly operations: readonly Operation[];
  readonly queued: boolean;
  /** See GatewayCapabilities.recoversOperations: false means {@link operationStatus} is never asked. */
  readonly recoversOperations: boolean;
  pay(request: GatewayPaymentRequest): Promise<GatewayPaymentResult>;
  confirmOtp(pgReference: string, otp: string): Promise<GatewayPaymentResult>;
  /**
   * The authoritative status of a payment, asked after the customer returns from a gateway page,
   * while the checkout polls, and by the sweep. `action_required` while it still waits on the customer.
   */
  paymentStatus(ref: GatewayPaymentRef): Promise<GatewayPaymentResult>;
  operate(request: GatewayOperationRequest): Promise<GatewayOperationResult>;
  /**
   * The answer to the operation svc sent under `request.referenceNumber`, asked when that answer
   * was lost (a timeout, a crash): the first answer the gateway gave, or undefined when it never
   * received the operation. Recovery then sends it again under the same reference, which the
   * gateway must treat as its idempotency key. Never asked when `recoversOperations` is false.
   */
  operationStatus(request: GatewayOperationRequest): Promise<GatewayOperationResult | undefined>;
  /**
   * The payment made for the attempt, asked when the answer to {@link pay} was lost; undefined
   * when the gateway never received that attempt.
   */
  paymentByAttempt(ref: GatewayPaymentRef): Promise<GatewayPaymentResult | undefined>;
  /**
   * Authenticates (on the raw bytes, in constant time) and reads what the gateway posted to svc's
   * notification endpoint. Throws {@link NotificationRejected} when it does not authenticate
   * (nothing changes), any other error for a malformed body.
   */
  readNotification(input: InboundNotification, context: NotificationContext): Promise<NotificationRead>;
  /** Closes the adapter's connections (on service shutdown or when its setting changed). */
  close(): Promise<void>;
}
