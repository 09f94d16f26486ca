/**
 * The delivery worker. Woken in-process right after a commit that wrote messages and by
 * LISTEN/NOTIFY from any process, it claims due deliveries in batches, attempts them
 * concurrently (up to MAX_IN_FLIGHT), and records outcomes in batches. A slow fallback timer
 * picks up retries that come due and leases that expired; it is not in the hot path.
 */
import { randomInt } from "node:crypto";
import type { Agent } from "undici";
import { CONFIG_DEFAULTS } from "../config.js";
import { type Db, isDatabaseUnavailable } from "../db/client.js";
import { isTransactionConflict, retriedTx, retryConflicts } from "../db/conflict.js";
import type { Metrics } from "../metrics/metrics.js";
import {
  type AttemptInput,
  attemptDelivery,
  CONNECTIONS_PER_ORIGIN,
  createDeliveryAgent,
} from "./deliver.js";
import {
  type ClaimedDelivery,
  type DueKey,
  type DeliveryOutcome,
  deliveryRepo,
  originOf,
} from "./delivery.repo.js";
import { nextState } from "./retry-policy.js";
import { OUTBOX_CHANNEL, type OutboxSignal } from "./outbox.js";
import type { ResolveAll } from "./ssrf.js";
import { settlesWithin } from "../lifecycle.js";
import { outsideTraces, tracingActive } from "../telemetry/trace-context.js";
import { tracedAttempt } from "./attempt-span.js";
import { HeldClaim } from "./held-claim.js";

const CLAIM_BATCH = 500;
const MAX_IN_FLIGHT = 1024;
/** Below this much free room a claim waits for more attempts to finish (fewer, larger claims). */
const MIN_CLAIM = 100;
const RECORD_BATCH = 500;
/** Claims run concurrently on separate connections (SKIP LOCKED keeps them apart): a claim is a round trip plus a write. */
const CLAIMERS = 2;
/**
 * Held claims (held-claim.ts) whose deliveries are being attempted at once, each a transaction on
 * a connection of its own; and one more may be open while a held claim records its outcomes and
 * commits. Waiting for that commit before the next claim left the worker with one claim's
 * deliveries in flight, or none, for the length of a record and a claim (docs/benchmarks.md,
 * 2026-11-29).
 */
const MAX_HELD = 2;
const MAX_HELD_OPEN = MAX_HELD + 1;
/**
 * A held claim made while another is open starts after that claim's rows in the due index
 * (`claimHeld`'s `after`) rather than stepping over them, one ordering check each; at least once
 * per FROM_HEAD_MS a held claim starts from the head of the index again, for the rows the claims
 * before it left behind (blocked then, or locked by another worker's claim).
 */
const FROM_HEAD_MS = 200;
/**
 * An origin (a URL's authority) is stalled while it has at least as many attempts in flight as
 * the agent opens sockets to it and none of them has finished for STALLED_MS: the attempts beyond
 * its sockets only wait in the agent's queue. A stalled origin's attempts do not count against
 * the worker's room, and its deliveries are left out of the claims until one finishes, so a
 * destination that hangs holds back no one else's webhooks for longer than STALLED_MS plus a
 * wake (the fallback poll); before, they waited for its attempts' timeout (up to 30 s), wave
 * after wave while its backlog lasted.
 */
const STALLED_MS = 1_000;
/** How long a held claim keeps its transaction open before it hands what is still in flight to a lease. */
const HOLD_MS = 500;
/**
 * Connections a worker uses at once: its claim loops, its held claims' transactions, the outcome
 * flush (one at a time) and its LISTEN, with two to spare — the size of the pool the service
 * opens for it.
 */
export const WORKER_POOL_SIZE = CLAIMERS + MAX_HELD_OPEN + 4;
/**
 * How the service opens the worker's pool on PostgreSQL (db/client.ts, PostgresOptions): commits
 * that do not wait for their WAL flush, and no whole-table reads where an index can serve.
 */
