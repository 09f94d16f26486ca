/** SQL of the messages API (messages with their deliveries and attempts, replays) and of where a message went. */
import { canonicalJson } from "@svc/webhooks";
import { signPayload } from "@svc/webhooks/sign";
import type { TransactionType } from "@svc/protocol";
import type { Queryable } from "../db/client.js";
import { PAYLOAD_VERSION_COLUMN } from "./delivery.repo.js";
import { settingsRepo, type WebhookConfig } from "./settings.repo.js";

export interface MessageFilter {
  status?: "pending" | "retrying" | "succeeded" | "failed" | undefined;
  sessionId?: string | undefined;
  since?: Date | undefined;
  /** Exclusive end of the time range. */
  until?: Date | undefined;
  limit: number;
}

interface MessageRow {
  id: string;
  kind: string;
  event_type: string;
  parent_session_id: string;
  child_session_id: string | null;
  reference_number: string | null;
  result: string | null;
  body: string;
  created_at: Date;
}

interface DeliveryRow {
  id: string;
  message_id: string;
  url: string;
  endpoint_id: string | null;
  payload_version: string;
  status: string;
  tries: number;
  next_attempt_at: Date;
  last_error: string | null;
  last_status_code: number | null;
  created_at: Date;
  completed_at: Date | null;
}

interface AttemptRow {
  delivery_id: string;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
  /** Where it went; null: its delivery's URL (migration 0027). */
  url: string | null;
}

/** A message's fields from its row (position 1), as the webhook_messages view gives them. */
const MESSAGE_COLUMNS = `m.message_id as id, coalesce(m.kind, split_part(m.event_type, '.', 1)) as kind, m.event_type,
  m.parent_session_id, m.child_session_id, m.reference_number, m.result, m.body, m.created_at`;

/**
 * The ids of a merchant's messages created in [$2, $3) ($1: the merchant), through the merchant
 * and time index for the messages no longer due and the due queue for the others.
 */
export const MERCHANT_MESSAGES_IN_RANGE = `select m.message_id from webhook_deliveries m
   where m.position = 1 and m.status not in ('pending', 'retrying')
     and m.merchant_id = $1 and m.created_at >= $2 and m.created_at < $3
  union all
  select m.message_id from webhook_deliveries m
   where m.position = 1 and m.status in ('pending', 'retrying')
     and m.merchant_id = $1 and m.created_at >= $2 and m.created_at < $3`;

/**
 * The columns of a delivery's row that hold its URL's latest answer (its latest attempt and its
 * last status code and error): a delivery sent to a new URL clears them, as the new URL has not
 * answered yet (replay, moveWaitingDeliveries).
 */
export const OLD_URL_ANSWER = [
  "last_attempt_at",
  "last_attempt_status_code",
  "last_attempt_latency_ms",
  "last_attempt_error",
  "last_attempt_response_body",
  "last_status_code",
  "last_error",
] as const;

/**
 * The `stamped` and `kept` CTEs of a statement that sends deliveries to a new URL (replay,
 * moveWaitingDeliveries): their attempts so far keep the URL they went to
 * (webhook_attempts.url, migration 0027). The earlier ones get it written (`stamped`), and the
 * latest moves off the row into webhook_attempts with it (`kept` reads the row as the statement's
 * snapshot has it, before its update, at the same ctid). `moved` is a relation of the moved
 * deliveries' `id` and `tid` (their row versions before the update); the statement's `target`
 * CTE has each one's `id` and `prior_url`.
 */
export function attemptsKeepTheirUrl(moved: string): string {
  return `stamped as (
         update webhook_attempts a set url = t.prior_url
           from target t
          where a.delivery_id = any(array(select m.id from ${moved} m)) and t.id = a.delivery_id and a.url is null),
       kept as (
         insert into webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, error, response_body, url)
         select p.id, p.last_attempt_at, p.last_attempt_status_code, p.last_attempt_latency_ms, p.last_attempt_error,
                p.last_attempt_response_body, p.url
           from webhook_deliveries p
          where p.ctid = any(array(select m.tid from ${moved} m)) and p.last_attempt_at is not null)`;
}

