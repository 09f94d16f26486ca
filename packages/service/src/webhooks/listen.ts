/**
 * `svc listen`: a developer's CLI receives a merchant's webhooks without an inbound port. It
 * registers a temporary endpoint of kind `cli` (`POST /v1/webhooks/listen`), whose deliveries wait
 * in status `stream` (the worker never takes them), and reads them from the endpoint's event stream
 * (`GET /v1/webhooks/endpoints/{id}/stream`, server-sent events). Each event is one attempt: the
 * exact body and the headers svc signs for it now; the CLI forwards it to the local server and
 * reports the answer (`POST …/deliveries/{delivery_id}/result`), which is recorded as an attempt
 * and moves the delivery by the normal retry policy — the delivery log shows it, a failed forward
 * is retried on the schedule, and one parent's messages go one at a time, in order. Messages that
 * arrive while no CLI is connected wait like any endpoint's; a lease that the CLI never answers
 * (it died) runs out and the delivery is taken again.
 */
import { signWebhook } from "@svc/webhooks/sign";
import { VERSION_HEADER } from "@svc/webhooks/sign";
import type { Db } from "../db/client.js";
import { AppError } from "../http/problem.js";

import {
  BODY_COLUMN,
  NEXT_SEQUENCE,
  PAYLOAD_VERSION_COLUMN,
  RETRY_SCHEDULE_COLUMN,
} from "./delivery.repo.js";
import { type EndpointsService, endpointView } from "./endpoints.service.js";
import { endpointsRepo } from "./endpoints.repo.js";
import { secretsInForce } from "./secrets.js";
import { settingsRepo } from "./settings.repo.js";
import { nextState, parseRetryAfter } from "./retry-policy.js";

/** How long a streamed delivery is the CLI's before it may be taken again (it forwards, then reports). */
export const STREAM_LEASE_SECONDS = 60;

export interface StreamedDelivery {
  delivery_id: string;
  /** The attempt number: the report names it, so a late report of an older attempt changes nothing. */
  attempt: number;
  event_type: string;
  headers: Record<string, string>;
  body: string;
}

interface ClaimedRow {
  id: string;
  message_id: string;
  tries: number;
  sequence: number;
  event_type: string;
  payload_version: string;
  body: string;
  secrets: string[];
}