export const WORKER_POOL_OPTIONS = { synchronousCommit: false, seqScans: false } as const;
/** Outcomes finishing within this window are recorded in one transaction. */
const FLUSH_DELAY_MS = 2;
const STOP_GRACE_MS = 5_000;
/**
 * Outcomes the database could not take (it was down or did not answer) are kept and written
 * again, first after KEEP_RETRY_MIN_MS, the wait doubling up to KEEP_RETRY_MAX_MS, until it
 * takes them or the worker stops; at most KEEP_MAX of them (the oldest go first).
 */
const KEEP_RETRY_MIN_MS = 100;
const KEEP_RETRY_MAX_MS = 5_000;
const KEEP_MAX = 10_000;
/**
 * After a database outage the worker takes back the leases it wrote for deliveries it is not
 * attempting (deliveryRepo.releaseOwnLeases) as soon as the database answers, and once more
 * RELEASE_AGAIN_MS later: a claim sent to a server that stopped answering runs when it answers
 * again, which may be just after the first release.
 */
const RELEASE_AGAIN_MS = 5_000;

export interface WorkerOptions {
  allowPrivate: boolean;
  metrics: Metrics;
  signal?: OutboxSignal;
  onError?: (error: unknown) => void;
  random?: () => number;
  /**
   * The fallback timer's period, for retries coming due and expired leases only (new messages
   * wake the worker at once): SVC_WEBHOOK_POLL_MS, default CONFIG_DEFAULTS.webhookPollMs.
   */
  fallbackPollMs?: number;
  /** Name resolution behind the SSRF guard (default: the system resolver). */
  resolve?: ResolveAll;
  /**
   * When claims hold their rows by lock instead of a lease (held-claim.ts; PostgreSQL only, as
   * PGlite has one connection): "backlog" (the default) when the last claim came back full,
   * "always" or "never". Tests set it to run either way.
   */
  holdClaims?: "backlog" | "always" | "never";
  /** How long a held claim keeps its transaction open at most (default HOLD_MS); tests lengthen it. */
  holdMs?: number;
}

export class DeliveryWorker {
  private readonly agent: Agent;
  private inFlight = 0;
  /** Claim loops running, and the room they have reserved for the rows they are claiming. */
  private claimers = 0;
  private reserved = 0;
  /**
   * Held claims whose transaction is open, those of them recording their outcomes (closing), and
   * whether the last claim came back full.
   */
  private held = 0;
  private closing = 0;
  /** The newest open held claim's last row in the due index, and when a held claim last started from its head. */
  private lastHeld: { key: DueKey; hold: object } | undefined;
  private fromHeadAt = 0;
  /**
   * Attempts in flight per origin (`originOf`), when one of them last finished (or the first
   * began), and whether a claim has left it out since (`leaveOut`: counted once per stall).
   */
  private readonly origins = new Map<string, { inFlight: number; lastDoneAt: number; stalled?: boolean }>();
  private backlog = false;
  private again = false;
  private stopped = false;
  /** Set once stop() has waited out its grace: outcomes still kept then are given up. */
  private closed = false;
  private flushing: Promise<void> | undefined;
  private readonly outcomes: DeliveryOutcome[] = [];
  /**
   * This worker's mark on the leases it writes (deliveryRepo's leaseUntil): random, so two
   * workers' marks differ but for one chance in a million (then a release after an outage may
   * also take back the other's lease, and that delivery may be sent twice: at least once).
   */
  private readonly leaseToken = randomInt(1_000_000);
  /** The deliveries claimed whose attempt is in flight (their leases are not released). */
  private readonly attempting = new Set<string>();
  /** Releases still to make after an outage (releaseAfterOutage), and when the next may run. */
  private releasesDue = 0;
  private nextReleaseAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private detach: (() => void) | undefined;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(
    private readonly db: Db,
    private readonly options: WorkerOptions,
  ) {
    this.agent = createDeliveryAgent({
      allowPrivate: options.allowPrivate,
      ...(options.resolve ? { resolve: options.resolve } : {}),
    });
  }