/**
 * A change's answer when it gave an endpoint or a seed destination a new URL: how many deliveries
 * still waiting for the old one (pending or retrying) go to the new one now (moveWaitingDeliveries).
 */
export interface Moved {
  moved?: number;
}

/**
 * Sends waiting deliveries (pending or retrying) to a new URL `url` (endpointsRepo.moveWaiting,
 * moveSeedWaiting), in the caller's transaction: each takes the next sequence number of its
 * (parent, new URL) when it goes out there, its attempts so far keep the URL they went to
 * (attemptsKeepTheirUrl), the old URL's answer is cleared (OLD_URL_ANSWER), and it is due at once
 * rather than at the old URL's next retry step; its tries count on, so its retry schedule
 * continues. One in flight goes to the new URL at once too (its lease ends): the attempt still
 * open to the old URL is not cut short, and its outcome finds the row moved on and is only
 * logged, with the old URL. Kept leased, it would hold back the deliveries behind it at the new
 * URL for its timeout plus LEASE_MARGIN_SECONDS. The rows are locked first, so a worker's outcome
 * recorded at the same moment is waited for, and its delivery moved as it then is. A delivery
 * whose message has one at the new URL already is ended instead (`failed`, "not sent: its message
 * has another delivery to …"): the new URL gets each message once, and the old one, no longer a
 * destination, nothing more. `which` is a condition on the delivery `d`, its parameters `params`
 * numbered from $2 ($1 is `url`). Returns how many moved.
 */
export async function moveWaitingDeliveries(
  q: Queryable,
  which: string,
  params: unknown[],
  url: string,
): Promise<number> {
  const waiting = `${which} and d.status in ('pending', 'retrying') and d.url <> $1`;
  await q.query(`select 1 from webhook_deliveries d where ${waiting} for update`, [url, ...params]);
  // `twice`: its message has a delivery at the new URL already, which takes it there.
  const [row] = await q.query<{ moved: number }>(
    `with target as (
         select d.ctid as tid, d.id, d.url as prior_url,
                exists (select 1 from webhook_deliveries o where o.message_id = d.message_id and o.url = $1) as twice
           from webhook_deliveries d where ${waiting}),
       moved as (
         update webhook_deliveries d
            set url = $1, sequence = null, next_attempt_at = least(d.next_attempt_at, now()), lease_until = null,
                ${OLD_URL_ANSWER.map((c) => `${c} = null`).join(", ")}, updated_at = now()
           from target t
          where d.ctid = any(array(select tid from target where not twice)) and d.ctid = t.tid
         returning d.id, t.tid),
       ${attemptsKeepTheirUrl("moved")},
       ended as (
         update webhook_deliveries d
            set status = 'failed', lease_until = null, completed_at = now(), updated_at = now(),
                last_error = 'not sent: its message has another delivery to ' || $1
          where d.ctid = any(array(select tid from target where twice)))
       select count(*)::int4 as moved from moved`,
    [url, ...params],
  );
  return row!.moved;
}

/**
 * Sends the waiting deliveries of a seed destination whose URL changed from `from` to `to` there
 * (the general configuration's `operations_webhook_url`, or a plugin's `webhook_url` for its
 * transaction type), as an endpoint's new URL takes its own (endpointsRepo.moveWaiting). A seed
 * delivery's row does not say which seed it was for, only its URL, so the rule is by URL and by
 * what else could have sent a delivery there:
 * - the general URL takes the operation webhooks waiting at `from`, unless an enabled plugin's URL
 *   is `from` too (they may be that plugin's: then none moves);
 * - a plugin's URL takes the operation webhooks at `from` of its type's payments, unless the
 *   general URL is `from` too, and their payment webhooks at `from` unless the payment named its
 *   own `webhook_url` (that one was asked for by the payment, not the plugin).
 * Endpoints' deliveries never move here. Returns how many moved.
 */
