/**
 * The worker's SQL: claim due deliveries with a lease (FOR UPDATE SKIP LOCKED, so several
 * workers on one PostgreSQL never take the same one) and record outcomes in batches.
 *
 * Ordering: a delivery is not claimed while an earlier one (lower seq) for the same URL and the
 * same parent is still pending or retrying — claimed ones stay `pending` until their outcome is
 * recorded, so a queued notice always reaches a URL before its final result.
 */
import { type Queryable, statementText } from "../db/client.js";
import { FIRST_PAYLOAD_VERSION } from "./outbox.js";
import { DEFAULT_RETRY_SCHEDULE_SECONDS } from "./retry-policy.js";
import { secretsInForce } from "./secrets.js";
import { storableText } from "../db/json.js";

/** Extra lease beyond the attempt's timeout before another worker may take the delivery over. */
export const LEASE_MARGIN_SECONDS = 30;

/**
 * The lease a claim writes (as `lease_until`): at least the attempt's timeout plus
 * LEASE_MARGIN_SECONDS from now, in whole seconds, then the claiming worker's token (0–999,999)
 * as its microseconds. The token says which worker wrote a lease: after a database outage a
 * worker takes back the leases it wrote for deliveries it is not attempting
 * (`releaseOwnLeases`). `token` is the number of the parameter that carries it.
 */
function leaseUntil(token: number): string {
  return `date_trunc('second', now()) + make_interval(secs => d.timeout_seconds + ${LEASE_MARGIN_SECONDS + 1})
                            + $${token}::int4 * interval '1 microsecond'`;
}

/** The token a lease carries (leaseUntil), read back from `lease_until`. */
const LEASE_TOKEN = `(extract(microseconds from d.lease_until)::int8 % 1000000)`;

/** `lease`'s statement. */
const LEASE_HELD = `update webhook_deliveries d
          set lease_until = ${leaseUntil(3)},
              tries = d.tries + 1, updated_at = now(), sequence = coalesce(d.sequence, h.sequence)
         from unnest($1::tid[], $2::int8[]) as h(tid, sequence)
        where d.ctid = any($1::tid[]) and d.ctid = h.tid
       returning d.id, d.ctid::text as tid`;

/** `releaseOwnLeases`' statement. */
const RELEASE_OWN_LEASES = `with released as (
         update webhook_deliveries d set lease_until = null, updated_at = now()
          where d.status in ('pending', 'retrying') and d.next_attempt_at <= now()
            and d.lease_until > now() and ${LEASE_TOKEN} = $1 and d.id <> all($2::text[])
         returning 1)
       select count(*)::int4 as released from released`;

/** Checks a worker's lease token: an integer from 0 to 999,999. */
function checkLeaseToken(token: number): number {
  if (!Number.isInteger(token) || token < 0 || token > 999_999)
    throw new RangeError(`lease token ${token}: an integer from 0 to 999999`);
  return token;
}

export interface ClaimedDelivery {
  id: string;
  message_id: string;
  /** Where the claimed row version is (its ctid): its outcome is recorded there, no index needed. */
  tid: string;
  parent_session_id: string;
  /** The delivery's place in the queue (global order), for the ordering push-back of a retry. */
  seq: number;
  url: string;
  tries: number;
  timeout_seconds: number;
  retry_schedule_seconds: readonly number[];
  body: string;
  /** The message's event type, for the `svc-event-type` header. */
  event_type: string;
  /** The delivery's number among its (parent, URL) deliveries, for the `svc-sequence` header. */
  sequence: number;
  /**
   * The merchant's signing secrets now, newest first (read in the claim: no extra round trip).
   * One frozen list shared by the batch's deliveries of that merchant (see `claimed`).
   */
  secrets: readonly string[];
  /** The endpoint it is for (null: a seed destination) and that endpoint's custom headers now. */
  endpoint_id: string | null;
  headers: Record<string, string> | null;
  /** The body's payload version, for the `svc-webhook-version` header. */
  payload_version: string;
  /** The row holds an earlier attempt (a retry or a replay), which recording this one moves to webhook_attempts. */
  kept_attempt: boolean;
  /** The message's `traceparent` (its producer's trace), read only when `claim` is asked for it. */
  traceparent?: string | null;
}

