/**
 * Deliveries claimed under their row locks (deliveryRepo.claimHeld), in the open transaction that
 * holds them. A leased claim writes every row twice after its insert: the lease, then the
 * outcome. A held claim writes it once: the worker attempts the deliveries while the
 * transaction stays open, records their outcomes in it and commits — the way a plain outbox
 * (SELECT … FOR UPDATE SKIP LOCKED, send, UPDATE, COMMIT) works (issue 25; the drain's figures
 * in docs/benchmarks.md).
 *
 * A transaction must not stay open for as long as a slow destination takes (its row locks would
 * block the dashboard's writes to those rows, its connection would be gone from the pool), so a
 * hold lasts at most `holdMs`: then the outcomes in so far are recorded, the deliveries still in
 * flight are handed over to a lease (`deliveryRepo.lease`, the write a leased claim makes) and
 * the transaction commits. Their outcomes are then recorded as leased ones are.
 *
 * If the transaction fails — PostgreSQL undid it to break a deadlock, its connection was lost, the
 * database went away — nothing of it is written and every row is as the claim found it, so what
 * the hold would have written is written outside it (`redo`): the outcomes in, leases for the
 * deliveries still in flight, and nothing is sent twice. While the database is unavailable those
 * writes fail: the worker keeps the outcomes and writes them when it answers, and the deliveries
 * still in flight, left unleased, are recorded at the row versions the claim found. Meanwhile
 * the locks are gone, so another claim may take those deliveries and send them again (at least
 * once, with the same webhook-id); an outcome that comes later than that claim finds its row
 * moved on and is only added to the attempt log (deliveryRepo.record's guards). If the process
 * dies, its deliveries are due again at once.
 */
import type { Queryable } from "../db/client.js";
import { retryConflicts } from "../db/conflict.js";
import { type ClaimedDelivery, type DeliveryOutcome, deliveryRepo } from "./delivery.repo.js";

export class HeldClaim {
  private readonly outcomes: DeliveryOutcome[] = [];
  private readonly inFlight = new Set<string>();
  /** Set when the hold ends with deliveries still in flight: their new row versions once committed (undefined: failed). */
  private handedOver: Promise<Map<string, string> | undefined> | undefined;
  private handOver: (tids: Map<string, string> | undefined) => void = () => {};
  private leasedTids: Map<string, string> | undefined;
  /** The deliveries still in flight when the hold ended. */
  private rest: ClaimedDelivery[] = [];
  /** The outcomes the hold recorded, whose endpoints' health is recorded once it has committed. */
  recorded: DeliveryOutcome[] = [];
  private allIn: () => void = () => {};
  private readonly allInPromise: Promise<void>;

  /** `leaseToken`: the worker's, written into the leases of the deliveries handed over (deliveryRepo.lease). */
  constructor(
    readonly deliveries: ClaimedDelivery[],
    private readonly leaseToken = 0,
  ) {
    for (const d of deliveries) this.inFlight.add(d.id);
    this.allInPromise = new Promise((resolve) => (this.allIn = resolve));
    if (this.inFlight.size === 0) this.allIn();
  }

  /**
   * Takes a delivery's outcome. Returns undefined when the hold records it, or, once the hold
   * has ended, the outcome to record: as a leased one's (at its leased row version), or, if the
   * hold failed and no lease could be written, as a held one's at the row version the claim
   * found. Undefined again if its row had moved on before the lease (a commit whose answer was
   * lost had written it already: that lease carries the worker's token, and the worker takes it
   * back once the database answers — DeliveryWorker's releaseAfterOutage — so it is tried again).
   */
  async finished(outcome: DeliveryOutcome): Promise<DeliveryOutcome | undefined> {
    // The outcome is this delivery's own (made by the worker for this call): it is marked, not
    // copied — a copy per delivery was ~5 % of what a drain allocated (2026-11-27).
    if (!this.handedOver) {
      outcome.held = true;
      this.outcomes.push(outcome);
      this.inFlight.delete(outcome.id);
      if (this.inFlight.size === 0) this.allIn();
      return undefined;
    }
    const tids = await this.handedOver;
    if (tids === undefined) {
      outcome.held = true;
      return outcome;
    }
    const tid = tids.get(outcome.id);
    if (tid === undefined) return undefined;
    outcome.tid = tid;
    return outcome;
  }

  /**
   * In the holding transaction: waits until every outcome is in or `holdMs` has passed, records
   * the outcomes and leases the deliveries still in flight (`onClosing` is called between the
   * two). Call `committed` once the transaction has committed, or `redo` if it failed.
   */
  async close(q: Queryable, holdMs: number, onClosing?: () => void): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.allInPromise, new Promise((resolve) => (timer = setTimeout(resolve, holdMs)))]);
    clearTimeout(timer);
    onClosing?.();
    this.rest = this.deliveries.filter((d) => this.inFlight.has(d.id));
    // From here on, outcomes wait for the commit and go the leased way.
    if (this.rest.length > 0) this.handedOver = new Promise((resolve) => (this.handOver = resolve));
    this.recorded = this.outcomes.splice(0);
    await deliveryRepo.recordHeld(q, this.recorded);
    this.leasedTids = await this.lease(q);
  }

  private async lease(q: Queryable): Promise<Map<string, string>> {
    const leased = await deliveryRepo.lease(q, this.rest, this.leaseToken);
    return new Map(leased.map((row) => [row.id, row.tid]));
  }

  /**
   * After the holding transaction failed (nothing of it written, every row as the claim found
   * it): writes outside it what `close` wrote in it — `record` of the outcomes it had (the
   * caller's, as a retry's push-back needs a transaction of its own; it keeps them if the
   * database is unavailable) and the leases of the deliveries still in flight, which are then
   * handed over as after a commit. If the leases cannot be written, those deliveries' outcomes
   * are recorded at the row versions the claim found (`finished`).
   */
  async redo(q: Queryable, record: (outcomes: DeliveryOutcome[]) => Promise<void>): Promise<void> {
    let tids: Map<string, string> | undefined;
    try {
      await record(this.recorded);
      tids = await retryConflicts(() => this.lease(q));
    } finally {
      this.handOver(tids);
    }
  }

  /** The holding transaction committed: hands the deliveries still in flight over to their leases. */
  committed(): void {
    this.handOver(this.leasedTids);
  }
}