export function moveSeedWaiting(
  q: Queryable,
  merchantId: string,
  seed: "general" | TransactionType,
  from: string,
  to: string,
): Promise<number> {
  const seedAt = "d.merchant_id = $2 and d.endpoint_id is null and d.url = $3";
  if (seed === "general")
    return moveWaitingDeliveries(
      q,
      `${seedAt} and d.event_type = 'operation'
         and not exists (select 1 from webhook_plugins p where p.merchant_id = $2 and p.enabled and p.webhook_url = $3)`,
      [merchantId, from],
      to,
    );
  return moveWaitingDeliveries(
    q,
    `${seedAt} and exists (
       select 1 from transactions t
        where t.session_id = d.parent_session_id and t.type = $4
          and case when d.event_type = 'operation'
                   then not exists (select 1 from webhook_configs c
                                     where c.merchant_id = $2 and c.operations_webhook_url = $3)
                   else t.webhook_url is null end)`,
    [merchantId, from, seed],
    to,
  );
}

export const messagesRepo = {
  async list(q: Queryable, merchantId: string, f: MessageFilter): Promise<MessageRow[]> {
    const params: unknown[] = [merchantId];
    const where = ["m.merchant_id = $1"];
    if (f.sessionId) {
      params.push(f.sessionId);
      where.push(`(m.parent_session_id = $${params.length} or m.child_session_id = $${params.length})`);
    }
    if (f.since) {
      params.push(f.since);
      where.push(`m.created_at >= $${params.length}`);
    }
    if (f.until) {
      params.push(f.until);
      where.push(`m.created_at < $${params.length}`);
    }
    if (f.status) {
      params.push(f.status);
      where.push(
        `exists (select 1 from webhook_deliveries d where d.message_id = m.message_id and d.status = $${params.length})`,
      );
    }
    params.push(f.limit);
    const limit = `$${params.length}`;
    // A message is its first delivery's row. Those no longer due are indexed by merchant and time;
    // those still due are the due queue (what is in flight), read on their own: each part sorted
    // and cut to the page, then merged.
    const part = (due: boolean) =>
      `(select ${MESSAGE_COLUMNS} from webhook_deliveries m
         where m.position = 1 and m.status ${due ? "in" : "not in"} ('pending', 'retrying') and ${where.join(" and ")}
         order by m.created_at desc, m.message_id desc limit ${limit})`;
    return q.query<MessageRow>(
      `select * from (${part(false)} union all ${part(true)}) x order by created_at desc, id desc limit ${limit}`,
      params,
    );
  },
  async find(q: Queryable, merchantId: string, id: string): Promise<MessageRow | undefined> {
    const rows = await q.query<MessageRow>(
      `select id, kind, event_type, parent_session_id, child_session_id, reference_number, result, body, created_at
         from webhook_messages where merchant_id = $1 and id = $2`,
      [merchantId, id],
    );
    return rows[0];
  },
  async deliveries(q: Queryable, messageIds: string[]): Promise<DeliveryRow[]> {
    if (messageIds.length === 0) return [];
    return q.query<DeliveryRow>(
      `select id, message_id, url, endpoint_id, ${PAYLOAD_VERSION_COLUMN} as payload_version, status, tries, next_attempt_at,
              last_error, last_status_code, created_at, completed_at
         from webhook_deliveries d where message_id = any($1) order by seq`,
      [messageIds],
    );
  },
  /**
   * Every attempt of these deliveries: the earlier ones of a retried delivery (webhook_attempts,
   * by delivery id) and each delivery's latest (on its row, found through its message), with the
   * URL it went to when that is not its delivery's (a replay moved the delivery since).
   */
  async attempts(q: Queryable, deliveries: { id: string; message_id: string }[]): Promise<AttemptRow[]> {
    if (deliveries.length === 0) return [];
    return q.query<AttemptRow>(
      `select delivery_id, attempted_at, status_code, latency_ms, error, response_body, url
         from webhook_attempts where delivery_id = any($1)
       union all
       select id, last_attempt_at, last_attempt_status_code, last_attempt_latency_ms, last_attempt_error,
              last_attempt_response_body, null
         from webhook_deliveries where message_id = any($2) and id = any($1) and last_attempt_at is not null
        order by attempted_at`,
      [deliveries.map((d) => d.id), [...new Set(deliveries.map((d) => d.message_id))]],
    );
  },
  /**
   * Where the `result` message about child `childSessionId` was sent: each URL once, with the
   * endpoint it was sent for (null: a seed destination), in delivery order; none when there was no
   * such message. Found through the parent (an indexed column).
   */
  async destinations(
    q: Queryable,
    merchantId: string,
    parentSessionId: string,
    childSessionId: string,
    result: string,
  ): Promise<{ url: string; endpoint_id: string | null }[]> {
    const rows = await q.query<{ url: string; endpoint_id: string | null }>(
      `select d.url, d.endpoint_id from webhook_messages m join webhook_deliveries d on d.message_id = m.id
        where m.merchant_id = $1 and m.parent_session_id = $2 and m.child_session_id = $3 and m.result = $4
        order by d.seq`,
      [merchantId, parentSessionId, childSessionId, result],
    );
    const seen = new Set<string>();
    return rows.filter((row) => !seen.has(row.url) && seen.add(row.url));
  },
  /**
   * Puts finished deliveries back in the queue as new: no tries yet, due now, with `current`
   * timeout and retry schedule (the merchant's settings now, not those saved when the message
   * was created: a merchant replays after fixing what made them fail). A delivery to an endpoint
   * goes where the endpoint is now: its URL now (a merchant often fixes a failing endpoint by
   * changing its URL) — the worker reads the endpoint's headers when it sends. One whose URL
   * changes takes the next sequence number of its (parent, new URL) when it goes out; it keeps its
   * message (`webhook-id`) and its place in the queue, so it still goes before its parent's later
   * deliveries to that URL. A delivery to an endpoint that is disabled or deleted now is left as
   * it is and counted in `skipped`: a disabled endpoint gets nothing, a deleted one is gone. A
   * delivery to a `svc listen` endpoint goes back to its stream (the worker would have posted it
   * to the endpoint's `svc-cli://` name). The endpoints it reads are share-locked, so an endpoint
   * being disabled or deleted meanwhile waits for this replay, then ends what it queued. A
   * message goes to a URL once: a delivery that would go where another of its message's
   * deliveries goes too is skipped (counted in `skipped`; see `twice` below).
   */
  async replay(
    q: Queryable,
    merchantId: string,
    by: {
      messageId?: string;
      endpointId?: string;
      status?: string;
      since?: Date | undefined;
      until?: Date | undefined;
      /** Deliveries that finished at or after this time. */
      completedSince?: Date | undefined;
    },
    current: Pick<WebhookConfig, "timeout_seconds" | "retry_schedule_seconds">,
  ): Promise<{ replayed: number; skipped: number }> {
    const params: unknown[] = [merchantId, current.timeout_seconds, current.retry_schedule_seconds];
    const where = ["d.merchant_id = $1", "d.status in ('succeeded', 'failed')"];
    const match = (column: string, value: unknown, op = "=") => {
      params.push(value);
      where.push(`d.${column} ${op} $${params.length}`);
    };
    if (by.messageId) match("message_id", by.messageId);
    if (by.endpointId) match("endpoint_id", by.endpointId);
    if (by.status) match("status", by.status);
    if (by.since) match("created_at", by.since, ">=");
    if (by.until) match("created_at", by.until, "<");
    if (by.completedSince) match("completed_at", by.completedSince, ">=");
    // `target`: each delivery replayed, where it goes now and where it went, and its row version
    // (ctid: a delivery's id has no index; its message, parent and endpoint have). One whose URL changes
    // (`moved`) takes the next sequence number of its new (parent, URL) when it goes out, its
    // attempts so far keep the URL they went to (attemptsKeepTheirUrl), and the old URL's answer
    // is cleared from its row (OLD_URL_ANSWER). The update checks the status again: a delivery
    // another replay queued meanwhile (a new row version) is left to that one, and then is not in
    // `replayed`, so its attempts are not moved twice.
    //
    // A message goes to a URL once (as moveWaitingDeliveries has it): a delivery that would go
    // where another of its message's deliveries already goes — one sent or on its way there
    // (`pending`, `retrying`, `stream`, `succeeded`) and not replayed now, or another replayed
    // there now — is skipped (`twice`). An endpoint moved to a URL its message had a delivery to
    // already, or two destinations at one URL, would otherwise have it twice. Among replayed ones,
    // the one staying at its URL goes first, then the lower id. `dests` reads the replayed
    // messages' deliveries through the message index.
    const [row] = await q.query<{ replayed: number; skipped: number; messages: string[] }>(
      `with live as (select e.id, e.kind, e.url from webhook_endpoints e where e.merchant_id = $1 and e.enabled for share),
       candidates as (
         select d.ctid as tid, d.id, d.message_id, coalesce(l.url, d.url) as url, l.kind is not distinct from 'cli' as to_stream,
                coalesce(l.url, d.url) <> d.url as moved, d.url as prior_url
           from webhook_deliveries d left join live l on l.id = d.endpoint_id
          where ${where.join(" and ")} and (d.endpoint_id is null or l.id is not null)),
       dests as (
         select o.id, o.message_id, coalesce(c.url, o.url) as url, c.id is not null as replaying,
                coalesce(c.moved, false) as moved
           from webhook_deliveries o left join candidates c on c.id = o.id
          where o.message_id = any(array(select message_id from candidates))
            and (c.id is not null or o.status in ('pending', 'retrying', 'stream', 'succeeded'))),
       twice as (
         select id from (
           select id, replaying,
                  row_number() over (partition by message_id, url order by replaying, moved, id) as n
             from dests) r
          where r.n > 1 and r.replaying),
       target as (select * from candidates c where c.id not in (select id from twice)),
       replayed as (
         update webhook_deliveries d
            set status = case when t.to_stream then 'stream' else 'pending' end, url = t.url,
                sequence = case when t.moved then null else d.sequence end,
                ${OLD_URL_ANSWER.map((c) => `${c} = case when t.moved then null else d.${c} end`).join(", ")},
                tries = 0, next_attempt_at = now(), lease_until = null,
                completed_at = null, updated_at = now(), timeout_seconds = $2, retry_schedule_seconds = $3::int4[]
           from target t
          where d.ctid = any(array(select tid from target)) and d.ctid = t.tid and d.status in ('succeeded', 'failed')
         returning d.id, d.message_id, t.moved, t.tid),
       ${attemptsKeepTheirUrl("(select id, tid from replayed where moved)")}
       select (select count(*) from replayed)::int as replayed,
              array(select distinct message_id from replayed) as messages,
              ((select count(*) from webhook_deliveries d
                 where ${where.join(" and ")} and d.endpoint_id is not null
                   and d.endpoint_id not in (select id from live))
               + (select count(*) from twice))::int as skipped`,
      params,
    );
    await resign(q, merchantId, row!.messages);
    return { replayed: row!.replayed, skipped: row!.skipped };
  },
};