// While tracing runs, the claim also reads each message's traceparent (one more primary-key probe
// per row); tracing off, the statement is as it was.
const TRACEPARENT_COLUMN = `,
                 case when d.position = 1 then d.traceparent
                      else (select f.traceparent from webhook_deliveries f
                             where f.message_id = d.message_id and f.position = 1) end as traceparent`;

/**
 * A delivery's sequence number (`svc-sequence`), given when it is first claimed: after the highest
 * its (parent, URL) has (or had, when the retention purge deleted them all: `sequenceFloor`). Deliveries of one (parent, URL) are claimed one at a time, in order (the
 * claim's ordering rule), so no two take a number at once and the numbers run 1, 2, 3… as they
 * are sent; a retry or a replay keeps its number. `d` is the row being claimed. Used by the
 * stream's claim (listen.ts); the delivery claim computes the same number inside its ordering
 * check's probe (`next_sequence`), so the two must stay alike.
 */
export const NEXT_SEQUENCE = `select coalesce(max(s.sequence), ${sequenceFloor("d")}, 0) + 1 from webhook_deliveries s
                               where s.parent_session_id = d.parent_session_id and s.url = d.url`;

/**
 * The number a (parent, URL) continues from once the retention purge has deleted all its
 * deliveries (webhooks/retention.ts); read only when it has no numbered delivery left (the purge
 * deletes a (parent, URL)'s highest one only with all the others), so it costs a first delivery
 * one probe of a small table and a later one nothing.
 */
function sequenceFloor(row: string): string {
  return `(select f.sequence from webhook_sequence_floors f
            where f.parent_session_id = ${row}.parent_session_id and f.url = ${row}.url)`;
}

/** A delivery's payload version: null on the row stands for the first one (the common case, unwritten). */
export const PAYLOAD_VERSION_COLUMN = `coalesce(d.payload_version, '${FIRST_PAYLOAD_VERSION}')`;

/** A delivery's retry schedule: null on the row stands for the default one (the common case, unwritten). */
export const RETRY_SCHEDULE_COLUMN = `coalesce(d.retry_schedule_seconds, '{${DEFAULT_RETRY_SCHEDULE_SECONDS.join(",")}}'::int4[])`;

/** A delivery's body: on its own row for a message's first destination, else on that row. */
export const BODY_COLUMN = `coalesce(d.body, (select f.body from webhook_deliveries f
                                               where f.message_id = d.message_id and f.position = 1))`;

/**
 * A URL's origin as the claim tells origins apart: its authority (`host:port`, the third part
 * split on "/"), as SQL's `split_part(url, '/', 3)` reads it (the worker's stalled origins).
 */
export const originOf = (url: string): string => url.split("/")[2] ?? "";

/** A place in the due index (next_attempt_at as PostgreSQL writes it, seq). */
export interface DueKey {
  at: string;
  seq: number;
}

export interface DeliveryOutcome {
  id: string;
  /** The claim's row version (`ClaimedDelivery.tid`) and what guards it: the message and the tries. */
  tid: string;
  messageId: string;
  parentSessionId: string;
  url: string;
  seq: number;
  /** The endpoint the delivery is for, whose health the outcome moves (null: a seed destination). */
  endpointId?: string | null | undefined;
  tries: number;
  /** The claim's `kept_attempt`: the row's earlier attempt moves to webhook_attempts. */
  keptAttempt: boolean;
  /**
   * Claimed by `claimHeld` and recorded in the transaction that holds it: nothing was written at
   * the claim, so the outcome writes the try and the sequence number too. Absent: a leased claim.
   */
  held?: boolean;
  /** The claim's sequence number (written by a held delivery's outcome). */
  sequence?: number;
  status: "succeeded" | "retrying" | "failed";
  nextAttemptAt: Date | null;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
}

/**
 * The `due` CTE of a claim: the ctids of up to `$1` due deliveries, locked (`for <lock> skip
 * locked`), each with its next sequence number, its merchant and its place in the due index;
 * then the `keys` CTE (SIGNING_KEYS). See `claim` for why it is shaped so. `after`: only the due
 * rows after `($2, $3)` in the due index (a held claim's `after`). `stalled`: the number of the
 * parameter listing origins (originOf) whose rows are left out (the worker's stalled origins), a
 * filter on the scanned row before its ordering check; undefined when there are none (the
 * statement without it, as almost always).
 */
