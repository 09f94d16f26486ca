import { canonical } from "./canonical-json.js";
import { timingSafeEqual, utf8Decoder } from "./encoding.js";
import { fail } from "./errors.js";
import type { HeadersLike } from "./headers.js";
import { macFor, type MacResult, secretList } from "./hmac.js";
import { parseOperationWebhook } from "./parse-operation.js";
import { parsePaymentWebhook } from "./parse-payment.js";
import { checkBody, RAW_BODY, type RawBody } from "./body.js";
import type { WebhookEvent } from "./types.js";

/**
 * Default tolerance both ways: the Standard Webhooks value, and the contract's 5 minutes.
 *
 * @example
 * await verifyWebhook(body, headers, secret, { toleranceSeconds: DEFAULT_TOLERANCE_SECONDS * 2 });
 */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Options of {@link verifyWebhook} and {@link verifyWebhookHeaders}.
 *
 * @example
 * const options: VerifyOptions = { toleranceSeconds: 600 };
 * await verifyWebhook(rawBody, req.headers, process.env.WEBHOOK_SECRET!, options);
 */
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

/**
 * What the Standard Webhooks headers proved.
 *
 * @example
 * const { id, timestamp }: VerifiedHeaders = await verifyWebhookHeaders(rawBody, req.headers, "whsec_…");
 */
export interface VerifiedHeaders {
  /** `webhook-id`: the idempotency key, stable across retries. */
  id: string;
  /** `webhook-timestamp`: unix seconds of this attempt. */
  timestamp: number;
  /** The secret whose signature matched (the first of `secrets` that does). */
  secret: string;
}

/** What to do about a missing or malformed header. */
const UNCHANGED = "pass the request headers unchanged.";

/**
 * One header, in any key case; repeated values are joined by a space. `name` is lowercase, and a
 * literal: a computed key costs a string-table lookup on every access.
 */
function header(headers: HeadersLike, name: string): string {
  const record = headers as Record<string, string | readonly string[] | undefined>;
  // Node lower-cases header names already: the direct hit is the fast path. Headers.get gives
  // null, never undefined, for a missing name.
  let value = typeof headers.get === "function" ? (headers as Headers).get(name) : record[name];
  if (value === undefined) for (const key in record) if (key.toLowerCase() === name) value = record[key];
  return (
    (typeof value === "object" ? value?.join(" ") : value) ||
    fail("missing_header", `Missing ${name} header: ${UNCHANGED}`)
  );
}

/**
 * The verification steps as a generator that yields each HMAC it needs and is resumed with the
 * result. {@link run} drives it synchronously while HMACs are strings (node:crypto: no promise,
 * no microtask, nothing allocated per step) and awaits them where they are promises (Web
 * Crypto), so one code path serves every runtime.
 */
type Steps<T> = Generator<MacResult, T, string>;

function run<T>(steps: Steps<T>, mac = ""): T | Promise<T> {
  // One call per HMAC, so never deep: one per secret tried, and at most two paths of them.
  const step = steps.next(mac);
  if (step.done) return step.value;
  return typeof step.value === "string" ? run(steps, step.value) : step.value.then((m) => run(steps, m));
}

function* headerSteps(
  rawBody: RawBody,
  headers: HeadersLike,
  secrets: string | readonly string[],
  options: VerifyOptions,
): Steps<VerifiedHeaders> {
  const body = checkBody(rawBody);
  const list = secretList(secrets);
  const id = header(headers, "webhook-id");
  const stamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!/^\d{1,12}$/.test(stamp)) {
    fail("invalid_header", `webhook-timestamp ${JSON.stringify(stamp)} is not unix seconds: ${UNCHANGED}`);
  }
  const timestamp = +stamp;
  const age = (options.nowSeconds ?? Math.floor(Date.now() / 1000)) - timestamp;
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (age > tolerance) {
    fail(
      "timestamp_too_old",
      `webhook-timestamp is ${age} s old (max ${tolerance}): a replay, or sync your clock.`,
    );
  }
  if (-age > tolerance) {
    fail(
      "timestamp_in_future",
      `webhook-timestamp is ${-age} s ahead (max ${tolerance}): a replay, or sync your clock.`,
    );
  }
  // Space-separated entries, one of them at least `v1,…`.
  if (!/(^| )v1,/.test(signatures)) {
    fail("invalid_header", `webhook-signature has no v1,<base64> entry: ${UNCHANGED}`);
  }
  const entries = signatures.split(" ");
  const prefix = id + "." + timestamp + ".";
  for (const secret of list) {
    const expected = "v1," + (yield macFor(secret)(body, "base64", prefix));
    // Compare with every entry without stopping early, so timing reveals nothing.
    let match = false;
    for (const entry of entries) match = timingSafeEqual(entry, expected) || match;
    if (match) return { id, timestamp, secret };
  }
  return fail("signature_mismatch", `No signature matches: check the secret and ${RAW_BODY}`);
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
  return run(headerSteps(rawBody, headers, secrets, options));
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
  return run(payloadSteps(payload, secrets));
}

