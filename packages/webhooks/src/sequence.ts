/**
 * `@svc/webhooks/sequence`: what a request is (`svc-event-type`), its payload's version
 * (`svc-webhook-version`, and whether this library knows it) and where it stands among its
 * parent's messages (`svc-sequence`), and a tracker that tells a missed or reordered message
 * from the next one. A separate entry: receivers that do not track order do not load it.
 *
 * svc numbers the messages of one parent (the payment's `session_id`) to one URL 1, 2, 3… in the
 * order they were committed, with no gap; a retry and a replay resend the same number. So, at one
 * URL, for one parent: the next number is `last + 1`; a higher one means a message is missing
 * (still being retried, or lost on the receiver's side); a number already seen is a repeat.
 *
 * @example
 * import { createSequenceTracker, webhookMeta } from "@svc/webhooks/sequence";
 * const tracker = createSequenceTracker();
 * const { eventType, sequence } = webhookMeta(req.headers);
 * const check = tracker.check(payload.session_id, sequence!);
 * if (check.kind === "gap") console.warn(`missed ${check.missing.join(", ")} of ${payload.session_id}`);
 *
 * @packageDocumentation
 */
import { fail } from "./errors.js";
import type { HeadersLike } from "./headers.js";
import { LIBRARY_VERSION, PAYLOAD_VERSIONS, type PayloadVersion, VERSION_HEADER } from "./versions.js";

/**
 * The svc headers beside the Standard Webhooks ones.
 * @example
 * const meta: WebhookMeta = webhookMeta(req.headers); // { eventType: "operation", sequence: 2, version: "2026-11-24" }
 */
export interface WebhookMeta {
  /** `svc-event-type`: `operation`, `payment.paid`, `payment.authorized`, `payment.failed`, `payment.canceled`, `webhook.test`. */
  eventType: string | undefined;
  /** `svc-sequence`: this message's number among its parent's messages to this URL (1, 2, 3…). */
  sequence: number | undefined;
  /**
   * `svc-webhook-version`: the payload's version, as sent (it may be one this library does not
   * know: see {@link checkWebhookVersion}); the first version when the header is missing, as
   * older senders send no header and only first-version payloads.
   */
  version: string;
}

function read(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === "function")
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  let value = record[name];
  if (value === undefined) for (const key in record) if (key.toLowerCase() === name) value = record[key];
  return typeof value === "object" ? value?.[0] : value;
}

/**
 * Reads `svc-event-type` and `svc-sequence` from the request's headers (Node, Fetch or a plain
 * record). A missing or malformed sequence is `undefined`.
 * @example
 * webhookMeta({ "svc-event-type": "operation", "svc-sequence": "3" }) // { eventType: "operation", sequence: 3 }
 */
export function webhookMeta(headers: HeadersLike): WebhookMeta {
  const raw = read(headers, "svc-sequence");
  const sequence = raw !== undefined && /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : undefined;
  const version = read(headers, VERSION_HEADER) || PAYLOAD_VERSIONS[0];
  return { eventType: read(headers, "svc-event-type"), sequence, version };
}

/**
 * The payload's version (`svc-webhook-version`; the first one when the header is missing), if
 * this library knows it. A newer one is refused with `unsupported_version` (answer 400), whose
 * message names it, rather than as a payload that breaks field rules: upgrade @svc/webhooks to
 * read it. The adapters call this on every authentic request; call it after
 * {@link verifyWebhook} when you use that directly (and, for a payload it refused as
 * `invalid_payload`, to tell a newer version from a broken payload).
 *
 * @throws WebhookVerificationError `unsupported_version`.
 * @example
 * import { verifyWebhook } from "@svc/webhooks";
 * import { checkWebhookVersion } from "@svc/webhooks/sequence";
 * const event = await verifyWebhook(rawBody, req.headers, secret);
 * checkWebhookVersion(req.headers); // "2026-11-24"
 */
export function checkWebhookVersion(headers: HeadersLike): PayloadVersion {
  const { version } = webhookMeta(headers);
  return (PAYLOAD_VERSIONS as readonly string[]).includes(version)
    ? (version as PayloadVersion)
    : fail(
        "unsupported_version",
        `This payload is version ${version}; @svc/webhooks ${LIBRARY_VERSION} knows ${PAYLOAD_VERSIONS.join(", ")} — upgrade @svc/webhooks.`,
      );
}

/**
 * What one sequence number means for its parent.
 * @example
 * const check: SequenceCheck = await tracker.check(payload.session_id, 3);
 * if (check.kind === "gap") await reconcile(payload.session_id, check.missing);
 */
export type SequenceCheck =
  /** The number after the last one seen (or 1 for a parent not seen yet). */
  | { kind: "next"; sequence: number }
  /** Higher than the next: `missing` were not seen (yet). The last seen moves up to `sequence`. */
  | { kind: "gap"; sequence: number; missing: number[] }
  /** Seen before, or lower than the last: a retry, a replay, or one that arrived late. */
  | { kind: "repeat"; sequence: number; last: number };

/**
 * Where a tracker keeps the last number per parent: a Map by default; Redis or SQL across instances.
 * @example
 * const redisStore: SequenceStore = {
 *   get: async (parent) => Number(await redis.get(`seq:${parent}`)) || undefined,
 *   set: async (parent, last) => void (await redis.set(`seq:${parent}`, String(last))),
 * };
 */
export interface SequenceStore {
  get(parent: string): number | undefined | Promise<number | undefined>;
  set(parent: string, last: number): unknown;
}

/**
 * Checks sequence numbers per parent (see {@link createSequenceTracker}).
 * @example
 * const tracker: SequenceTracker = createSequenceTracker();
 */
export interface SequenceTracker {
  /** Checks `sequence` for `parent` and remembers it when it is the highest seen. */
  check(parent: string, sequence: number): Promise<SequenceCheck>;
}

/** The most numbers a gap lists; a larger one is listed up to this many. */
const MAX_MISSING = 1000;

/**
 * A tracker of the last sequence number per parent. Keep one per receiving URL (svc numbers per
 * URL). With a shared `store` it works across receiver instances; the check and the update are
 * not atomic then, which only matters for two messages of one parent at once (svc sends them one
 * after the other).
 * @example
 * const tracker = createSequenceTracker();
 * await tracker.check("sess_1", 1) // { kind: "next", sequence: 1 }
 * await tracker.check("sess_1", 3) // { kind: "gap", sequence: 3, missing: [2] }
 * await tracker.check("sess_1", 2) // { kind: "repeat", sequence: 2, last: 3 }
 */
export function createSequenceTracker(store: SequenceStore = new Map<string, number>()): SequenceTracker {
  return {
    async check(parent, sequence) {
      if (!Number.isSafeInteger(sequence) || sequence < 1)
        throw new RangeError(`sequence must be a positive integer, got ${String(sequence)}`);
      const last = (await store.get(parent)) ?? 0;
      if (sequence <= last) return { kind: "repeat", sequence, last };
      await store.set(parent, sequence);
      if (sequence === last + 1) return { kind: "next", sequence };
      const missing: number[] = [];
      for (let n = last + 1; n < sequence && missing.length < MAX_MISSING; n++) missing.push(n);
      return { kind: "gap", sequence, missing };
    },
  };
}