function dueRows(lock: "update" | "no key update", after: boolean, stalled: number | undefined): string {
  return `due as (
         select c.ctid as tid, o.next_sequence, c.merchant_id, ${ENDPOINT_STATE} as endpoint_state,
                c.next_attempt_at, c.seq
           from webhook_deliveries c
          cross join lateral (
            select count(*) filter (where e.seq < c.seq and e.status not in ('succeeded', 'failed', 'stream')) as earlier,
                   coalesce(max(e.sequence), ${sequenceFloor("c")}, 0) + 1 as next_sequence
              from webhook_deliveries e
             where e.parent_session_id = c.parent_session_id and e.url = c.url
            offset 0) o
          where c.status in ('pending', 'retrying') and c.next_attempt_at <= now()
            and (c.lease_until is null or c.lease_until < now()) and o.earlier = 0${
              after ? "\n            and (c.next_attempt_at, c.seq) > ($2::timestamptz, $3::int8)" : ""
            }${stalled ? `\n            and split_part(c.url, '/', 3) <> all($${stalled}::text[])` : ""}
          order by c.next_attempt_at, c.seq
          limit $1
          for ${lock} of c skip locked),
       ${SIGNING_KEYS},
       ${STRAYS}`;
}

/**
 * Where a due delivery's endpoint is now, read when it is claimed: null for a seed destination,
 * `ok` when the endpoint is enabled at the delivery's URL, else `deleted`, `disabled` or `moved`.
 * A producer reads its routing (the endpoints, their URLs and whether they are enabled) before it
 * calls the gateway and writes its message after, so an endpoint deleted, disabled or moved in
 * between has a delivery its change did not see (`endpointsRepo.failWaiting`, `moveWaiting`).
 * One primary-key probe per endpoint delivery; a seed destination's costs nothing.
 */
const ENDPOINT_STATE = `case when c.endpoint_id is not null then
           coalesce((select case when not ep.enabled then 'disabled' when ep.url <> c.url then 'moved' else 'ok' end
                       from webhook_endpoints ep where ep.id = c.endpoint_id), 'deleted') end`;

/**
 * The `strays` CTE of a claim: the claimed deliveries whose endpoint is no longer where the
 * producer saw it (ENDPOINT_STATE) are not sent. Each is settled as the endpoint's change would
 * have settled it, had it been written before: one whose endpoint is deleted or disabled is
 * ended (`failed`, "… not sent", as a disabled endpoint's held delivery is, so re-enabling it can
 * replay it); one whose endpoint moved goes to its URL now, numbered there when it is first
 * claimed (the next claim: it is due). Such a delivery was written after the change, so it has no
 * attempt yet to keep under the old URL.
 */
const STRAYS = `strays as (
         update webhook_deliveries d
            set url = case when s.endpoint_state = 'moved'
                           then (select ep.url from webhook_endpoints ep where ep.id = d.endpoint_id) else d.url end,
                sequence = case when s.endpoint_state = 'moved' then null else d.sequence end,
                status = case when s.endpoint_state = 'moved' then d.status else 'failed' end,
                last_error = case s.endpoint_state when 'moved' then d.last_error
                                                   when 'disabled' then 'endpoint disabled: not sent'
                                                   else 'endpoint deleted: not sent' end,
                completed_at = case when s.endpoint_state = 'moved' then d.completed_at else now() end,
                lease_until = null, updated_at = now()
           from (select tid, endpoint_state from due where endpoint_state <> 'ok') s
          where d.ctid = any(array(select tid from due where endpoint_state <> 'ok')) and d.ctid = s.tid)`;

/** The claimed rows that are sent (not STRAYS). */
const SENT = `array(select tid from due where coalesce(endpoint_state, 'ok') = 'ok')`;

/**
 * The `keys` CTE of a claim: each claimed merchant's signing secrets now, newest first, read once
 * per merchant rather than once per row (a batch is mostly one merchant's: per row, this look-up
 * was ~30 % of a 500-row claim's execution, 2026-11-27). `materialized`: inlined, the planner
 * moved the secrets' subquery back into the claim's output, once per row again.
 */
const SIGNING_KEYS = `keys as materialized (
         select m.merchant_id, array_to_string(${secretsInForce("m.merchant_id")}, ' ') as secrets
           from (select distinct merchant_id from due) m)`;