/**
 * The payload signature, with a fast path when the body's text is given. svc sends the body as
 * canonical JSON, so the body's own text without its `"signature":"…"` member is exactly the
 * string that was signed. If the HMAC of that text equals the signature, the payload is
 * authentic without canonicalising it again (HMAC makes it impossible to find another text with
 * the same MAC). Anything else — a body re-serialised by a proxy, another key order — takes the
 * full path: the RFC 8785 canonical JSON of the parsed payload.
 */
function* payloadSteps(payload: unknown, secrets: string | readonly string[], text = ""): Steps<void> {
  const list = secretList(secrets);
  const given = (payload as { signature?: unknown } | null)?.signature;
  if (typeof given === "string") {
    const hex = given.toLowerCase();
    // The member after the first key, as canonical JSON places it in svc's payloads. The text
    // around its first occurrence is hashed as is, without building the joined string. Whether
    // it occurs again needs no check: the MAC matches only if that text is exactly one that was
    // signed, and a signed text cannot hold its own MAC. A mismatch takes the full path below.
    const member = ',"signature":"' + given + '"';
    const at = text.indexOf(member);
    if (at > 0) {
      const head = text.slice(0, at);
      const tail = text.slice(at + member.length);
      for (const secret of list) if (timingSafeEqual(yield macFor(secret)(tail, "hex", head), hex)) return;
    }
    // The canonical form, computed once whatever the number of secrets. A payload RFC 8785
    // cannot represent (a lone surrogate) has none, so no signature can match it.
    let signed: string | undefined;
    try {
      signed = canonical(payload, "signature");
    } catch {
      // falls through to the mismatch
    }
    if (signed)
      for (const secret of list) if (timingSafeEqual(yield macFor(secret)(signed, "hex"), hex)) return;
  }
  fail(
    "payload_signature_mismatch",
    "Payload signature missing or wrong: check the secrets, the previous one too.",
  );
}

function* webhookSteps(
  rawBody: RawBody,
  headers: HeadersLike,
  secrets: string | readonly string[],
  options: VerifyOptions,
): Steps<WebhookEvent> {
  const { id, timestamp } = yield* headerSteps(rawBody, headers, secrets, options);
  let payload: { event?: unknown } | null;
  let text: string;
  try {
    // headerSteps let through only a string, a Uint8Array or an ArrayBuffer.
    text = typeof rawBody === "string" ? rawBody : utf8Decoder.decode(rawBody);
    payload = JSON.parse(text);
  } catch {
    return fail("invalid_payload", "Body is not UTF-8 JSON: check what sent it.");
  }
  if (options.payloadSignature !== false) {
    // Every secret in the caller's order (no reordered copy per call): during a rotation the
    // field is signed with the newest secret, not necessarily the one the headers matched first.
    yield* payloadSteps(payload, secrets, text);
  }
  const event = payload?.event;
  // An `event` that is not a string goes to the payment rules, which name it.
  const parse =
    event === undefined
      ? parseOperationWebhook
      : event !== "payment" && typeof event === "string"
        ? 0
        : parsePaymentWebhook;
  // Any other event — svc's notices about the account (`webhook.endpoint_disabled`: parse it with
  // @svc/webhooks/notices) or one a newer service sends — is authentic (both signatures held) and
  // returned for the caller to answer 2xx: refused, it would be retried until its endpoint is
  // disabled.
  return (
    parse
      ? { type: event ?? "operation", id, timestamp, payload: parse(payload) }
      : { type: "other", event, id, timestamp, payload }
  ) as WebhookEvent;
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
  return run(webhookSteps(rawBody, headers, secrets, options));
}
