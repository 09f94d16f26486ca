/**
 * The retry policy of webhook deliveries, in one place: the default schedule and its limits, the
 * jitter, Retry-After, and 410 Gone. The worker (HTTP attempts) and `svc listen`'s reports
 * (webhooks/listen.ts) both move a delivery with {@link nextState}; the settings validate a
 * merchant's schedule against the limits here.
 */
import type { AttemptOutcome } from "./deliver.js";
import type { ClaimedDelivery, DeliveryOutcome } from "./delivery.repo.js";

/** Default retry schedule: delays after each failed try, in seconds (5 s … 10 h; about a day in all). */
export const DEFAULT_RETRY_SCHEDULE_SECONDS: readonly number[] = Object.freeze([
  5, 300, 1800, 7200, 18000, 36000, 36000,
]);
/** A merchant's schedule has at most this many retries… */
export const MAX_RETRIES = 20;
/** …each at most a week after the try before. */
export const MAX_RETRY_DELAY_SECONDS = 7 * 24 * 3600;
/** ±10 % jitter on retry delays so retries of many failures do not arrive together. */
export const JITTER = 0.1;
/** Retry-After (on 429 and 503) is honoured up to this long (a day). */
export const MAX_RETRY_AFTER_SECONDS = 24 * 3600;

/** Seconds from a Retry-After header: delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return null;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * The next state of a delivery after an attempt: succeeded on 2xx; failed for good on 410 Gone
 * (the receiver says this endpoint is gone) or after the schedule's last delay; otherwise
 * retrying after the next delay of the schedule (jittered), or after Retry-After when given.
 */
export function nextState(
  delivery: Pick<ClaimedDelivery, "tries" | "retry_schedule_seconds">,
  outcome: Pick<AttemptOutcome, "ok" | "statusCode" | "retryAfterSeconds">,
  now: Date,
  random: () => number = Math.random,
): { status: DeliveryOutcome["status"]; nextAttemptAt: Date | null } {
  if (outcome.ok) return { status: "succeeded", nextAttemptAt: null };
  if (outcome.statusCode === 410) return { status: "failed", nextAttemptAt: null };
  const delay = delivery.retry_schedule_seconds[delivery.tries - 1];
  if (delay === undefined) return { status: "failed", nextAttemptAt: null };
  const seconds =
    outcome.retryAfterSeconds !== null
      ? Math.min(outcome.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS)
      : delay * (1 + (random() * 2 - 1) * JITTER);
  return { status: "retrying", nextAttemptAt: new Date(now.getTime() + seconds * 1000) };
}