export function createListenService(db: Db, deps: { endpoints: EndpointsService; now: () => Date }) {
  return {
    /** A new `cli` endpoint for the merchant (all event types unless `eventTypes`), and the secret that signs. */
    async start(merchantId: string, eventTypes: string[] | undefined) {
      const endpoint = await deps.endpoints.createCli(merchantId, eventTypes);
      const secrets = await settingsRepo.secrets(db, merchantId);
      return {
        endpoint,
        signing_secret: secrets[0] ?? null,
        stream_path: `/v1/webhooks/endpoints/${endpoint.id}/stream`,
      };
    },

    /** The endpoint's stream is open now: it is not abandoned (EndpointsService.removeAbandonedCli). */
    async seen(endpointId: string): Promise<void> {
      await endpointsRepo.streamSeen(db, endpointId);
    },

    async check(merchantId: string, endpointId: string) {
      const e = await endpointsRepo.find(db, merchantId, endpointId);
      if (!e || e.kind !== "cli")
        throw new AppError(
          "not_found",
          `No svc listen endpoint ${endpointId}: it was deleted (its svc listen stopped, or nothing read it for a day), or is not yours. Start svc listen again.`,
        );
      return endpointView(e);
    },

    /**
     * Takes up to `limit` due deliveries of the endpoint (a lease), oldest first, one per parent
     * at a time (an earlier one of the same parent still waiting holds the later ones back).
     */
    async take(endpointId: string, limit: number): Promise<StreamedDelivery[]> {
      const rows = await db.query<ClaimedRow>(
        `with due as (
           select c.ctid as tid from webhook_deliveries c
            where c.endpoint_id = $1 and c.status = 'stream' and c.next_attempt_at <= now()
              and (c.lease_until is null or c.lease_until < now())
              and not exists (select 1 from webhook_deliveries e
                               where e.endpoint_id = $1 and e.status = 'stream'
                                 and e.parent_session_id = c.parent_session_id and e.seq < c.seq)
            order by c.seq limit $2
            for update of c skip locked)
         update webhook_deliveries d
            set lease_until = now() + make_interval(secs => ${STREAM_LEASE_SECONDS}), tries = d.tries + 1, updated_at = now(),
                sequence = coalesce(d.sequence, (${NEXT_SEQUENCE}))
          where d.ctid = any(array(select tid from due))
         returning d.id, d.message_id, d.tries, d.sequence, d.event_type, ${PAYLOAD_VERSION_COLUMN} as payload_version,
                   ${BODY_COLUMN} as body,
                   ${secretsInForce("d.merchant_id")} as secrets`,
        [endpointId, limit],
      );
      const seconds = Math.floor(deps.now().getTime() / 1000);
      return Promise.all(
        rows
          .sort((a, b) => Number(a.sequence) - Number(b.sequence))
          .map(async (r) => ({
            delivery_id: r.id,
            attempt: r.tries,
            event_type: r.event_type,
            body: r.body,
            headers: {
              "content-type": "application/json",
              "webhook-id": r.message_id,
              "webhook-timestamp": String(seconds),
              "webhook-signature": await signWebhook({
                id: r.message_id,
                timestamp: seconds,
                body: r.body,
                secrets: r.secrets,
              }),
              "svc-event-type": r.event_type,
              "svc-sequence": String(r.sequence),
              [VERSION_HEADER]: r.payload_version,
            },
          })),
      );
    },

    /** Gives back the leases of deliveries the CLI took but did not report (it disconnected). */
    async release(endpointId: string, deliveryIds: string[]): Promise<void> {
      if (deliveryIds.length === 0) return;
      await db.query(
        `update webhook_deliveries set lease_until = null, tries = greatest(tries - 1, 0), updated_at = now()
          where endpoint_id = $1 and id = any($2) and status = 'stream'`,
        [endpointId, deliveryIds],
      );
    },

    /**
     * The local server's answer to one forwarded attempt, recorded like a worker's: the attempt,
     * then succeeded, retried on the schedule (it stays `stream`) or given up.
     */
    async report(
      merchantId: string,
      endpointId: string,
      deliveryId: string,
      r: {
        attempt: number;
        status_code: number | null;
        latency_ms: number;
        error?: string | undefined;
        response_body?: string | undefined;
        retry_after?: string | undefined;
      },
    ) {
      const rows = await db.query<{ tries: number; retry_schedule_seconds: number[]; status: string }>(
        `select d.tries, ${RETRY_SCHEDULE_COLUMN} as retry_schedule_seconds, d.status from webhook_deliveries d
          where d.id = $1 and d.endpoint_id = $2 and d.merchant_id = $3`,
        [deliveryId, endpointId, merchantId],
      );
      const d = rows[0];
      if (!d) throw new AppError("not_found", `No delivery ${deliveryId} of endpoint ${endpointId}.`);
      const now = deps.now();
      const ok = r.status_code !== null && r.status_code >= 200 && r.status_code < 300;
      const next = nextState(
        { tries: d.tries, retry_schedule_seconds: d.retry_schedule_seconds },
        { ok, statusCode: r.status_code, retryAfterSeconds: parseRetryAfter(r.retry_after, now.getTime()) },
        now,
      );
      const error = ok
        ? null
        : (r.error ?? (r.status_code === null ? "no answer from the local server" : `HTTP ${r.status_code}`));
      const stale = d.status !== "stream" || Number(d.tries) !== r.attempt;
      await db.tx(async (q) => {
        await q.query(
          `insert into webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, error, response_body)
           values ($1, $2, $3, $4, $5, $6)`,
          [
            deliveryId,
            now,
            r.status_code,
            Math.max(0, Math.round(r.latency_ms)),
            error,
            r.response_body?.slice(0, 2048) ?? null,
          ],
        );
        if (stale) return;
        await q.query(
          `update webhook_deliveries set status = $3, next_attempt_at = coalesce($4, next_attempt_at), lease_until = null,
                  last_status_code = $5, last_error = $6, updated_at = now(),
                  completed_at = case when $3 in ('succeeded', 'failed') then now() end
            where id = $1 and endpoint_id = $2 and status = 'stream' and tries = $7`,
          [
            deliveryId,
            endpointId,
            next.status === "retrying" ? "stream" : next.status,
            next.nextAttemptAt,
            r.status_code,
            error,
            r.attempt,
          ],
        );
      });
      return {
        delivery_id: deliveryId,
        status: stale ? "stale" : next.status === "retrying" ? "retrying" : next.status,
        next_attempt_at: next.nextAttemptAt?.toISOString() ?? null,
      };
    },
  };
}

export type ListenService = ReturnType<typeof createListenService>;