/** What a claim returns of a row `d` (with `due`), given how its try and its sequence number read. */
function claimedColumns(tries: string, sequence: string, options: { traceparent?: boolean }): string {
  return `d.id, d.message_id, d.ctid::text as tid, d.parent_session_id, d.seq, d.url, ${tries} as tries, d.timeout_seconds,
                 d.retry_schedule_seconds::text as retry_schedule_seconds, ${sequence} as sequence, d.event_type,
                 d.endpoint_id, ${PAYLOAD_VERSION_COLUMN} as payload_version, d.last_attempt_at is not null as kept_attempt,
                 ${BODY_COLUMN} as body,
                 case when d.endpoint_id is not null
                      then (select e.headers from webhook_endpoints e where e.id = d.endpoint_id) end as headers,
                 k.secrets${options.traceparent ? TRACEPARENT_COLUMN : ""}`;
}

/** One outcome as `record` passes it (a JSON object; the statement's `r` names its fields). */
interface OutcomeRow {
  id: string;
  tries: number;
  status: string;
  next_at: Date | null;
  code: number | null;
  err: string | null;
  attempted_at: Date;
  latency_ms: number;
  response_body: string | null;
  kept: boolean;
  tid: string;
  message_id: string;
  held: boolean;
  sequence: number | null;
  url: string;
}

/**
 * A claim's row as the database returns it: the merchant's secrets space-separated (a secret is
 * `whsec_` + base64, with no space) and the schedule as an array literal (`{5,300}`), null when it
 * is the default one.
 */
type ClaimedRow = Omit<ClaimedDelivery, "secrets" | "retry_schedule_seconds"> & {
  secrets: string;
  retry_schedule_seconds: string | null;
};

/** Lists by their text, shared by the claims' rows (bounded: a worker serves many merchants). */
const LISTS_SIZE = 1024;
const secretLists = new Map<string, readonly string[]>();
const schedules = new Map<string, readonly number[]>();

function memo<T>(lists: Map<string, readonly T[]>, text: string, parse: (text: string) => T[]): readonly T[] {
  let list = lists.get(text);
  if (!list) {
    if (lists.size >= LISTS_SIZE) lists.clear();
    list = Object.freeze(parse(text));
    lists.set(text, list);
  }
  return list;
}

const splitSecrets = (text: string) => (text === "" ? [] : text.split(" "));
/** `{5,300}` (int4[] as text: no quotes, no nulls) → [5, 300]. */
const parseSchedule = (text: string) => (text === "{}" ? [] : text.slice(1, -1).split(",").map(Number));

/**
 * A claim's rows with their secrets and their schedule as lists. Every row of one merchant
 * carries the same secrets, and rows of one endpoint the same schedule: read as arrays, pg parsed
 * two arrays per row, ~7 % of what the worker allocated in a 30,000-message drain (2026-11-27).
 * Read as text, each distinct list is parsed once and shared, frozen.
 */
function claimed(rows: ClaimedRow[]): ClaimedDelivery[] {
  const out = rows as unknown as ClaimedDelivery[];
  for (let i = 0; i < rows.length; i++) {
    const schedule = rows[i]!.retry_schedule_seconds;
    out[i]!.secrets = memo(secretLists, rows[i]!.secrets, splitSecrets);
    out[i]!.retry_schedule_seconds =
      schedule === null ? DEFAULT_RETRY_SCHEDULE_SECONDS : memo(schedules, schedule, parseSchedule);
  }
  return out;
}

