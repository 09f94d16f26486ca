/**
 * Request validation for the sandbox API. Anything malformed is a 400 naming the field, so a
 * bug in an adapter shows up as a clear message instead of a crash or a silent decline.
 */
import {
  FORMS_OF_PAYMENT,
  type FormOfPayment,
  SANDBOX_GATEWAY_KINDS,
  type SandboxGatewayKind,
  isCurrency,
  LANGUAGES,
  type Language,
  OPERATIONS,
  type Operation,
  PAYMENT_OPERATIONS,
  type PaymentOperation,
  parseAmount,
} from "@svc/protocol";
import { HttpError } from "./http.js";

type Body = Record<string, unknown>;

function bad(field: string, message: string): never {
  throw new HttpError(400, "invalid_request", `${field} ${message}`);
}

export function str(body: Body, field: string, maxLength = 256): string {
  const value = body[field];
  if (typeof value !== "string" || value.length === 0) bad(field, "must be a non-empty string");
  if (value.length > maxLength) bad(field, `must be at most ${maxLength} characters`);
  return value;
}

export function oneOf<T extends string>(body: Body, field: string, allowed: readonly T[]): T {
  const value = body[field];
  if (typeof value !== "string" || !allowed.includes(value as T))
    bad(field, `must be one of ${allowed.join(", ")}`);
  return value as T;
}

export function httpUrl(body: Body, field: string): string {
  const value = str(body, field, 2048);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    bad(field, "must be an absolute http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") bad(field, "must be an http(s) URL");
  return value;
}

/** Checks that `amount` and `amount_minor` agree for `currency`, as the service computes both. */
export function amountOf(body: Body): { amount: string; amountMinor: number; currency: string } {
  const currency = str(body, "currency", 3);
  if (!isCurrency(currency)) bad("currency", "must be an ISO 4217 code svc knows, e.g. KWD");
  const amount = str(body, "amount", 32);
  const parsed = parseAmount(amount, currency);
  if (!parsed.ok) bad("amount", parsed.message);
  if (body.amount_minor !== parsed.minor)
    bad("amount_minor", `must equal amount in minor units (${parsed.minor})`);
  return { amount, amountMinor: parsed.minor, currency };
}

export interface PaymentRequestBody {
  kind: SandboxGatewayKind;
  pgCode: string;
  sessionId: string;
  attemptId: string;
  amount: string;
  amountMinor: number;
  currency: string;
  operation: PaymentOperation;
  formOfPayment: FormOfPayment;
  language: Language;
  returnUrl: string;
  notificationUrl: string;
  instrument: Body;
}

export function parsePaymentRequest(body: Body): PaymentRequestBody {
  const instrument = body.instrument;
  if (typeof instrument !== "object" || instrument === null || Array.isArray(instrument)) {
    bad("instrument", "must be an object with a type");
  }
  return {
    kind: oneOf(body, "kind", SANDBOX_GATEWAY_KINDS),
    pgCode: str(body, "pg_code"),
    sessionId: str(body, "session_id"),
    attemptId: str(body, "attempt_id"),
    ...amountOf(body),
    operation: oneOf(body, "operation", PAYMENT_OPERATIONS),
    formOfPayment: oneOf(body, "form_of_payment", FORMS_OF_PAYMENT),
    language: oneOf(body, "language", LANGUAGES),
    returnUrl: httpUrl(body, "return_url"),
    notificationUrl: httpUrl(body, "notification_url"),
    instrument: instrument as Body,
  };
}

export interface OperationRequestBody {
  kind: SandboxGatewayKind;
  operation: Operation;
  pgReference: string;
  referenceNumber: string;
  amount: string;
  amountMinor: number;
  currency: string;
  notificationUrl: string;
}

export function parseOperationRequest(body: Body): OperationRequestBody {
  return {
    kind: oneOf(body, "kind", SANDBOX_GATEWAY_KINDS),
    operation: oneOf(body, "operation", OPERATIONS),
    pgReference: str(body, "pg_reference"),
    referenceNumber: str(body, "reference_number"),
    ...amountOf(body),
    notificationUrl: httpUrl(body, "notification_url"),
  };
}
