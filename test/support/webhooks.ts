/** Helpers for webhook tests: settings through the API and an independent signature check. */
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { api, apiKey, type ServiceUrl, type TestMerchant } from "./merchant.js";
import type { ReceivedRequest } from "./receiver.js";

/** A delivery as the messages API answers it (the fields webhook tests read). */
export interface ApiDelivery {
  id: string;
  url: string;
  endpoint_id: string | null;
  status: string;
  tries: number;
  last_status_code: number | null;
  last_error: string | null;
  attempts: { url: string; status_code: number | null }[];
}

export async function configureWebhooks(stack: ServiceUrl, m: TestMerchant, body: Record<string, unknown>) {
  const r = await api(stack, "PUT", "/v1/webhooks/config", { auth: apiKey(m.privateKey), body });
  if (r.status !== 200) throw new Error(`config: ${r.status} ${r.text}`);
  return r.json;
}

export async function configurePlugin(
  stack: ServiceUrl,
  m: TestMerchant,
  type: string,
  body: Record<string, unknown>,
) {
  const r = await api(stack, "PUT", `/v1/webhooks/plugins/${type}`, { auth: apiKey(m.privateKey), body });
  if (r.status !== 200) throw new Error(`plugin: ${r.status} ${r.text}`);
  return r.json;
}

/**
 * RFC 8785 canonical JSON, written here independently of @svc/webhooks for the payloads svc sends
 * (objects, arrays, strings, booleans, null and safe integers): keys sorted by UTF-16 code units.
 */
export function independentCanonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(independentCanonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${independentCanonicalJson(v)}`).join(",")}}`;
}

export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.replace(/^whsec_/, ""), "base64");
}

/** The payload's `signature` field as a receiver recomputes it. */
export function expectedPayloadSignature(payload: Record<string, unknown>, secret: string): string {
  const { signature: _s, ...unsigned } = payload;
  return createHmac("sha256", secretKey(secret)).update(independentCanonicalJson(unsigned)).digest("hex");
}

/** Verifies a received request's headers with the standardwebhooks package as it is. */
export function verifyWithStandardWebhooks(request: ReceivedRequest, secret: string): unknown {
  const headers: Record<string, string> = {
    "webhook-id": String(request.headers["webhook-id"]),
    "webhook-timestamp": String(request.headers["webhook-timestamp"]),
    "webhook-signature": String(request.headers["webhook-signature"]),
  };
  return new Webhook(secret).verify(request.body, headers);
}