  async start(): Promise<void> {
    // Messages committed while the LISTEN connection was lost: the claim on reconnect finds them.
    this.unlisten = await this.db.listen(OUTBOX_CHANNEL, this.wake, this.lostListen);
    this.options.signal?.on("committed", this.wake);
    this.detach = this.options.signal?.attachWorker(this.takesAtOnce);
    this.timer = setInterval(this.wake, this.options.fallbackPollMs ?? CONFIG_DEFAULTS.webhookPollMs);
    this.timer.unref();
    this.wake();
  }

  /**
   * Claims due deliveries now. Coalesced: a wake while a claim runs makes its loop claim once more
   * when it ends; a second claimer joins only when a claim came back full (a backlog). Starting one
   * per wake made each claim take a row or two at 1,000 commits/s.
   */
  readonly wake = (): void => {
    if (this.stopped) return;
    this.again = true;
    // Woken by a request's commit, the worker's claims and attempts are not that request's work.
    if (this.claimers === 0) void outsideTraces(this.startClaimLoop);
  };

  /**
   * Whether a wake now makes this worker claim at once, with room for what was just committed:
   * then this process's commits need not wake the other processes' workers (OutboxSignal). Not
   * with a backlog (the others should help), nor when its room is taken or its held claims are
   * all open (its next claim waits for attempts to finish, or for a held claim to end).
   */
  private readonly takesAtOnce = (): boolean =>
    !this.stopped && !this.backlog && this.hasRoom() && this.claimKind() !== "wait";

  /** Room for a claim worth its query: MIN_CLAIM free places, or nothing in flight at all. */
  private hasRoom(stalled: readonly string[] = this.stalled()): boolean {
    const busy = this.busy(stalled);
    return busy + this.reserved === 0 || MAX_IN_FLIGHT - busy - this.reserved >= MIN_CLAIM;
  }

  /** The stalled origins now (see STALLED_MS). */
  private stalled(): string[] {
    const now = performance.now();
    const stalled: string[] = [];
    for (const [origin, o] of this.origins)
      if (o.inFlight >= CONNECTIONS_PER_ORIGIN && now - o.lastDoneAt > STALLED_MS) stalled.push(origin);
    return stalled;
  }

  /** Attempts in flight that count against the room: all but those of the `stalled` origins. */
  private busy(stalled: readonly string[]): number {
    let busy = this.inFlight;
    for (const origin of stalled) busy -= this.origins.get(origin)!.inFlight;
    return busy;
  }

  /** Counts in the metrics each origin a claim leaves out, once per stall (an attempt's end clears it). */
  private leaveOut(stalled: readonly string[]): void {
    for (const origin of stalled) {
      const o = this.origins.get(origin)!;
      if (!o.stalled) this.options.metrics.recordOriginStalled();
      o.stalled = true;
    }
  }

  /** The database was unavailable: release this worker's stale leases once it answers, and again later. */
  private markOutage(): void {
    this.releasesDue = 2;
    this.nextReleaseAt = 0;
  }

  /** The LISTEN connection was lost and is back: the database may have restarted meanwhile. */
  private readonly lostListen = (): void => {
    this.markOutage();
    this.wake();
  };

  /**
   * After an outage, once the database answers: takes back this worker's leases on deliveries it
   * is not attempting (deliveryRepo.releaseOwnLeases), so they are due at once rather than when
   * their leases run out (the attempt's timeout plus LEASE_MARGIN_SECONDS). Only while nothing
   * else of this worker writes leases or outcomes (no other claim, held claim or flush), as a
   * claim or outcome written meanwhile would be released with them; otherwise a later pass of
   * the claim loop does it. Outcomes kept to record are not released either.
   */
  private async releaseAfterOutage(): Promise<void> {
    if (this.releasesDue === 0 || performance.now() < this.nextReleaseAt) return;
    if (this.claimers !== 1 || this.held > 0 || this.flushing) return;
    const busy = [...this.attempting];
    for (const o of this.outcomes) busy.push(o.id);
    const released = await deliveryRepo.releaseOwnLeases(this.db, this.leaseToken, busy);
    if (released > 0) this.options.metrics.recordLeasesReleased(released);
    this.releasesDue -= 1;
    if (this.releasesDue > 0) {
      this.nextReleaseAt = performance.now() + RELEASE_AGAIN_MS;
      setTimeout(this.wake, RELEASE_AGAIN_MS).unref();
    }
  }