export const deliveryRepo = {
  /**
   * Claims up to `limit` due deliveries. The oldest due rows come off the (next_attempt_at, seq)
   * partial index in order; the ordering rule and the row locks apply as they stream, and the
   * scan stops at `limit`: a claim reads the due rows it takes plus the ones it steps over
   * (leased or blocked), never the whole table. Later deliveries behind a retrying one are pushed
   * back with it (see record), so blocked rows do not crowd the head of the queue.
   *
   * The shape is chosen so the plan does not depend on table statistics (a prepared statement
   * keeps its plan, and a new or never-analysed table has tiny estimates):
   * - the ordering check and the next sequence number come from one correlated subquery per
   *   candidate (`offset 0` keeps PostgreSQL from flattening it into a join): one probe of the
   *   parent's hash index reads the (parent, URL)'s deliveries once, counting the earlier ones
   *   still due and taking the highest sequence number. As a join, small estimates made it a scan
   *   of every pending row per candidate; as two subqueries (the ordering check, then the number
   *   in the update) it probed the parent twice, ~7 % of PostgreSQL's CPU in a drain
   *   (2026-11-27). Its status test is written `not in (the ended ones)` (the same rows under the
   *   status check constraint) so that it does not imply the due index's predicate: with
   *   `in ('pending', 'retrying')` the planner ANDed the parent's probe with a scan of the due
   *   index for `seq < c.seq` — half the queue per candidate (a 30,000-message drain's claims took
   *   75 ms each, 2026-11-26).
   * - the locked rows are updated by ctid, and a body is on the row itself (a message's first
   *   destination) or read from its first row by the message's hash index; a join back let the
   *   planner hash a whole table.
   * - a delivery claimed for the first time takes its sequence number here (as NEXT_SEQUENCE
   *   defines it, read by the ordering check's probe).
   */
  async claim(
    q: Queryable,
    limit: number,
    options: { traceparent?: boolean; stalled?: readonly string[]; leaseToken?: number } = {},
  ): Promise<ClaimedDelivery[]> {
    const token = checkLeaseToken(options.leaseToken ?? 0);
    const stalled = options.stalled?.length ? options.stalled : undefined;
    const traceparent = options.traceparent === true;
    // Built once per variant (statementText): a claim runs about once a message at 1,000/s.
    const sql = statementText(
      `claim ${stalled ? 1 : 0}${traceparent ? 1 : 0}`,
      () =>
        `with ${dueRows("update", false, stalled ? 3 : undefined)}
       update webhook_deliveries d
          set lease_until = ${leaseUntil(2)},
              tries = d.tries + 1, updated_at = now(),
              sequence = coalesce(d.sequence, due.next_sequence)
         from due, keys k
        where d.ctid = any(${SENT}) and d.ctid = due.tid and k.merchant_id = due.merchant_id
       returning ${claimedColumns("d.tries", "d.sequence", { traceparent })}`,
    );
    return claimed(await q.query<ClaimedRow>(sql, stalled ? [limit, token, stalled] : [limit, token]));
  },

  /**
   * Claims up to `limit` due deliveries as `claim` does, but holds them by their row locks in the
   * transaction `q` instead of writing a lease: nothing is written until their outcomes are
   * recorded (`record`, in the same transaction, with `held` set), or until `lease` hands the
   * ones still in flight over to a lease. A delivery's try and sequence number are returned as
   * the claim would have written them. If the transaction ends without a write (the process or
   * its connection died), the locks go with it and the deliveries are due again at once.
   */
  async claimHeld(
    q: Queryable,
    limit: number,
    options: { traceparent?: boolean; after?: DueKey | undefined; stalled?: readonly string[] } = {},
  ): Promise<{ deliveries: ClaimedDelivery[]; last: DueKey | undefined }> {
    const { after } = options;
    const stalled = options.stalled?.length ? [options.stalled] : [];
    const traceparent = options.traceparent === true;
    const variant = `${after ? 1 : 0}${stalled.length > 0 ? 1 : 0}${traceparent ? 1 : 0}`;
    const sql = statementText(
      `claimHeld ${variant}`,
      () =>
        `with ${dueRows("no key update", after !== undefined, stalled.length === 0 ? undefined : after ? 4 : 2)},
            last as materialized (select next_attempt_at::text as at, seq from due order by next_attempt_at desc, seq desc limit 1)
       select ${claimedColumns("d.tries + 1", "coalesce(d.sequence, due.next_sequence)", { traceparent })},
              l.at as last_at, l.seq as last_seq
         from webhook_deliveries d, due, keys k, last l
        where d.ctid = any(${SENT}) and d.ctid = due.tid and k.merchant_id = due.merchant_id`,
    );
    const rows = await q.query<ClaimedRow & { last_at: string; last_seq: number }>(
      sql,
      after ? [limit, after.at, after.seq, ...stalled] : [limit, ...stalled],
    );
    const last = rows.length > 0 ? { at: rows[0]!.last_at, seq: rows[0]!.last_seq } : undefined;
    return { deliveries: claimed(rows), last };
  },

  /**
   * Hands held deliveries (claimHeld) still in flight over to a lease, in the transaction that
   * holds them: writes the try, the sequence number and the lease `claim` would have written.
   * Returns each one's new row version (its outcome is recorded there, as a leased one's).
   */
  async lease(
    q: Queryable,
    held: Pick<ClaimedDelivery, "tid" | "sequence">[],
    leaseToken = 0,
  ): Promise<{ id: string; tid: string }[]> {
    if (held.length === 0) return [];
    return q.query<{ id: string; tid: string }>(LEASE_HELD, [
      held.map((h) => h.tid),
      held.map((h) => h.sequence),
      checkLeaseToken(leaseToken),
    ]);
  },

  /**
   * After a database outage: ends the leases that carry the worker's `token` (leaseUntil) on
   * deliveries it is not attempting, so they are due again now instead of when the lease runs
   * out. `attempting` lists the worker's deliveries whose attempt is in flight or whose outcome
   * it keeps to record. What it finds is one of two things, both of which the outage made:
   * - a claim whose commit reached the database while its answer was lost (a statement sent to a
   *   server that stopped answering runs when it answers again, after the worker gave up on it):
   *   its deliveries were never attempted;
   * - a claim that was on disk when the database crashed, while its outcome, committed without
   *   waiting for the disk, was not: its delivery was attempted and is sent again (at least
   *   once, the same webhook-id).
   * Through the due index, as a claim reads it (a leased row is due: its claim found it so).
   * Returns how many it released.
   */
  async releaseOwnLeases(q: Queryable, token: number, attempting: readonly string[]): Promise<number> {
    const [row] = await q.query<{ released: number }>(RELEASE_OWN_LEASES, [
      checkLeaseToken(token),
      attempting,
    ]);
    return row?.released ?? 0;
  },

  /**
   * Records outcomes and their attempts in one statement (atomic without a transaction). The
   * attempt is kept on the delivery's row by the same update (`last_attempt_*`); the row's earlier
   * attempt, if the claim said it had one, moves to webhook_attempts, so a first-try success
   * writes one row. An outcome whose lease was taken over by another worker (tries moved on), or
   * whose delivery was ended meanwhile (its endpoint disabled or deleted), leaves the delivery
   * alone, and its attempt goes to webhook_attempts with the URL it was sent to (a replay may have
   * sent the delivery to its endpoint's new URL meanwhile). When some outcomes are retries, a second
   * statement pushes later deliveries for the same URL and parent back: run it in a transaction
   * then (`needsTransaction`). Attempts are read through their message (messagesRepo.attempts).
   */
  async record(q: Queryable, outcomes: DeliveryOutcome[], options: { health?: boolean } = {}): Promise<void> {
    if (outcomes.length === 0) return;
    // One JSON parameter, not an array per column: pg builds each array literal by string
    // concatenation, element by element, and those 14 arrays were the largest part (~13 %) of what
    // a worker allocated in a 30,000-message drain (2026-11-27). Dates become ISO strings (toJSON).
    const rows = new Array<OutcomeRow>(outcomes.length);
    for (let i = 0; i < outcomes.length; i++) {
      const o = outcomes[i]!;
      rows[i] = {
        id: o.id,
        tries: o.tries,
        status: o.status,
        next_at: o.nextAttemptAt,
        code: o.statusCode,
        // The one outcome field that could carry a lone surrogate or a NUL (db/json.ts): a
        // response body is decoded from bytes and has its NULs taken out already.
        err: o.error === null ? null : storableText(o.error),
        attempted_at: o.attemptedAt,
        latency_ms: o.latencyMs,
        response_body: o.responseBody,
        kept: o.keptAttempt,
        tid: o.tid,
        message_id: o.messageId,
        held: o.held === true,
        sequence: o.sequence ?? null,
        url: o.url,
      };
    }
    // Each row is updated where its claim left it (the claimed version's ctid), guarded by its
    // message id, delivery id and tries: a row updated since (another worker took the lease over,
    // its endpoint was disabled) has moved on, and the outcome leaves it alone. No index is read.
    // A held delivery's row still has the tries before this one (its claim wrote nothing): the
    // outcome writes its try and its sequence number (a leased one's are already there).
    // A delivery ended meanwhile (its endpoint disabled or deleted) is left alone; the condition
    // is written `status not in (the ended ones)` — the same rows under the status check
    // constraint — because `status in ('pending', 'retrying')` is the predicate of the due index,
    // and with it the planner read that index (every pending row) instead of the ctid list: the
    // drain of 30,000 messages fell from ~5,400 to ~3,200 msg/s (2026-11-24).
    // The earlier attempt is read from the row as it was before this statement (every part of a
    // statement sees the same snapshot), at the same ctid, only for the rows that have one.
    await q.query(
      `with r as (
         select * from json_to_recordset($1::json)
           as r(id text, tries int, status text, next_at timestamptz, code int, err text, attempted_at timestamptz,
                latency_ms int, response_body text, kept boolean, tid tid, message_id text, held boolean, sequence int8,
                url text)),
       outcome as (
         update webhook_deliveries d
            set status = r.status, next_attempt_at = coalesce(r.next_at, d.next_attempt_at), lease_until = null,
                last_status_code = r.code, last_error = r.err, updated_at = now(),
                completed_at = case when r.status in ('succeeded', 'failed') then now() else null end,
                last_attempt_at = r.attempted_at, last_attempt_status_code = r.code, last_attempt_latency_ms = r.latency_ms,
                last_attempt_error = r.err, last_attempt_response_body = r.response_body,
                tries = r.tries, sequence = coalesce(d.sequence, r.sequence)
           from r
          where d.ctid = any(array(select tid from r)) and d.ctid = r.tid and d.message_id = r.message_id and d.id = r.id
            and d.tries = r.tries - r.held::int and d.status not in ('succeeded', 'failed', 'stream')
         returning d.id)
       insert into webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, error, response_body, url)
       select p.id, p.last_attempt_at, p.last_attempt_status_code, p.last_attempt_latency_ms, p.last_attempt_error,
              p.last_attempt_response_body, null
         from r cross join lateral (select * from webhook_deliveries x where x.ctid = r.tid and x.id = r.id limit 1) p
        where r.kept and p.last_attempt_at is not null and exists (select 1 from outcome o where o.id = r.id)
       union all
       select r.id, r.attempted_at, r.code, r.latency_ms, r.err, r.response_body, r.url
         from r where not exists (select 1 from outcome o where o.id = r.id)`,
      [JSON.stringify(rows)],
    );
    const retrying = outcomes.filter((o) => o.status === "retrying");
    if (retrying.length > 0)
      // Later messages for the same URL and parent wait for this one (ordering): not due before it.
      await q.query(
        `update webhook_deliveries l set next_attempt_at = greatest(l.next_attempt_at, d.next_at)
           from unnest($1::text[], $2::text[], $3::int8[], $4::timestamptz[]) as d(parent_session_id, url, seq, next_at)
          where l.parent_session_id = d.parent_session_id and l.url = d.url and l.seq > d.seq
            and l.status in ('pending', 'retrying')`,
        [
          retrying.map((o) => o.parentSessionId),
          retrying.map((o) => o.url),
          retrying.map((o) => String(o.seq)),
          retrying.map((o) => o.nextAttemptAt!.toISOString()),
        ],
      );
    if (options.health !== false) await this.recordHealth(q, outcomes);
  },

  /**
   * Records a held claim's outcomes in the transaction that holds their row locks (HeldClaim's
   * close), as `record` would, endpoint health left out. Its common outcome — a first try that
   * succeeded — takes a plain update: no other transaction can have written a row this one holds
   * locked, so `record`'s guards (tries, ids, status) cannot fail; the delivery has no earlier
   * attempt to move to the log; and each row is reached by its ctid with one TID probe, with no
   * JSON to read. A 500-row batch took 4.8 ms where `record` took 7.5 (2026-11-29,
   * docs/benchmarks.md). Each row must be updated: if one were not, recordHeld throws, the
   * transaction is undone, and the claim's outcomes are recorded again outside it, by `record`
   * (HeldClaim's redo). The other outcomes go through `record`.
   */
  async recordHeld(q: Queryable, outcomes: DeliveryOutcome[]): Promise<void> {
    const plain: DeliveryOutcome[] = [];
    const rest: DeliveryOutcome[] = [];
    for (const o of outcomes) (o.status === "succeeded" && !o.keptAttempt ? plain : rest).push(o);
    if (plain.length > 0) await recordSucceeded(q, plain);
    await this.record(q, rest, { health: false });
  },

  /**
   * Moves the endpoints' health by these outcomes (part of `record` unless it is told not to). A
   * held claim records it after its transaction commits, not in it: two held claims updating
   * the same endpoints in different orders could deadlock.
   */
  async recordHealth(q: Queryable, outcomes: DeliveryOutcome[]): Promise<void> {
    const forEndpoints = outcomes.filter((o) => o.endpointId);
    if (forEndpoints.length > 0) await recordEndpointHealth(q, forEndpoints);
  },

  /** Whether `record` of these outcomes needs a transaction: the ordering push-back of a retry must commit with it. */
  needsTransaction(outcomes: DeliveryOutcome[]): boolean {
    return outcomes.some((o) => o.status === "retrying");
  },
};

