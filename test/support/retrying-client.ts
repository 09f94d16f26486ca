/**
 * A merchant's client as docs/operations.md asks for it ("Idempotency and recovery"), for fault
 * tests: several loops, each sending refunds with an Idempotency-Key of its own and retrying the
 * same key — on the next API process, after a short backoff — on network errors, 5xx and 409
 * `idempotency_key_in_use`, until a final answer (2xx or another 4xx). Every attempt is recorded
 * with its status and duration; an attempt the client gives up on is recorded as `timed out`.
 */

/** One HTTP request the client sent. */
export interface ClientAttempt {
  key: string;
  /** Index of the API process it went to. */
  target: number;
  startedAt: number;
  endedAt: number;
  ms: number;
  status?: number;
  /** The problem's `code`, on an error answer. */
  code?: string;
  /** The start of the body of a 5xx answer, and its Retry-After. */
  body?: string;
  retryAfter?: string | null;
  /** A network error or the client's own timeout (then no status). */
  error?: string;
}

/** A key's final answer. */
export interface KeyOutcome {
  key: string;
  parent: string;
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response JSON, read field by field
  json: any;
  tries: number;
}

export interface RetryingClientOptions {
  /** Base URLs of the API processes; a retry goes to the next one. */
  targets: string[];
  /** The Authorization header. */
  auth: string;
  parents: string[];
  /** The refund's amount, e.g. "0.010". */
  amount: string;
  loops: number;
  /** A loop's pause between two keys. */
  pauseMs: number;
  /** The wait before a retry. */
  backoffMs: number;
  /** The client gives up on one attempt after this (recorded as an error: a stuck request). */
  attemptTimeoutMs: number;
  keyPrefix: string;
}

export interface RetryingClient {
  attempts: ClientAttempt[];
  outcomes: KeyOutcome[];
  /** Keys still without a final answer when the client was stopped and its bound ran out. */
  unresolved: string[];
  /**
   * When the first 2xx answer ended at or after `since` (waits up to `timeoutMs`), else undefined.
   */
  firstSuccessAfter(since: number, timeoutMs: number): Promise<number | undefined>;
  /**
   * Sends `count` more keys at once, each retried like the loops' (a surge: a fault that comes
   * now finds requests in every step, transactions open). Resolves when `share` of them had a
   * first answer (or after `timeoutMs`), i.e. while the rest are in flight.
   */
  burst(count: number, share: number, timeoutMs: number): Promise<void>;
  /** No new keys; resolves when every key has its final answer or `boundMs` passed. */
  stop(boundMs: number): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 2xx, or a 4xx that is not "this key is still held": the key is done. */
function isFinal(status: number, code: string | undefined): boolean {
  if (status >= 200 && status < 300) return true;
  return status >= 400 && status < 500 && status !== 429 && code !== "idempotency_key_in_use";
}

export function startRetryingClient(options: RetryingClientOptions): RetryingClient {
  const attempts: ClientAttempt[] = [];
  const outcomes: KeyOutcome[] = [];
  const unresolved: string[] = [];
  let next = 0;
  let stopping = false;
  let giveUpAt = Infinity;

  const send = async (key: string, parent: string, target: number) => {
    const startedAt = Date.now();
    const attempt: ClientAttempt = { key, target, startedAt, endedAt: 0, ms: 0 };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response JSON, read field by field
    let json: any;
    try {
      const response = await fetch(`${options.targets[target]}/v1/operations`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: options.auth,
          "idempotency-key": key,
        },
        body: JSON.stringify({ operation: "refund", session_id: parent, amount: options.amount }),
        signal: AbortSignal.timeout(options.attemptTimeoutMs),
      });
      const text = await response.text();
      attempt.status = response.status;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      if (response.status >= 400) attempt.code = json?.code;
      if (response.status >= 500) {
        attempt.body = text.slice(0, 500);
        attempt.retryAfter = response.headers.get("retry-after");
      }
    } catch (error) {
      const e = error as Error;
      attempt.error = e.name === "TimeoutError" ? "timed out" : String(e.cause ?? e);
    }
    attempt.endedAt = Date.now();
    attempt.ms = attempt.endedAt - startedAt;
    attempts.push(attempt);
    return { attempt, json };
  };

  /**
   * One key, sent and retried until its final answer (or the bound after stop); `answered` is
   * told when its first attempt has ended.
   */
  const refund = async (answered?: () => void) => {
    const n = next++;
    const parent = options.parents[n % options.parents.length]!;
    const key = `${options.keyPrefix}-${n}`;
    let target = n % options.targets.length;
    for (let tries = 1; ; tries++) {
      const { attempt, json } = await send(key, parent, target);
      if (tries === 1) answered?.();
      if (attempt.status !== undefined && isFinal(attempt.status, attempt.code)) {
        outcomes.push({ key, parent, status: attempt.status, json, tries });
        return;
      }
      if (Date.now() > giveUpAt) {
        unresolved.push(key);
        return;
      }
      target = (target + 1) % options.targets.length;
      await sleep(options.backoffMs);
    }
  };
  const loop = async () => {
    while (!stopping) {
      await refund();
      await sleep(options.pauseMs);
    }
  };
  const running = Array.from({ length: options.loops }, loop);

  return {
    attempts,
    outcomes,
    unresolved,
    async firstSuccessAfter(since, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const ends = attempts
          .filter((a) => a.status !== undefined && a.status < 300 && a.endedAt >= since)
          .map((a) => a.endedAt);
        if (ends.length) return Math.min(...ends);
        if (Date.now() > deadline) return undefined;
        await sleep(20);
      }
    },
    async burst(count, share, timeoutMs) {
      let answered = 0;
      for (let i = 0; i < count; i++) running.push(refund(() => (answered += 1)));
      const deadline = Date.now() + timeoutMs;
      while (answered < count * share && Date.now() < deadline) await sleep(1);
    },
    async stop(boundMs) {
      stopping = true;
      giveUpAt = Date.now() + boundMs;
      await Promise.all(running);
    },
  };
}