  private readonly startClaimLoop = (): Promise<void> => this.claimLoop();

  private async claimLoop(): Promise<void> {
    this.claimers += 1;
    try {
      while (this.again && !this.stopped) {
        this.again = false;
        await this.releaseAfterOutage();
        // Busy: finishing attempts wake us again; claiming one row at a time would cost a query each.
        const stalled = this.stalled();
        if (!this.hasRoom(stalled)) break;
        const room = Math.min(CLAIM_BATCH, MAX_IN_FLIGHT - this.busy(stalled) - this.reserved);
        const how = this.claimKind();
        // A backlog waits for a held claim to end (which wakes us) rather than lease its rows.
        if (how === "wait") break;
        this.leaveOut(stalled);
        this.reserved += room;
        let batch: ClaimedDelivery[];
        let hold: HeldClaim | undefined;
        try {
          if (how === "held") ({ batch, hold } = await this.claimHeld(room, stalled));
          else
            batch = await deliveryRepo.claim(this.db, room, {
              traceparent: tracingActive(),
              stalled,
              leaseToken: this.leaseToken,
            });
        } finally {
          this.reserved -= room;
        }
        this.backlog = batch.length === room;
        if (batch.length === 0) continue;
        // A full batch means more may be due: keep going (and let a second claimer join in).
        if (batch.length === room) {
          this.again = true;
          if (this.claimers < CLAIMERS) void this.claimLoop();
        }
        for (const delivery of batch) {
          this.inFlight += 1;
          this.attempting.add(delivery.id);
          const origin = originOf(delivery.url);
          const o = this.origins.get(origin);
          if (o) o.inFlight += 1;
          else this.origins.set(origin, { inFlight: 1, lastDoneAt: performance.now() });
          void this.attempt(delivery, hold);
        }
      }
    } catch (error) {
      if (isDatabaseUnavailable(error)) this.markOutage();
      this.options.onError?.(error);
    } finally {
      this.claimers -= 1;
      this.notifyIdle();
    }
  }

  /**
   * How the next claim takes its rows (see WorkerOptions.holdClaims): held by lock, leased, or
   * not yet — as many held claims as may be are open, and one will end soon (at most HOLD_MS).
   */
  private claimKind(): "held" | "leased" | "wait" {
    const mode = this.options.holdClaims ?? "backlog";
    if (this.db.kind !== "postgres" || mode === "never" || (mode === "backlog" && !this.backlog))
      return "leased";
    return this.held - this.closing < MAX_HELD && this.held < MAX_HELD_OPEN ? "held" : "wait";
  }

