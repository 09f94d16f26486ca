/** `GET /metrics`: Prometheus text of the delivery worker and the shared outbox queue. */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { Db } from "../db/client.js";
import { discrepanciesRepo } from "../gateways/discrepancies.repo.js";
import { AppError } from "../http/problem.js";
import type { Metrics } from "./metrics.js";

export async function queueGauges(db: Db): Promise<string> {
  const rows = await db.query<{ depth: number; oldest: number | null }>(
    `select count(*)::int8 as depth, extract(epoch from (now() - min(created_at)))::float8 as oldest
       from webhook_deliveries where status in ('pending', 'retrying')`,
  );
  const depth = rows[0]?.depth ?? 0;
  const oldest = rows[0]?.oldest ?? 0;
  return [
    "# HELP svc_webhook_queue_depth Deliveries waiting for a first try or a retry.",
    "# TYPE svc_webhook_queue_depth gauge",
    `svc_webhook_queue_depth ${depth}`,
    "# HELP svc_webhook_oldest_pending_age_seconds Age of the oldest delivery not yet done.",
    "# TYPE svc_webhook_oldest_pending_age_seconds gauge",
    `svc_webhook_oldest_pending_age_seconds ${Math.max(0, Number(oldest))}`,
    "",
  ].join("\n");
}

/** Discrepancies recorded per rule (a counter: they are never deleted) and how many are open. */
export async function discrepancyGauges(db: Db): Promise<string> {
  const rows = await discrepanciesRepo.counts(db);
  return [
    "# HELP svc_gateway_discrepancies_total Discrepancies recorded, by rule: the money rule a gateway-reported operation broke, gateway_outcome_unknown, operation_failed_after_success or payment_after_close.",
    "# TYPE svc_gateway_discrepancies_total counter",
    ...rows.map((r) => `svc_gateway_discrepancies_total{rule="${r.rule}"} ${Number(r.total)}`),
    "# HELP svc_gateway_discrepancies_open Discrepancies no operator has resolved yet.",
    "# TYPE svc_gateway_discrepancies_open gauge",
    `svc_gateway_discrepancies_open ${rows.reduce((n, r) => n + Number(r.open), 0)}`,
    "",
  ].join("\n");
}

/** Endpoints by state, from the database (every process reports the same): disabled for failing is the alert. */
export async function endpointGauges(db: Db): Promise<string> {
  const rows = await db.query<{ failing: number; disabled: number; enabled: number }>(
    `select count(*) filter (where enabled and failing_since is not null)::int4 as failing,
            count(*) filter (where not enabled and disabled_reason = 'failing')::int4 as disabled,
            count(*) filter (where enabled)::int4 as enabled
       from webhook_endpoints`,
  );
  const r = rows[0] ?? { failing: 0, disabled: 0, enabled: 0 };
  return [
    "# HELP svc_webhook_endpoints Webhook endpoints by state: enabled, failing (enabled, last attempt failed), disabled_failing (disabled after failing for the configured period).",
    "# TYPE svc_webhook_endpoints gauge",
    `svc_webhook_endpoints{state="enabled"} ${Number(r.enabled)}`,
    `svc_webhook_endpoints{state="failing"} ${Number(r.failing)}`,
    `svc_webhook_endpoints{state="disabled_failing"} ${Number(r.disabled)}`,
    "",
  ].join("\n");
}

/** Equal in constant time whatever the lengths (both are hashed first). */
function sameToken(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

/** `token`: when set, `/metrics` answers only `Authorization: Bearer <token>` (SVC_METRICS_TOKEN). */
export function metricsRoutes(app: FastifyInstance, db: Db, metrics: Metrics, token = ""): void {
  app.get("/metrics", { schema: { hide: true } }, async (request, reply) => {
    if (token) {
      const [scheme = "", given = ""] = (request.headers.authorization ?? "").split(/\s+/, 2);
      if (scheme.toLowerCase() !== "bearer" || !sameToken(given, token))
        throw new AppError(
          "unauthenticated",
          "Send Authorization: Bearer <SVC_METRICS_TOKEN> to read /metrics.",
        );
    }
    return reply
      .type("text/plain; version=0.0.4; charset=utf-8")
      .send(metrics.render() + (await databaseGauges(db)));
  });
}

/** How long /metrics waits for the database's gauges before it answers without them. */
const DATABASE_GAUGES_WAIT_MS = 2_000;

/**
 * The gauges read from the database, and whether it answered: while it does not (an outage, a
 * failover), /metrics still answers with this process's own counters — what an outage is
 * diagnosed with — and `svc_metrics_database_up 0`, instead of a 503.
 */
async function databaseGauges(db: Db): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const read = Promise.all([queueGauges(db), discrepancyGauges(db), endpointGauges(db)]).then((parts) =>
    parts.join(""),
  );
  const gauges = await Promise.race([
    // Caught here, so a failure after the wait is over is not an unhandled rejection.
    read.catch(() => undefined),
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), DATABASE_GAUGES_WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
  return (
    [
      "# HELP svc_metrics_database_up Whether the database answered for this scrape's gauges (0: they are left out).",
      "# TYPE svc_metrics_database_up gauge",
      `svc_metrics_database_up ${gauges === undefined ? 0 : 1}`,
      "",
    ].join("\n") + (gauges ?? "")
  );
}
