/**
 * Gateway notifications in tests: what the sandbox gateway's own dashboard sends svc when an
 * operation is done there, signed as the sandbox signs it (the stack's gateway secret).
 */
import { randomUUID } from "node:crypto";
import type { Queryable } from "../../packages/service/src/db/client.js";
import {
  SIGNATURE_HEADER,
  sandboxSettingSecret,
  signSandboxPayload,
} from "../../packages/service/src/gateways/sandbox/signature.js";
import { GATEWAY_SECRET } from "./stack.js";

/** Posts `body` to `pgCode`'s notification endpoint, signed (or with `signature` as given; null: none). */
export function postSandboxNotification(
  stack: { url: string },
  pgCode: string,
  body: string,
  signature?: string | null,
): Promise<Response> {
  const header =
    signature === undefined
      ? signSandboxPayload(sandboxSettingSecret(GATEWAY_SECRET, pgCode), body)
      : signature;
  return fetch(`${stack.url}/v1/gateways/${pgCode}/notifications`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(header === null ? {} : { [SIGNATURE_HEADER]: header }),
    },
    body,
  });
}

/** The gateway's reference of a transaction (`session_id`), as its notifications name it. */
export async function pgReferenceOf(db: Queryable, sessionId: string): Promise<string> {
  const [row] = await db.query<{ pg_reference: string }>(
    "select pg_reference from transactions where session_id = $1",
    [sessionId],
  );
  return row!.pg_reference;
}

/**
 * A signed `operation` notification: the sandbox gateway's dashboard did `operation` of `amount`
 * on the payment `sessionId`. Returns svc's answer.
 */
export async function reportSandboxOperation(
  stack: { url: string; db: Queryable },
  pgCode: string,
  sessionId: string,
  operation: string,
  amount: string,
  options: {
    gatewayOperationId?: string;
    /** The notification's id (default: a new one): a gateway's resend repeats it. */
    notificationId?: string;
    currency?: string;
    pgResponse?: Record<string, unknown>;
  } = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const body = JSON.stringify({
    type: "operation",
    notification_id: options.notificationId ?? `ntf_${randomUUID()}`,
    created_at: new Date().toISOString(),
    is_sandbox: true,
    operation,
    pg_reference: await pgReferenceOf(stack.db, sessionId),
    gateway_operation_id: options.gatewayOperationId ?? `op_${randomUUID()}`,
    amount,
    currency: options.currency ?? "KWD",
    pg_response: options.pgResponse ?? { result: "SUCCESS" },
  });
  const response = await postSandboxNotification(stack, pgCode, body);
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}