/**
 * Moves each endpoint's failure run: a success ends it (`failing_since` null), a failure starts
 * it if none is running, and the last error is kept to show. Rows are written only when that
 * changes something, so a healthy endpoint costs no write. Not atomic with the outcomes: health
 * is what the disabling sweep reads, a moment late at worst.
 */
async function recordEndpointHealth(q: Queryable, outcomes: DeliveryOutcome[]): Promise<void> {
  await q.query(
    `update webhook_endpoints e
        set failing_since = case when x.ok then null else coalesce(e.failing_since, x.first_at) end,
            last_error = case when x.ok then e.last_error else x.err end
       from (select endpoint_id, bool_or(ok) as ok, min(at) as first_at,
                    (array_agg(err order by at desc))[1] as err
               from unnest($1::text[], $2::boolean[], $3::timestamptz[], $4::text[]) as r(endpoint_id, ok, at, err)
              group by endpoint_id) x
      where e.id = x.endpoint_id
        and (case when x.ok then e.failing_since is not null
                  else e.failing_since is null or e.last_error is distinct from x.err end)`,
    [
      outcomes.map((o) => o.endpointId),
      outcomes.map((o) => o.status === "succeeded"),
      outcomes.map((o) => o.attemptedAt.toISOString()),
      outcomes.map((o) => o.error ?? (o.statusCode ? `HTTP ${o.statusCode}` : "failed")),
    ],
  );
}

