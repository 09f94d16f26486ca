/**
 * Idempotent requests as docs.stripe.com/api/idempotent_requests describes them (API v1): keyed
 * per account; the first request's status and body are saved once the endpoint has started
 * executing (not for parameters that failed validation, nor for a request that conflicted with
 * one still running, which gets 409); the same key with other parameters, or on another
 * endpoint, is an `idempotency_error`; keys may be pruned once they are 24 hours old.
 */
import { invalidRequest, StripeApiError } from "./errors.js";

/** Stripe prunes keys once they are at least 24 hours old. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** Stripe's keys are up to 255 characters long. */
export const IDEMPOTENCY_KEY_MAX_CHARS = 255;

export interface SavedAnswer {
  status: number;
  body: string;
  /** The Request-Id of the request that produced it (Stripe's `Original-Request` header). */
  requestId: string;
}

interface Entry {
  endpoint: string;
  params: string;
  createdAtMs: number;
  answer?: SavedAnswer;
}

export type IdempotencyDecision = { kind: "replay"; answer: SavedAnswer } | { kind: "execute" };

export class IdempotencyStore {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Looks the key up before a request runs: a replay, a refusal, or leave to execute (the key
   * is then held as in progress until `save` or `release`).
   */
  begin(key: string, endpoint: string, params: string): IdempotencyDecision {
    if (key.length > IDEMPOTENCY_KEY_MAX_CHARS)
      throw invalidRequest(
        `Invalid idempotency key: must be at most ${IDEMPOTENCY_KEY_MAX_CHARS} characters long.`,
        { phase: "validation" },
      );
    let entry = this.entries.get(key);
    if (entry && this.now() - entry.createdAtMs >= IDEMPOTENCY_KEY_TTL_MS) {
      this.entries.delete(key);
      entry = undefined;
    }
    if (!entry) {
      this.entries.set(key, { endpoint, params, createdAtMs: this.now() });
      return { kind: "execute" };
    }
    if (entry.endpoint !== endpoint)
      throw new StripeApiError(
        400,
        {
          type: "idempotency_error",
          message: `Keys for idempotent requests can only be used for the same endpoint they were first used for ('${endpoint}' vs '${entry.endpoint}'). Try using a key other than '${key}' if you meant to execute a different request.`,
        },
        "validation",
      );
    if (entry.params !== params)
      throw new StripeApiError(
        400,
        {
          type: "idempotency_error",
          message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
        },
        "validation",
      );
    if (!entry.answer)
      throw new StripeApiError(
        409,
        {
          type: "invalid_request_error",
          code: "idempotency_key_in_use",
          message: `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`,
        },
        "validation",
      );
    return { kind: "replay", answer: entry.answer };
  }

  /** Saves the answer of a request that started executing. */
  save(key: string, answer: SavedAnswer): void {
    const entry = this.entries.get(key);
    if (entry) entry.answer = answer;
  }

  /** Forgets a key whose request failed validation: its next use executes afresh. */
  release(key: string): void {
    const entry = this.entries.get(key);
    if (entry && !entry.answer) this.entries.delete(key);
  }
}