  /**
   * Claims in a transaction of its own that stays open while the claimed deliveries are
   * attempted (held-claim.ts); resolves with the batch as soon as it is claimed.
   */
  private claimHeld(room: number, stalled: string[]): Promise<{ batch: ClaimedDelivery[]; hold: HeldClaim }> {
    this.held += 1;
    return new Promise((resolve, reject) => {
      let hold: HeldClaim | undefined;
      this.db
        .tx(async (q) => {
          const now = performance.now();
          const after = now - this.fromHeadAt < FROM_HEAD_MS ? this.lastHeld?.key : undefined;
          if (!after) this.fromHeadAt = now;
          const claimed = await deliveryRepo.claimHeld(q, room, {
            traceparent: tracingActive(),
            after,
            stalled,
          });
          hold = new HeldClaim(claimed.deliveries, this.leaseToken);
          if (claimed.last) this.lastHeld = { key: claimed.last, hold };
          resolve({ batch: hold.deliveries, hold });
          // Once its deliveries are in (or its time is up), it records and commits: the next
          // claim need not wait for that. (An empty one wakes no one, as below.)
          let closing = false;
          try {
            await hold.close(q, this.options.holdMs ?? HOLD_MS, () => {
              closing = true;
              this.closing += 1;
              if (hold!.deliveries.length > 0) this.wake();
            });
          } finally {
            if (closing) this.closing -= 1;
          }
        })
        .then(
          async () => {
            hold!.committed();
            await retryConflicts(() => deliveryRepo.recordHealth(this.db, hold!.recorded)).catch(
              (error: unknown) => this.options.onError?.(error),
            );
          },
          async (error: unknown) => {
            if (!hold) return reject(error);
            if (isDatabaseUnavailable(error)) this.markOutage();
            // A deadlock's undoing is routine (PostgreSQL picked this transaction to break it).
            if (!isTransactionConflict(error)) this.options.onError?.(error);
            // Nothing of it was written (undone, or lost with its connection or the database):
            // its rows are as claimed, and what it would have written is written now, before the
            // wake below could claim its deliveries again — or kept until the database is back.
            await hold
              .redo(this.db, (outcomes) => this.recordOrKeep(outcomes))
              .catch((e: unknown) => this.options.onError?.(e));
          },
        )
        .finally(() => {
          this.held -= 1;
          if (this.lastHeld?.hold === hold) this.lastHeld = undefined;
          this.notifyIdle();
          // Its outcomes may have unblocked later deliveries, and its room is free (an empty one
          // changed nothing: waking then would claim again and again while nothing is due).
          if (hold?.deliveries.length) this.wake();
        });
    });
  }

  private async attempt(delivery: ClaimedDelivery, hold: HeldClaim | undefined): Promise<void> {
    const attemptedAt = new Date();
    const input: AttemptInput = {
      url: delivery.url,
      messageId: delivery.message_id,
      eventType: delivery.event_type,
      sequence: delivery.sequence,
      payloadVersion: delivery.payload_version,
      headers: delivery.headers,
      body: delivery.body,
      secrets: delivery.secrets,
      timeoutMs: delivery.timeout_seconds * 1000,
      allowPrivate: this.options.allowPrivate,
    };
    const outcome = tracingActive()
      ? await tracedAttempt(delivery, () => attemptDelivery(this.agent, input))
      : await attemptDelivery(this.agent, input);
    const key = originOf(delivery.url);
    const origin = this.origins.get(key);
    if (origin) {
      origin.lastDoneAt = performance.now();
      origin.stalled = false;
      if (--origin.inFlight === 0) this.origins.delete(key);
    }
    const next = nextState(delivery, outcome, new Date(), this.options.random);
    this.options.metrics.recordAttempt(next.status, outcome.latencyMs);
    const recorded: DeliveryOutcome = {
      id: delivery.id,
      tid: delivery.tid,
      messageId: delivery.message_id,
      parentSessionId: delivery.parent_session_id,
      url: delivery.url,
      seq: delivery.seq,
      endpointId: delivery.endpoint_id,
      tries: delivery.tries,
      keptAttempt: delivery.kept_attempt,
      held: false,
      status: next.status,
      nextAttemptAt: next.nextAttemptAt,
      attemptedAt,
      statusCode: outcome.statusCode,
      latencyMs: outcome.latencyMs,
      error:
        outcome.statusCode === 410
          ? "HTTP 410 Gone: the destination asked to stop; not retried"
          : outcome.error,
      responseBody: outcome.responseBody,
      sequence: delivery.sequence,
    };
    // A held delivery's outcome is recorded in its claim's transaction, or handed back (leased).
    const toRecord = hold ? await hold.finished(recorded) : recorded;
    this.inFlight -= 1;
    // From here its outcome is in `outcomes` (or the hold's, or not to be recorded).
    this.attempting.delete(delivery.id);
    if (toRecord) {
      this.outcomes.push(toRecord);
      this.flush();
    } else this.notifyIdle();
  }

