/**
 * Wire JSON → adapter result types. Each function returns undefined for a shape it does not
 * know, and the caller decides whether that is a decline (a live answer) or an error (a notification).
 */
import { OPERATIONS, type Operation } from "@svc/protocol";
import type { GatewayOperationResult, GatewayPaymentResult, PgResponse, SavedCard } from "../adapter.js";

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isOperation(value: unknown): value is Operation {
  return typeof value === "string" && (OPERATIONS as readonly string[]).includes(value);
}

function toSavedCard(value: unknown): SavedCard | undefined {
  if (!isObject(value)) return undefined;
  const { gateway_token, brand, last4, expiry, fingerprint } = value;
  if (
    typeof gateway_token !== "string" ||
    typeof brand !== "string" ||
    typeof last4 !== "string" ||
    typeof expiry !== "string"
  ) {
    return undefined;
  }
  return {
    gatewayToken: gateway_token,
    brand,
    last4,
    expiry,
    ...(typeof fingerprint === "string" && fingerprint ? { fingerprint } : {}),
  };
}

export function toPaymentResult(value: unknown): GatewayPaymentResult | undefined {
  if (!isObject(value) || typeof value.pg_reference !== "string" || !isObject(value.pg_response))
    return undefined;
  const pgReference = value.pg_reference;
  const pgResponse: PgResponse = value.pg_response;
  const challenge = value.challenge_occurred === true ? { challengeOccurred: true } : {};
  switch (value.status) {
    case "approved": {
      const savedCard = toSavedCard(value.saved_card);
      return {
        status: "approved",
        pgReference,
        pgResponse,
        ...challenge,
        ...(savedCard ? { savedCard } : {}),
      };
    }
    case "declined":
      return { status: "declined", pgReference, pgResponse, ...challenge };
    case "action_required":
      if (typeof value.redirect_url !== "string") return undefined;
      return { status: "action_required", pgReference, redirectUrl: value.redirect_url, pgResponse };
    case "otp_required":
      return { status: "otp_required", pgReference, pgResponse };
    case "canceled":
      return { status: "canceled", pgReference, pgResponse };
    default:
      return undefined;
  }
}

export function toOperationResult(value: unknown): GatewayOperationResult | undefined {
  if (!isObject(value) || !isObject(value.pg_response)) return undefined;
  const pgResponse: PgResponse = value.pg_response;
  if (value.status === "success" || value.status === "declined" || value.status === "queued") {
    return { status: value.status, pgResponse };
  }
  return undefined;
}
