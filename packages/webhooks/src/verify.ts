import { timingSafeEqual, utf8Decoder } from "./encoding.js";
import { WebhookVerificationError } from "./errors.js";
import { type HeadersLike, readHeader } from "./headers.js";
import { secretList } from "./hmac.js";
import { parseOperationWebhook } from "./parse-operation.js";
import { parsePaymentWebhook } from "./parse-payment.js";
import { bodyBytes, headerSignature, payloadSignatureWith, type RawBody } from "./sign.js";
import type { WebhookEvent } from "./types.js";

/**
 * Default tolerance both ways: the Standard Webhooks value, and the contract's 5 minutes.
 *
 * @example
 * await verifyWebhook(body, headers, secret, { toleranceSeconds: DEFAULT_TOLERANCE_SECONDS * 2 });
 */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Options of {@link verifyWebhook} and {@link verifyWebhookHeaders}. */
export interface VerifyOptions {
  /** How far `webhook-timestamp` may be in the past or the future. Default 300 (5 min). */
  toleranceSeconds?: number;
  /** The current time in unix seconds, for tests. Default: the clock. */
  nowSeconds?: number;
  /**
   * Also check the payload's own `signature` field. Default true; turn it off only to accept
   * payloads from a sender that does not sign the body (headers alone are still checked).
   */
  payloadSignature?: boolean;
}

/** What the Standard Webhooks headers proved. */
export interface VerifiedHeaders {
  /** `webhook-id`: the idempotency key, stable across retries. */
  id: string;
  /** `webhook-timestamp`: unix seconds of this attempt. */
  timestamp: number;
  /** The secret whose signature matched, to check the payload field with it first. */
  secret: string;
}

function fail(code: ConstructorParameters<typeof WebhookVerificationError>[0], message: string): never {
  throw new WebhookVerificationError(code, message);
}

function requireHeader(headers: HeadersLike, name: string): string {
  const value = readHeader(headers, name);
  if (!value) {
    fail(
      "missing_header",
      `The ${name} header is missing. Pass the request's headers unchanged (req.headers or request.headers), ` +
        "and make sure no proxy strips webhook-* headers.",
    );
  }
  return value;
}

function checkTimestamp(header: string, options: VerifyOptions): number {
  if (!/^[0-9]{1,12}$/.test(header)) {
    fail("invalid_header", `webhook-timestamp must be unix seconds, got ${JSON.stringify(header)}.`);
  }
  const timestamp = Number(header);
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (now - timestamp > tolerance) {
    fail(
      "timestamp_too_old",
      `webhook-timestamp is ${now - timestamp} s old (tolerance ${tolerance} s): a replayed or delayed ` +
        "request. If your server clock is wrong, sync it with NTP.",
    );
  }
  if (timestamp - now > tolerance) {
    fail(
      "timestamp_in_future",
      `webhook-timestamp is ${timestamp - now} s in the future (tolerance ${tolerance} s). ` +
        "Check that your server clock is synced with NTP.",
    );
  }
  return timestamp;
}

function checkBody(rawBody: unknown): string | Uint8Array {
  if (typeof rawBody === "string" || rawBody instanceof Uint8Array || rawBody instanceof ArrayBuffer) {
    return bodyBytes(rawBody);
  }
  return fail(
    "invalid_body",
    `rawBody must be the raw request body as a string or bytes, got ${rawBody === null ? "null" : typeof rawBody}. ` +
      "Pass the raw request body, not a re-serialised object: e.g. express.raw({ type: 'application/json' }) " +
      "or await request.text(); or use an adapter from @svc/webhooks/node, /fastify or /fetch.",
  );
}

/**
 * Verifies only the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) against the raw body: any `v1` entry matching any of `secrets`, timestamp
 * within tolerance both ways, constant-time comparison. Works for any Standard Webhooks sender.
 *
 * @throws WebhookVerificationError `missing_header`, `invalid_header`, `timestamp_too_old`,
 *   `timestamp_in_future`, `signature_mismatch`, `invalid_body`, `invalid_secret`.
 * @example
 * const { id, timestamp } = await verifyWebhookHeaders(rawBody, req.headers, "whsec_…");
 */
