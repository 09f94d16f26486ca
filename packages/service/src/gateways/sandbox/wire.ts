/**
 * The sandbox gateway's JSON on the wire, shared by the server and the adapter. Keys are
 * snake_case like most gateway APIs, so the adapter does the same mapping a real one would.
 */
import type { Operation } from "@svc/protocol";
import type { PgResponse } from "../adapter.js";

export type WirePaymentStatus = "approved" | "declined" | "action_required" | "otp_required" | "canceled";

export interface WireSavedCard {
  gateway_token: string;
  brand: string;
  last4: string;
  expiry: string;
  /** A keyed hash of the card number: the same card gives the same fingerprint. */
  fingerprint?: string;
}

/** Body of every payment answer (pay, otp, status) and of `payment_result.result`. */
export interface WirePaymentResult {
  status: WirePaymentStatus;
  pg_reference: string;
  pg_response: PgResponse;
  redirect_url?: string;
  challenge_occurred?: boolean;
  saved_card?: WireSavedCard;
}

export type WireOperationStatus = "success" | "declined" | "queued";

export interface WireOperationResult {
  status: WireOperationStatus;
  pg_response: PgResponse;
}

/** Every notification carries these; `notification_id` is unique per notification (not per try). */
interface WireNotificationBase {
  notification_id: string;
  /** ISO 8601 time the event happened on the gateway. */
  created_at: string;
  is_sandbox: true;
}

export interface WireOperationResultNotification extends WireNotificationBase {
  type: "operation_result";
  reference_number: string;
  pg_reference: string;
  operation: Operation;
  status: "success" | "rejected";
  pg_response: PgResponse;
}

export interface WireOperationNotification extends WireNotificationBase {
  type: "operation";
  operation: Operation;
  pg_reference: string;
  gateway_operation_id: string;
  amount: string;
  currency: string;
  pg_response: PgResponse;
}

export interface WirePaymentResultNotification extends WireNotificationBase {
  type: "payment_result";
  pg_reference: string;
  result: WirePaymentResult;
}

export type WireNotification =
  WireOperationResultNotification | WireOperationNotification | WirePaymentResultNotification;

/** 4xx/5xx bodies: a stable code and a sentence telling what to fix. */
export interface WireError {
  error: string;
  message: string;
}
