/**
 * In-process delivery metrics in the Prometheus text format, without a client library: a counter
 * of attempts by outcome and a histogram of attempt latency. Queue depth and the oldest pending
 * age are read from the database at scrape time, so every process reports the shared queue.
 */

/** Upper bounds of the attempt latency histogram, in seconds. */
export const LATENCY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

export type AttemptOutcomeLabel = "succeeded" | "retrying" | "failed";

export interface Metrics {
  recordAttempt(outcome: AttemptOutcomeLabel, latencyMs: number): void;
  /** Endpoints this process disabled because every delivery to them failed for the configured period. */
  recordEndpointsDisabled(count: number): void;
  /** An origin this process's worker found stalled (webhooks/worker.ts, STALLED_MS). */
  recordOriginStalled(): void;
  /**
   * Deliveries this process's worker took back after a database outage: leased by it and not
   * being attempted, their claim's answer or their outcome lost (deliveryRepo.releaseOwnLeases).
   */
  recordLeasesReleased(count: number): void;
  /** The process-local part of the exposition (counters and histogram). */
  render(): string;
}

export function createMetrics(): Metrics {
  const outcomes = new Map<AttemptOutcomeLabel, number>([
    ["succeeded", 0],
    ["retrying", 0],
    ["failed", 0],
  ]);
  const buckets = LATENCY_BUCKETS_SECONDS.map(() => 0);
  let count = 0;
  let sumSeconds = 0;
  let endpointsDisabled = 0;
  let originsStalled = 0;
  let leasesReleased = 0;
  return {
    recordLeasesReleased(n) {
      leasesReleased += n;
    },
    recordEndpointsDisabled(n) {
      endpointsDisabled += n;
    },
    recordOriginStalled() {
      originsStalled += 1;
    },
    recordAttempt(outcome, latencyMs) {
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      const seconds = latencyMs / 1000;
      count += 1;
      sumSeconds += seconds;
      LATENCY_BUCKETS_SECONDS.forEach((le, i) => {
        if (seconds <= le) buckets[i] = (buckets[i] ?? 0) + 1;
      });
    },
    render() {
      const lines = [
        "# HELP svc_webhook_deliveries_total Webhook delivery attempts by outcome (retrying = failed attempt with a retry scheduled).",
        "# TYPE svc_webhook_deliveries_total counter",
        ...[...outcomes].map(([k, v]) => `svc_webhook_deliveries_total{outcome="${k}"} ${v}`),
        "# HELP svc_webhook_attempt_duration_seconds Duration of one webhook HTTP attempt.",
        "# TYPE svc_webhook_attempt_duration_seconds histogram",
        ...LATENCY_BUCKETS_SECONDS.map(
          (le, i) => `svc_webhook_attempt_duration_seconds_bucket{le="${le}"} ${buckets[i] ?? 0}`,
        ),
        `svc_webhook_attempt_duration_seconds_bucket{le="+Inf"} ${count}`,
        `svc_webhook_attempt_duration_seconds_sum ${sumSeconds}`,
        `svc_webhook_attempt_duration_seconds_count ${count}`,
        "# HELP svc_webhook_endpoints_disabled_total Endpoints this process disabled after every delivery to them failed for the configured period.",
        "# TYPE svc_webhook_endpoints_disabled_total counter",
        `svc_webhook_endpoints_disabled_total ${endpointsDisabled}`,
        "# HELP svc_webhook_origins_stalled_total Times this process found a destination origin stalled (every socket to it hanging) and left it out of its claims.",
        "# TYPE svc_webhook_origins_stalled_total counter",
        `svc_webhook_origins_stalled_total ${originsStalled}`,
        "# HELP svc_webhook_leases_released_total Deliveries this process's worker took back after a database outage: leased by it, not being attempted (their claim's answer or their outcome was lost), due again at once instead of when the lease runs out.",
        "# TYPE svc_webhook_leases_released_total counter",
        `svc_webhook_leases_released_total ${leasesReleased}`,
      ];
      return `${lines.join("\n")}\n`;
    },
  };
}