/**
 * Signs the payload's `signature` field of replayed messages again with the merchant's newest
 * secret: a message made before a rotation carries the old secret's, which a receiver that has
 * dropped the old secret after the overlap refuses (401, for ever), while the headers are signed
 * per attempt with the secrets in force. Only the field changes (its body stays canonical, its
 * `webhook-id` the same); a message already signed with the newest secret is left as it is.
 */
async function resign(q: Queryable, merchantId: string, messageIds: string[]): Promise<void> {
  if (messageIds.length === 0) return;
  const [newest] = await settingsRepo.secrets(q, merchantId);
  if (!newest) return;
  const rows = await q.query<{ message_id: string; body: string }>(
    "select message_id, body from webhook_deliveries where message_id = any($1) and position = 1 and body is not null",
    [messageIds],
  );
  for (const row of rows) {
    const payload = JSON.parse(row.body) as { signature?: unknown };
    if (typeof payload.signature !== "string" || payload.signature === "") continue;
    const signature = await signPayload(payload, newest);
    if (signature === payload.signature) continue;
    // By its message (indexed), not its delivery id (not indexed: a scan of the whole table).
    await q.query("update webhook_deliveries set body = $2 where message_id = $1 and position = 1", [
      row.message_id,
      canonicalJson({ ...payload, signature }),
    ]);
  }
}