export async function verifyWebhookHeaders(
  rawBody: RawBody,
  headers: HeadersLike,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): Promise<VerifiedHeaders> {
  const body = checkBody(rawBody);
  const list = secretList(secrets);
  const id = requireHeader(headers, "webhook-id");
  const timestampHeader = requireHeader(headers, "webhook-timestamp");
  const signatureHeader = requireHeader(headers, "webhook-signature");
  const timestamp = checkTimestamp(timestampHeader, options);
  const offered = signatureHeader
    .split(" ")
    .filter((entry) => entry.startsWith("v1,"))
    .map((entry) => entry.slice(3));
  if (offered.length === 0) {
    fail("invalid_header", "webhook-signature has no v1 entry; expected `v1,<base64>` (space-separated).");
  }
  for (const secret of list) {
    let expected = headerSignature(secret, id, timestamp, body);
    if (typeof expected !== "string") expected = await expected;
    // Compare against every entry without stopping early, so timing reveals nothing.
    let match = false;
    for (const signature of offered) match = timingSafeEqual(signature, expected) || match;
    if (match) return { id, timestamp, secret };
  }
  return fail(
    "signature_mismatch",
    "No webhook-signature entry matches your signing secret(s). Check that you use this endpoint's " +
      "current secret (whsec_…), and pass the raw request body exactly as received, not a re-serialised object.",
  );
}

/**
 * Checks a parsed payload's `signature` field (hex HMAC-SHA256 of its RFC 8785 canonical JSON
 * without `signature`) against any of `secrets`, in constant time.
 *
 * @throws WebhookVerificationError `payload_signature_mismatch`.
 * @example
 * await verifyPayloadSignature(JSON.parse(body), process.env.WEBHOOK_SECRET!);
 */
export async function verifyPayloadSignature(
  payload: unknown,
  secrets: string | readonly string[],
): Promise<void> {
  const given = (payload as { signature?: unknown } | null)?.signature;
  if (typeof given !== "string") {
    fail(
      "payload_signature_mismatch",
      "The payload has no signature field, so its content cannot be trusted.",
    );
  }
  const lower = given.toLowerCase();
  for (const secret of secretList(secrets)) {
    let expected = payloadSignatureWith(secret, payload as object);
    if (typeof expected !== "string") expected = await expected;
    if (timingSafeEqual(expected, lower)) return;
  }
  fail(
    "payload_signature_mismatch",
    "The payload's signature field does not match: the JSON content was changed after signing, or it was " +
      "signed with another secret. Do not edit the payload before verifying it.",
  );
}

function parseJson(body: string | Uint8Array): unknown {
  try {
    return JSON.parse(typeof body === "string" ? body : utf8Decoder.decode(body));
  } catch {
    return fail("invalid_payload", "The webhook body is not UTF-8 JSON, although its signature is valid.");
  }
}

/**
 * Verifies a webhook request and returns its typed, validated event. In order: the Standard
 * Webhooks headers on the raw body (any of `secrets`, for rotation), the timestamp within
 * tolerance both ways, the payload's own `signature` field, then every field rule.
 *
 * @param rawBody the body exactly as received: string, Uint8Array/Buffer or ArrayBuffer.
 * @param headers a plain object (any case), a `Headers` instance or Node's `req.headers`.
 * @param secrets the endpoint's `whsec_…` secret, or several while rotating.
 * @throws WebhookVerificationError with a stable `code` and a `statusCode` to answer.
 * @example
 * import { verifyWebhook } from "@svc/webhooks";
 * const event = await verifyWebhook(rawBody, req.headers, process.env.WEBHOOK_SECRET!);
 * if (event.type === "operation" && event.payload.result === "success") {
 *   console.log(event.payload.operation, event.payload.amount);
 * }
 */
export async function verifyWebhook(
  rawBody: RawBody,
  headers: HeadersLike,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const verified = await verifyWebhookHeaders(rawBody, headers, secrets, options);
  const payload = parseJson(checkBody(rawBody));
  if (options.payloadSignature !== false) {
    // The matching secret first: during a rotation the payload is signed with the same one.
    const list = secretList(secrets);
    await verifyPayloadSignature(payload, [verified.secret, ...list.filter((s) => s !== verified.secret)]);
  }
  const { id, timestamp } = verified;
  const event = (payload as { event?: unknown } | null)?.event;
  if (event === "payment") return { type: "payment", id, timestamp, payload: parsePaymentWebhook(payload) };
  if (event !== undefined) {
    fail("invalid_payload", `Unknown webhook event ${JSON.stringify(event)}: upgrade @svc/webhooks.`);
  }
  return { type: "operation", id, timestamp, payload: parseOperationWebhook(payload) };
}
