import { randomBytes } from "node:crypto";
/**
 * The sandbox's memory. A restart forgets every payment, saved card and operation: fine for a
 * test gateway, and it keeps the sandbox free of any database. Documented in docs/gateways.md.
 */
import type { Operation } from "@svc/protocol";
import type { PaymentRequestBody } from "./validate.js";
import type { WireOperationResult, WirePaymentResult, WireSavedCard } from "./wire.js";

/** Wrong one-time codes allowed for a Wallet B payment before it is declined for good. */
export const OTP_MAX_ATTEMPTS = 3;

export interface SandboxOperation {
  gatewayOperationId: string;
  operation: Operation;
  amountMinor: number;
  /** svc's reference, absent for operations made on the sandbox's own dashboard. */
  referenceNumber?: string;
  source: "api" | "dashboard";
  status: "success" | "declined" | "queued" | "rejected";
  createdAt: string;
}

/** A payment as the gateway keeps it: the request it was created from, and what happened since. */
export interface SandboxPayment extends Omit<PaymentRequestBody, "instrument"> {
  pgReference: string;
  /** The current answer; mutated as the customer finishes a page or a code. */
  result: WirePaymentResult;
  /** Which gateway page the customer must visit while `result.status` is action_required. */
  page?: "challenge" | "redirect";
  /** Kept so a card approved after a challenge can still be saved. */
  pendingCard?: { card: WireSavedCard; save: boolean };
  mobileNumber?: string;
  otpAttemptsLeft: number;
  capturedMinor: number;
  refundedMinor: number;
  voidedMinor: number;
  operations: SandboxOperation[];
  createdAt: string;
}

export class SandboxState {
  readonly payments = new Map<string, SandboxPayment>();
  readonly paymentsByAttempt = new Map<string, string>();
  /** gateway token → the card it stands for. */
  readonly savedCards = new Map<string, WireSavedCard>();
  /** The key of card fingerprints (HMAC-SHA-256 of the number), one per sandbox instance. */
  readonly fingerprintKey = randomBytes(32);
  /** svc referenceNumber → the first answer given, replayed on a repeat. */
  readonly operationsByReference = new Map<
    string,
    { pgReference: string; operation: Operation; amountMinor: number; answer: WireOperationResult }
  >();
}
