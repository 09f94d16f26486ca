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
  /** The customer abandoned a gateway page. */
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
    }
  /** Final result of a payment that went through a gateway page (redirect flows). */
  | { type: "payment_result"; pgReference: string; result: GatewayPaymentResult; notificationId: string };

export interface GatewayAdapter {
  readonly kind: GatewayKind;
  /** Forms of payment this gateway accepts, and whether its operations are queued. */
  readonly formsOfPayment: readonly FormOfPayment[];
  readonly operations: readonly Operation[];
  readonly queued: boolean;
  pay(request: GatewayPaymentRequest): Promise<GatewayPaymentResult>;
  confirmOtp(pgReference: string, otp: string): Promise<GatewayPaymentResult>;
  /** The authoritative status of a payment, asked after the customer returns from a gateway page. */
  paymentStatus(pgReference: string): Promise<GatewayPaymentResult>;
  operate(request: GatewayOperationRequest): Promise<GatewayOperationResult>;
  /**
   * The answer to the operation svc sent under `referenceNumber`, asked when that answer was
   * lost (a timeout, a crash): the first answer the gateway gave, or undefined when it never
   * received the operation. Recovery then sends it again under the same reference, which the
   * gateway must treat as its idempotency key.
   */
  operationStatus(request: {
    pgCode: string;
    referenceNumber: string;
  }): Promise<GatewayOperationResult | undefined>;
  /**
   * The payment made for `attemptId`, asked when the answer to {@link pay} was lost; undefined
   * when the gateway never received that attempt.
   */
  paymentByAttempt(attemptId: string): Promise<GatewayPaymentResult | undefined>;
  /** Checks a notification's authenticity on the raw bytes, in constant time. */
  verifyNotification(
    rawBody: Buffer,
    headers: Record<string, string | string[] | undefined>,
    secret: string,
  ): boolean;
  /** Parses a verified notification body; throws on an unknown shape. */
  parseNotification(rawBody: Buffer): GatewayNotification;
}
