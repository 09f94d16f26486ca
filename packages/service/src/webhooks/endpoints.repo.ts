/** SQL of webhook endpoints: the merchant's own destinations, with their subscriptions and health. */
import type { Queryable } from "../db/client.js";
import { moveWaitingDeliveries } from "./messages.repo.js";

export interface EndpointRow {
  id: string;
  merchant_id: string;
  kind: "endpoint" | "cli";
  url: string;
  description: string;
  /** null: every event type. */
  event_types: string[] | null;
  headers: Record<string, string>;
  enabled: boolean;
  payload_version: string;
  include_metadata: boolean;
  failing_since: Date | null;
  last_error: string | null;
  disabled_at: Date | null;
  disabled_reason: "manual" | "failing" | null;
  /** Set when a disabled endpoint is enabled again: where a replay of what it missed starts by default. */
  replay_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewEndpoint = Pick<
  EndpointRow,
  | "id"
  | "merchant_id"
  | "kind"
  | "url"
  | "description"
  | "event_types"
  | "headers"
  | "enabled"
  | "payload_version"
  | "include_metadata"
>;

export type EndpointChange = Partial<
  Pick<
    EndpointRow,
    "url" | "description" | "event_types" | "headers" | "payload_version" | "include_metadata"
  >
>;

const COLUMNS = `id, merchant_id, kind, url, description, event_types, headers, enabled, payload_version,
  include_metadata, failing_since, last_error, disabled_at, disabled_reason, replay_since, created_at, updated_at`;

export const endpointsRepo = {
  async list(q: Queryable, merchantId: string): Promise<EndpointRow[]> {
    return q.query<EndpointRow>(
      `select ${COLUMNS} from webhook_endpoints where merchant_id = $1 order by created_at, id`,
      [merchantId],
    );
  },
  async find(q: Queryable, merchantId: string, id: string, lock = false): Promise<EndpointRow | undefined> {
    const rows = await q.query<EndpointRow>(
      `select ${COLUMNS} from webhook_endpoints where merchant_id = $1 and id = $2${lock ? " for update" : ""}`,
      [merchantId, id],
    );
    return rows[0];
  },
  async count(q: Queryable, merchantId: string): Promise<number> {
    const rows = await q.query<{ n: number }>(
      "select count(*)::int4 as n from webhook_endpoints where merchant_id = $1",
      [merchantId],
    );
    return rows[0]!.n;
  },
  async urlTaken(q: Queryable, merchantId: string, url: string, except?: string): Promise<boolean> {
    const rows = await q.query(
      "select 1 from webhook_endpoints where merchant_id = $1 and url = $2 and id <> coalesce($3, '')",
      [merchantId, url, except ?? null],
    );
    return rows.length > 0;
  },
  async insert(q: Queryable, e: NewEndpoint): Promise<EndpointRow> {
    const rows = await q.query<EndpointRow>(
      `insert into webhook_endpoints (id, merchant_id, kind, url, description, event_types, headers, enabled,
                                      payload_version, include_metadata)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10) returning ${COLUMNS}`,
      [
        e.id,
        e.merchant_id,
        e.kind,
        e.url,
        e.description,
        e.event_types,
        JSON.stringify(e.headers),
        e.enabled,
        e.payload_version,
        e.include_metadata,
      ],
    );
    return rows[0]!;
  },
  /**
   * Changes the fields given. A new URL is a new receiver: the failure run and last error, which
   * were the old URL's, are forgotten (the dead-endpoint rule counts the new URL's failures only).
   */
  async update(q: Queryable, merchantId: string, id: string, c: EndpointChange): Promise<EndpointRow> {
    const rows = await q.query<EndpointRow>(
      `update webhook_endpoints set
          failing_since = case when $3::text <> url then null else failing_since end,
          last_error = case when $3::text <> url then null else last_error end,
          url = coalesce($3, url), description = coalesce($4, description),
          event_types = case when $5::boolean then $6::text[] else event_types end,
          headers = coalesce($7::jsonb, headers), payload_version = coalesce($8, payload_version),
          include_metadata = coalesce($9, include_metadata), updated_at = now()
        where merchant_id = $1 and id = $2 returning ${COLUMNS}`,
      [
        merchantId,
        id,
        c.url ?? null,
        c.description ?? null,
        c.event_types !== undefined,
        c.event_types ?? null,
        c.headers ? JSON.stringify(c.headers) : null,
        c.payload_version ?? null,
        c.include_metadata ?? null,
      ],
    );
    return rows[0]!;
  },
  /**
   * Turns an endpoint off, with why, or on again: its failure run is forgotten, and `replay_since`
   * remembers where what it missed begins (when it began failing, else when it was disabled).
   */
  async setEnabled(
    q: Queryable,
    merchantId: string,
    id: string,
    enabled: boolean,
    reason: "manual" | "failing",
  ): Promise<EndpointRow> {
    const rows = await q.query<EndpointRow>(
      `update webhook_endpoints set enabled = $3,
          disabled_at = case when $3 then null else now() end,
          disabled_reason = case when $3 then null else $4 end,
          failing_since = case when $3 then null else failing_since end,
          replay_since = case when $3 then coalesce(failing_since, disabled_at) else replay_since end,
          updated_at = now()
        where merchant_id = $1 and id = $2 returning ${COLUMNS}`,
      [merchantId, id, enabled, reason],
    );
    return rows[0]!;
  },
  /** Deletes the endpoint, ending first what still waits for it (failed with `reason`). */
  async remove(q: Queryable, merchantId: string, id: string, reason: string): Promise<boolean> {
    await endpointsRepo.failWaiting(q, id, reason);
    const rows = await q.query(
      "delete from webhook_endpoints where merchant_id = $1 and id = $2 returning id",
      [merchantId, id],
    );
    return rows.length > 0;
  },
  /**
   * Sends an endpoint's deliveries still waiting (pending or retrying) to its new URL `url`, in the
   * transaction that changed it, as a replay moves a finished one (moveWaitingDeliveries says
   * how). Returns how many moved.
   */
  async moveWaiting(q: Queryable, endpointId: string, url: string): Promise<number> {
    return moveWaitingDeliveries(q, "d.endpoint_id = $2", [endpointId], url);
  },
  /**
   * Ends the deliveries streaming to a `svc listen` endpoint that is gone. Deleting it ends what
   * waits for it (`failWaiting`), but a producer that routed a message to it before and wrote it
   * after (its operation was waiting for the gateway) leaves one that no stream will take and the
   * retention purge never deletes (it keeps what still streams). Through the stream index: the
   * rows still streaming, never the whole table.
   */
  async endOrphanStreams(q: Queryable): Promise<number> {
    const rows = await q.query(
      `update webhook_deliveries d
          set status = 'failed', last_error = 'endpoint deleted: not sent', lease_until = null,
              completed_at = now(), updated_at = now()
        where d.status = 'stream' and d.endpoint_id is not null
          and not exists (select 1 from webhook_endpoints e where e.id = d.endpoint_id)
       returning d.id`,
    );
    return rows.length;
  },
  /**
   * Ends an endpoint's deliveries still waiting (it was disabled or deleted): they fail with
   * `reason`, so nothing more is sent to it and a re-enable can replay them.
   */
  async failWaiting(q: Queryable, endpointId: string, reason: string): Promise<number> {
    const rows = await q.query(
      `update webhook_deliveries set status = 'failed', last_error = $2, lease_until = null, completed_at = now(),
              updated_at = now()
        where endpoint_id = $1 and status in ('pending', 'retrying', 'stream') returning id`,
      [endpointId, reason],
    );
    return rows.length;
  },
  /**
   * Disables, at once and in one statement, every enabled endpoint that has been failing since
   * before `cutoff` (so two processes sweeping together disable each endpoint once).
   */
  /** A `svc listen` endpoint's stream is open now (see removeAbandonedCli). */
  async streamSeen(q: Queryable, endpointId: string): Promise<void> {
    await q.query("update webhook_endpoints set stream_seen_at = now() where id = $1 and kind = 'cli'", [
      endpointId,
    ]);
  },
  /**
   * Locks the `svc listen` endpoints whose stream nobody has had open since `cutoff` (never opened:
   * made before it), skipping those another sweep holds.
   */
  async abandonedCli(q: Queryable, cutoff: Date): Promise<Pick<EndpointRow, "id" | "merchant_id">[]> {
    return q.query(
      `select id, merchant_id from webhook_endpoints
        where kind = 'cli' and coalesce(stream_seen_at, created_at) < $1
        for update skip locked`,
      [cutoff],
    );
  },
  async disableFailing(q: Queryable, cutoff: Date): Promise<EndpointRow[]> {
    return q.query<EndpointRow>(
      `update webhook_endpoints set enabled = false, disabled_at = now(), disabled_reason = 'failing', updated_at = now()
        where enabled and failing_since is not null and failing_since < $1 returning ${COLUMNS}`,
      [cutoff],
    );
  },
};