  /**
   * Writes buffered outcomes (one transaction per batch), then looks for newly unblocked work.
   * A batch the database could not take (down, or not answering) is kept and written again when
   * it answers: an attempt that was made stays in the attempt log, and a delivery whose outcome
   * is recorded before its lease runs out is not sent again.
   */
  private flush(): void {
    if (this.flushing) return;
    this.flushing = (async () => {
      let waitMs = 0;
      try {
        if (this.outcomes.length < RECORD_BATCH) await new Promise((r) => setTimeout(r, FLUSH_DELAY_MS));
        while (this.outcomes.length > 0 && !this.closed) {
          const batch = this.outcomes.splice(0, RECORD_BATCH);
          try {
            await this.recordOutcomes(batch);
            waitMs = 0;
          } catch (error) {
            if (!isDatabaseUnavailable(error)) throw error;
            this.markOutage();
            this.options.onError?.(error);
            this.keep(batch, "front");
            waitMs = Math.min(Math.max(waitMs * 2, KEEP_RETRY_MIN_MS), KEEP_RETRY_MAX_MS);
            await new Promise((r) => setTimeout(r, waitMs).unref());
          }
        }
      } catch (error) {
        // Not the database's absence (a statement of ours failed): the lease runs out and
        // another try happens — at least once, never lost.
        this.options.onError?.(error);
      } finally {
        this.flushing = undefined;
        if (this.closed) this.outcomes.length = 0;
        else if (this.outcomes.length > 0) this.flush();
        this.notifyIdle();
        this.wake();
      }
    })();
  }

  /**
   * Keeps outcomes to record (`front`: ones that were first in line again), at most KEEP_MAX:
   * beyond that the oldest are given up, their deliveries sent again once their leases run out.
   */
  private keep(outcomes: DeliveryOutcome[], where: "front" | "back"): void {
    if (where === "front") this.outcomes.unshift(...outcomes);
    else this.outcomes.push(...outcomes);
    const over = this.outcomes.length - KEEP_MAX;
    if (over > 0) {
      this.outcomes.splice(0, over);
      this.options.onError?.(
        new Error(`${over} webhook delivery outcomes given up: the database has not taken them`),
      );
    }
  }

  /** Records outcomes now, or, when the database is unavailable, keeps them for the flush to write later. */
  private async recordOrKeep(outcomes: DeliveryOutcome[]): Promise<void> {
    try {
      await this.recordOutcomes(outcomes);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      this.markOutage();
      this.options.onError?.(error);
      this.keep(outcomes, "back");
      this.flush();
    }
  }

  /**
   * Records outcomes outside a held claim's transaction. Usually one statement (atomic by itself,
   * no begin/commit round trips) and the endpoints' health after it; with a retry's push-back, one
   * transaction. A part PostgreSQL undid to break a deadlock (a push-back against an endpoint
   * being disabled, or another worker's batch) runs again rather than leave its attempts
   * unrecorded and its deliveries to be sent again.
   */
  private async recordOutcomes(batch: DeliveryOutcome[]): Promise<void> {
    if (deliveryRepo.needsTransaction(batch)) {
      await retriedTx(this.db, (q) => deliveryRepo.record(q, batch));
      return;
    }
    await retryConflicts(() => deliveryRepo.record(this.db, batch, { health: false }));
    await retryConflicts(() => deliveryRepo.recordHealth(this.db, batch));
  }

  /** Nothing claimed, in flight, held or waiting to be recorded. */
  private isIdle(): boolean {
    return (
      this.inFlight === 0 &&
      this.claimers === 0 &&
      this.held === 0 &&
      !this.flushing &&
      this.outcomes.length === 0
    );
  }

  private notifyIdle(): void {
    if (this.isIdle()) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /** Resolves when nothing is in flight (tests and shutdown). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.options.signal?.off("committed", this.wake);
    this.detach?.();
    await Promise.race([this.idle(), new Promise((r) => setTimeout(r, STOP_GRACE_MS).unref())]);
    // Outcomes still kept now are given up: their deliveries are sent again once due.
    this.closed = true;
    await settlesWithin(this.unlisten?.() ?? Promise.resolve(), STOP_GRACE_MS);
    // A delivery still in flight after the grace period is cut; its lease lets another worker retry it.
    if (!(await settlesWithin(this.agent.close(), STOP_GRACE_MS))) await this.agent.destroy().catch(() => {});
  }
}
