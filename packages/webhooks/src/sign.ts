import { canonical } from "./canonical-json.js";
import { checkBody, type RawBody } from "./body.js";
import { macFor, secretList } from "./hmac.js";

/**
 * What {@link signWebhook} signs.
 *
 * @example
 * const input: SignWebhookInput = { id: "msg_2x7", timestamp: new Date(), body, secrets: "whsec_…" };
 * const signature = await signWebhook(input);
 */
export interface SignWebhookInput {
  /** The `webhook-id` header: stable across retries of one message. */
  id: string;
  /** The `webhook-timestamp`: unix seconds of this attempt, or a Date. */
  timestamp: number | Date;
  /** The exact body bytes (or string) that will be sent. */
  body: RawBody;
  /** One secret, or several during a rotation (one `v1,` entry each). */
  secrets: string | readonly string[];
}

/** Unix seconds from a number of seconds or a Date. */
export function toUnixSeconds(timestamp: number | Date): number {
  return Math.floor(typeof timestamp === "number" ? timestamp : timestamp.getTime() / 1000);
}

/**
 * The `webhook-signature` header value for a message (Standard Webhooks `v1`): one
 * `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` entry per secret, space-separated.
 * The service signs every delivery with this function.
 *
 * @example
 * const signature = await signWebhook({
 *   id: "msg_2x7", timestamp: Math.floor(Date.now() / 1000), body, secrets: "whsec_…",
 * });
 * // => "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="
 */
export async function signWebhook(input: SignWebhookInput): Promise<string> {
  const prefix = `${input.id}.${toUnixSeconds(input.timestamp)}.`;
  const body = checkBody(input.body);
  const list = secretList(input.secrets);
  // One secret (no rotation under way): the common case, without a list of promises to join.
  if (list.length === 1) return `v1,${await macFor(list[0]!)(body, "base64", prefix)}`;
  return (await Promise.all(list.map(async (s) => `v1,${await macFor(s)(body, "base64", prefix)}`))).join(
    " ",
  );
}

/**
 * The value of a payload's `signature` field: lowercase hex HMAC-SHA256, keyed with the
 * decoded secret, over the RFC 8785 canonical JSON of the payload without its `signature` key.
 * Any existing `signature` is ignored, so signing an already-signed payload is idempotent.
 *
 * @example
 * const payload = { amount: "10.50", result: "success", ...rest };
 * payload.signature = await signPayload(payload, "whsec_…");
 */
export async function signPayload(payload: object, secret: string): Promise<string> {
  return macFor(secret)(canonical(payload, "signature")!, "hex");
}
