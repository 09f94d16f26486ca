/**
 * The operation webhook of the contract, field by field, for tests (vitest only: the bench
 * imports ./webhooks.js, which must not load vitest).
 */
import { OPERATION_FIELDS, payloadKeys } from "@svc/webhooks/schema";
import { expect } from "vitest";
import type { ReceivedRequest } from "./receiver.js";
import {
  expectedPayloadSignature,
  independentCanonicalJson,
  verifyWithStandardWebhooks,
} from "./webhooks.js";

/**
 * The operation webhook's keys, less the optional `initiator` and `order_no`: read from
 * @svc/webhooks' field table, the one description the validator, the types and the OpenAPI
 * schema come from too.
 */
export const OPERATION_PAYLOAD_KEYS: readonly string[] = payloadKeys(OPERATION_FIELDS).required;

/** `YYYY-MM-DD HH:MM:SS` (UTC). */
export const TIMESTAMP_UTC = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** What a test knows of one operation webhook, each value from the test's own side. */
export interface ExpectedOperation {
  parent: { session_id: string; order_no: string | null; currency_code: string };
  operation: "refund" | "capture" | "void";
  /** Wire amount in the parent's currency. */
  amount: string;
  result: "success" | "queued" | "rejected";
  /** `txn.state` on the wire. */
  state: string;
  source: "input" | "pg";
  pgCode: string;
  /** The initiator exactly as it must arrive; absent when there must be none. */
  initiator?: Record<string, unknown> | undefined;
  referenceNumber: string;
  childSessionId: string;
  pgResponse: Record<string, unknown>;
}

/**
 * The exact payload of the contract for `e`: every key the contract lists, `initiator` and
 * `order_no` only when they must be there. Compare with toStrictEqual. `signature` and
 * `timestamp_utc` are matched by form here; {@link checkOperationDelivery} checks their values.
 */
export function expectedOperationPayload(e: ExpectedOperation): Record<string, unknown> {
  return {
    amount: e.amount,
    ...(e.initiator ? { initiator: e.initiator } : {}),
    is_sandbox: true,
    operation: e.operation,
    ...(e.parent.order_no ? { order_no: e.parent.order_no } : {}),
    pg_code: e.pgCode,
    pg_response: e.pgResponse,
    reference_number: e.referenceNumber,
    result: e.result,
    session_id: e.parent.session_id,
    signature: expect.stringMatching(/^[0-9a-f]{64}$/),
    source: e.source,
    success: e.result === "success",
    timestamp_utc: expect.stringMatching(TIMESTAMP_UTC),
    txn: {
      amount: e.amount,
      currency_code: e.parent.currency_code,
      order_no: e.parent.order_no ?? e.referenceNumber,
      session_id: e.childSessionId,
      state: e.state,
    },
  };
}

/** Checks that `timestampUtc` names a second within [fromMs, toMs] (Date.now() values). */
export function expectTimestampWithin(timestampUtc: string, fromMs: number, toMs: number): void {
  expect(timestampUtc).toMatch(TIMESTAMP_UTC);
  const at = Date.parse(`${timestampUtc.replace(" ", "T")}Z`);
  expect(at).toBeGreaterThanOrEqual(Math.floor(fromMs / 1000) * 1000);
  expect(at).toBeLessThanOrEqual(toMs);
}

/**
 * A delivered operation webhook, field by field: exactly {@link expectedOperationPayload}'s keys
 * and values, `timestamp_utc` within [fromMs, toMs], the `signature` field recomputed here
 * independently, the body in canonical form, and the headers verified by standardwebhooks.
 */
export function checkOperationDelivery(
  request: ReceivedRequest,
  e: ExpectedOperation,
  secret: string,
  window: { fromMs: number; toMs: number },
): void {
  const payload = request.json as Record<string, unknown>;
  const keys: string[] = [...OPERATION_PAYLOAD_KEYS];
  if (e.initiator) keys.push("initiator");
  if (e.parent.order_no) keys.push("order_no");
  expect(Object.keys(payload).sort()).toEqual(keys.sort());
  expect(payload).toStrictEqual(expectedOperationPayload(e));
  expectTimestampWithin(payload.timestamp_utc as string, window.fromMs, window.toMs);
  expect(payload.signature).toBe(expectedPayloadSignature(payload, secret));
  expect(request.body).toBe(independentCanonicalJson(payload));
  expect(verifyWithStandardWebhooks(request, secret)).toEqual(payload);
  expect(request.headers["webhook-id"]).toMatch(/^msg_/);
  expect(request.headers["content-type"]).toBe("application/json");
}