/** An array literal's element for a text (quoted, `"` and `\` escaped; NULL for null). */
const textElement = (text: string | null): string =>
  text === null ? "NULL" : `"${text.replace(/["\\]/g, "\\$&")}"`;

/**
 * recordHeld's plain update of first tries that succeeded (see there). The columns go as array
 * literals built here (pg would build each element by concatenation, as the comment in `record`
 * says), read by `unnest`; each row is reached by `ctid = r.tid`, a TID probe per row (with
 * `ctid = any(…)` as well, 0.7–0.8 ms more per 500 rows). Like `record`'s, its generic plan reads a
 * nearly empty table whole, until the table's first analyse re-plans it.
 */
async function recordSucceeded(q: Queryable, outcomes: DeliveryOutcome[]): Promise<void> {
  let tids = "{";
  let sequences = "{";
  let at = "{";
  let codes = "{";
  let latencies = "{";
  let bodies = "{";
  for (let i = 0; i < outcomes.length; i++) {
    const o = outcomes[i]!;
    const c = i === 0 ? "" : ",";
    tids += `${c}"${o.tid}"`;
    sequences += c + (o.sequence ?? "NULL");
    at += c + o.attemptedAt.getTime();
    codes += c + (o.statusCode ?? "NULL");
    latencies += c + o.latencyMs;
    bodies += c + textElement(o.responseBody);
  }
  const [row] = await q.query<{ n: number }>(
    `with updated as (
       update webhook_deliveries d
          set status = 'succeeded', lease_until = null, last_status_code = r.code, last_error = null, updated_at = now(),
              completed_at = now(), last_attempt_at = to_timestamp(r.at_ms / 1000), last_attempt_status_code = r.code,
              last_attempt_latency_ms = r.latency_ms, last_attempt_error = null, last_attempt_response_body = r.body,
              tries = d.tries + 1, sequence = coalesce(d.sequence, r.sequence)
         from unnest($1::tid[], $2::int8[], $3::float8[], $4::int4[], $5::int4[], $6::text[])
              as r(tid, sequence, at_ms, code, latency_ms, body)
        where d.ctid = r.tid
       returning 1)
     select count(*)::int as n from updated`,
    [`${tids}}`, `${sequences}}`, `${at}}`, `${codes}}`, `${latencies}}`, `${bodies}}`],
  );
  const updated = row?.n ?? 0;
  if (updated !== outcomes.length)
    throw new Error(
      `recordHeld: ${updated} of ${outcomes.length} held rows updated; recorded again outside the hold`,
    );
}
