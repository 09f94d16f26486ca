/**
 * The transactional outbox: a webhook message and its deliveries are inserted in the caller's
 * database transaction, beside the change they report, so a crash at any instant loses no
 * message and sends none for a change that did not commit. After the commit the caller signals
 * {@link OutboxSignal.committed}: it wakes this process's worker at once and, on PostgreSQL,
 * every other worker process by a NOTIFY sent after the commit, never inside the transaction
 * (PostgreSQL serialises the commits of all transactions that NOTIFY, so a NOTIFY per operation
 * made operations queue behind one another). A process whose own worker takes the commit's
 * messages at once sends no NOTIFY: waking the others would cost a round trip per commit for work
 * already taken. A wake that is lost (a crash right after the commit) costs latency only: workers
 * also poll.
 */
import { EventEmitter } from "node:events";
import { newId } from "@svc/protocol";
import { PAYLOAD_VERSIONS, type PayloadVersion } from "@svc/webhooks/sign";
import { type Db, type Queryable, statementText } from "../db/client.js";
import { activeTraceparent } from "../telemetry/trace-context.js";
import { DEFAULT_RETRY_SCHEDULE_SECONDS } from "./retry-policy.js";
import type { WebhookConfig } from "./settings.repo.js";

/** The NOTIFY channel workers LISTEN on. */
export const OUTBOX_CHANNEL = "svc_webhook_outbox";

/**
 * Emits "committed" after a transaction that wrote messages has committed, and sends the NOTIFY
 * that wakes workers in other processes, unless this process's own worker takes the messages at
 * once (see {@link attachWorker}). NOTIFYs are coalesced: at most one is in flight, and commits
 * signalled meanwhile are covered by one more sent after it, so every commit that a local worker
 * does not take at once is followed by a NOTIFY that started after it.
 */
export class OutboxSignal extends EventEmitter {
  private notifying = false;
  private again = false;
  private takesAtOnce: (() => boolean) | undefined;

  /** @param notifyOthers sends the cross-process NOTIFY (PostgreSQL); absent with one process. */
  constructor(private readonly notifyOthers?: () => Promise<unknown>) {
    super();
  }

  /**
   * Registers this process's delivery worker. While `takesAtOnce()` is true (the worker listens
   * for "committed" and has room to claim now), a commit wakes it alone: the other processes'
   * workers are woken only when it cannot take the work at once (busy, a backlog, stopped).
   * Returns the function that unregisters it.
   */
  attachWorker(takesAtOnce: () => boolean): () => void {
    this.takesAtOnce = takesAtOnce;
    return () => {
      if (this.takesAtOnce === takesAtOnce) this.takesAtOnce = undefined;
    };
  }

  committed(): void {
    // Asked before the wake: the claim it starts takes room of its own.
    const taken = this.takesAtOnce?.();
    this.emit("committed");
    if (!taken) this.notify();
  }

  private notify(): void {
    if (!this.notifyOthers) return;
    if (this.notifying) {
      this.again = true;
      return;
    }
    this.notifying = true;
    void this.notifyOthers()
      .catch(() => {}) // the workers' poll covers a failed NOTIFY
      .finally(() => {
        this.notifying = false;
        if (this.again) {
          this.again = false;
          this.notify();
        }
      });
  }
}

/** The NOTIFY that wakes the workers of every process, for {@link OutboxSignal}. */
export function notifyWorkers(db: Db): () => Promise<unknown> {
  return () => db.notify(OUTBOX_CHANNEL);
}

/**
 * The event types a message can have (the catalogue: docs/webhooks.md, `GET /v1/webhooks/event-types`).
 * Sent as the `svc-event-type` header of every request.
 */
export const EVENT_TYPES = [
  {
    type: "operation",
    description:
      "A refund, capture or void was done, queued or rejected (the operation webhook; its result field says which).",
  },
  { type: "payment.paid", description: "A purchase was paid." },
  { type: "payment.authorized", description: "An authorization succeeded: capture or void it." },
  { type: "payment.failed", description: "The payment was declined." },
  { type: "payment.canceled", description: "The payment was cancelled (by the customer or the gateway)." },
  {
    type: "payment.expired",
    description: "The checkout session's time ran out before the customer paid (no payment was taken).",
  },
  {
    type: "payment.pending",
    description:
      "The customer started paying and the gateway waits on them (a bank page or a card challenge); a final event follows.",
  },
  { type: "webhook.test", description: "A test message sent from the dashboard or the API." },
  {
    type: "webhook.endpoint_disabled",
    description:
      "One of the merchant's endpoints was disabled because every delivery to it failed for the configured period; sent to the other endpoints.",
  },
] as const;
export type EventType = (typeof EVENT_TYPES)[number]["type"];

/** The first payload version: what the seed's own destinations get, for good. */
export const FIRST_PAYLOAD_VERSION: PayloadVersion = PAYLOAD_VERSIONS[0];

export interface NewMessage {
  merchantId: string;
  kind: "operation" | "payment" | "webhook";
  eventType: EventType;
  /** The version of `body`'s shape (the `svc-webhook-version` header); the first one by default. */
  payloadVersion?: PayloadVersion | undefined;
  parentSessionId: string;
  childSessionId?: string | undefined;
  referenceNumber?: string | undefined;
  result?: string | undefined;
  body: string;
  /**
   * The W3C `traceparent` of the work that produced it, which its delivery attempts link to
   * (docs/operations.md, Tracing). Undefined: the span active when it is enqueued, if any. A
   * producer whose writes are batched across requests passes its own (null: none).
   */
  traceparent?: string | null | undefined;
}

/** Destination URLs, each once, in a stable order. */
export function uniqueUrls(urls: (string | null | undefined)[]): string[] {
  return [...new Set(urls.filter((u): u is string => typeof u === "string" && u.length > 0))];
}

/** A message to insert, with where it goes and the destination settings its deliveries keep. */
export interface Enqueue {
  message: NewMessage;
  urls: string[];
  /** The endpoint each URL belongs to, position by position (absent or null: a seed destination). */
  endpointIds?: (string | null)[] | undefined;
  /**
   * Position by position, how the delivery starts: `pending` (the worker sends it; the default),
   * `failed` (its endpoint is disabled: "endpoint disabled", never attempted, so re-enabling it can
   * replay what it missed) or `stream` (an endpoint of `svc listen`: its CLI takes it).
   */
  statuses?: DeliveryStart[] | undefined;
  config: Pick<WebhookConfig, "timeout_seconds" | "retry_schedule_seconds">;
}

// The columns of a delivery row. The row at position 1 is the message (its fields and body);
// rows at position 2, 3… are its other destinations, with the delivery's columns only.
const COLUMNS = `id, message_id, position, merchant_id, kind, event_type, parent_session_id, child_session_id,
                 reference_number, result, body, traceparent, url, endpoint_id, status, timeout_seconds,
                 retry_schedule_seconds, payload_version, last_error, completed_at`;

// A delivery written `failed` (its endpoint is disabled) says why and is over at once.
const DISABLED_ERROR = (status: string) =>
  `case when ${status} = 'failed' then 'endpoint disabled: not sent' end`;
const DISABLED_AT = (status: string) => `case when ${status} = 'failed' then now() end`;

// The common case, one message to one URL: one row, one statement, scalar parameters. The
// producer writes nothing else: no message row apart from it, no sequence counter (a delivery is
// numbered when it is first claimed, see delivery.repo.ts).
const ENQUEUE_SINGLE = `insert into webhook_deliveries (${COLUMNS})
  values ($1, $2, 1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::text, $15, $16::int4[], $17,
          ${DISABLED_ERROR("$14::text")}, ${DISABLED_AT("$14::text")})`;

// One message to several URLs: its fields as scalars, its destinations as arrays, in the order
// given (seq orders them so).
const ENQUEUE_ONE = `insert into webhook_deliveries (${COLUMNS})
  select d.id, $1, d.n, $2, case when d.n = 1 then $3 end, $4, $5, case when d.n = 1 then $6 end,
         case when d.n = 1 then $7 end, case when d.n = 1 then $8 end, case when d.n = 1 then $9 end,
         case when d.n = 1 then $10 end, d.url, d.endpoint_id, d.status, $11, $12::int4[], $13,
         ${DISABLED_ERROR("d.status")}, ${DISABLED_AT("d.status")}
    from unnest($14::text[], $15::text[], $16::text[], $17::text[]) with ordinality as d(id, url, endpoint_id, status, n)
   order by d.n`;

// Many messages in one statement (a batch of operations): a row per delivery, in the order given.
// Its parameters are numbered from `$<at + 1>`; with `kept`, a row is written only if its item's
// owner (the parameter after the 18 columns) is among what `kept` selects (see enqueueFragment).
// Built once per (at, kept): statementText.
const enqueueSql = (at: number, kept?: string): string =>
  statementText(`enqueue ${at} ${kept ?? ""}`, () => buildEnqueueSql(at, kept));
const buildEnqueueSql = (at: number, kept?: string) => {
  const $ = (n: number) => `$${at + n}`;
  return `insert into webhook_deliveries (${COLUMNS})
  select d.id, d.message_id, d.position, d.merchant_id, d.kind, d.event_type, d.parent_session_id, d.child_session_id,
         d.reference_number, d.result, d.body, d.traceparent, d.url, d.endpoint_id, d.status, d.timeout_seconds,
         d.schedule::int4[], d.payload_version, ${DISABLED_ERROR("d.status")}, ${DISABLED_AT("d.status")}
    from unnest(${$(1)}::text[], ${$(2)}::text[], ${$(3)}::int2[], ${$(4)}::text[], ${$(5)}::text[], ${$(6)}::text[],
                ${$(7)}::text[], ${$(8)}::text[], ${$(9)}::text[], ${$(10)}::text[], ${$(11)}::text[], ${$(12)}::text[],
                ${$(13)}::text[], ${$(14)}::text[], ${$(15)}::text[], ${$(16)}::int4[], ${$(17)}::text[], ${$(18)}::text[]
                ${kept ? `, ${$(19)}::int4[]` : ""}) with ordinality
         as d(id, message_id, position, merchant_id, kind, event_type, parent_session_id, child_session_id,
              reference_number, result, body, traceparent, url, endpoint_id, status, timeout_seconds, schedule,
              payload_version, ${kept ? "owner, " : ""}n)
   ${kept ? `where d.owner in (${kept})` : ""}
   order by d.n`;
};
const ENQUEUE = enqueueSql(0);

// What the common row leaves out (docs/webhooks.md, Storage): a kind its event type names, the
// first payload version, the default retry schedule. Null on the row stands for each
// (delivery.repo.ts reads them back so; the webhook_messages view derives the kind).
const storedKind = (m: NewMessage) => (m.eventType.split(".")[0] === m.kind ? null : m.kind);
const storedVersion = (m: NewMessage) =>
  m.payloadVersion === undefined || m.payloadVersion === FIRST_PAYLOAD_VERSION ? null : m.payloadVersion;
const storedSchedule = (schedule: number[]) =>
  schedule.length === DEFAULT_RETRY_SCHEDULE_SECONDS.length &&
  schedule.every((s, i) => s === DEFAULT_RETRY_SCHEDULE_SECONDS[i])
    ? null
    : schedule;

/**
 * Inserts a message with one delivery per URL (none when `urls` is empty: nothing is stored).
 * Returns the message id, or undefined when there was nowhere to send it.
 */
export async function enqueue(
  q: Queryable,
  message: NewMessage,
  urls: string[],
  config: Pick<WebhookConfig, "timeout_seconds" | "retry_schedule_seconds">,
): Promise<string | undefined> {
  return (await enqueueMany(q, [{ message, urls, config }]))[0];
}

/** {@link enqueue} of many messages in one statement; the result at each position is that message's id. */
export async function enqueueMany(q: Queryable, items: Enqueue[]): Promise<(string | undefined)[]> {
  const ids = messageIds(items);
  const stored = items.flatMap((item, i) => (ids[i] ? [i] : []));
  if (stored.length === 0) return ids;
  if (stored.length === 1) {
    const i = stored[0]!;
    await enqueueOne(q, ids[i]!, items[i]!, traceparentOf(items[i]!.message));
    return ids;
  }
  await q.query(ENQUEUE, enqueueParams(items, ids));
  return ids;
}

/** A new id for each item that has somewhere to go (undefined: no destination, nothing stored). */
const messageIds = (items: Enqueue[]) =>
  items.map(({ urls }) => (urls.length === 0 ? undefined : newId("msg")));

/** A message's traceparent as stored: its own, or `active` (the span active now; null: none). */
const traceparentOf = (m: NewMessage, active = activeTraceparent()) =>
  (m.traceparent === undefined ? active : m.traceparent) ?? null;

/** An {@link Enqueue} that belongs to a row of the caller's statement: its `owner`, from 1. */
export type OwnedEnqueue = Enqueue & { owner: number };

/**
 * {@link enqueueMany} as a clause of the caller's own statement, so that the caller's write and
 * the messages it reports are one statement (atomic without a transaction, one round trip). `sql`
 * is a data-modifying statement for a `with` clause, its parameters numbered after the caller's
 * first `at`; it writes the messages of the items whose `owner` is among the values `kept`
 * selects (an SQL query over the caller's other clauses, e.g. `select i from finished`). `ids`
 * are the messages' ids, position by position, whether kept or not (undefined: no destination).
 */
export function enqueueFragment(
  items: OwnedEnqueue[],
  at: number,
  kept: string,
): { sql: string; params: unknown[]; ids: (string | undefined)[] } {
  const ids = messageIds(items);
  return {
    sql: enqueueSql(at, kept),
    params: enqueueParams(items, ids, (i) => items[i]!.owner),
    ids,
  };
}

/** The parameters of the many-message insert: a row per destination of each item with an id. */
function enqueueParams(
  items: Enqueue[],
  ids: (string | undefined)[],
  ownerOf?: (item: number) => number,
): unknown[] {
  const active = activeTraceparent();
  const rows = items.flatMap((item, i) => {
    const id = ids[i];
    if (!id) return [];
    const { message, urls, endpointIds, statuses, config } = item;
    const traceparent = traceparentOf(message, active);
    return urls.map((url, u) => ({ id, i, message, url, u, config, traceparent, endpointIds, statuses }));
  });
  const first = <T>(r: (typeof rows)[number], value: T): T | null => (r.u === 0 ? value : null);
  const params: unknown[] = [
    rows.map(() => newId("dlv")),
    rows.map((r) => r.id),
    rows.map((r) => r.u + 1),
    rows.map((r) => r.message.merchantId),
    rows.map((r) => first(r, storedKind(r.message))),
    rows.map((r) => r.message.eventType),
    rows.map((r) => r.message.parentSessionId),
    rows.map((r) => first(r, r.message.childSessionId ?? null)),
    rows.map((r) => first(r, r.message.referenceNumber ?? null)),
    rows.map((r) => first(r, r.message.result ?? null)),
    rows.map((r) => first(r, r.message.body)),
    rows.map((r) => first(r, r.traceparent)),
    rows.map((r) => r.url),
    rows.map((r) => r.endpointIds?.[r.u] ?? null),
    rows.map((r) => r.statuses?.[r.u] ?? "pending"),
    rows.map((r) => r.config.timeout_seconds),
    rows.map((r) => {
      const schedule = storedSchedule(r.config.retry_schedule_seconds);
      return schedule && `{${schedule.join(",")}}`;
    }),
    rows.map((r) => storedVersion(r.message)),
  ];
  if (ownerOf) params.push(rows.map((r) => ownerOf(r.i)));
  return params;
}

async function enqueueOne(
  q: Queryable,
  id: string,
  item: Enqueue,
  traceparent: string | null,
): Promise<void> {
  const { message, urls, endpointIds, statuses, config } = item;
  const fields = [
    message.merchantId,
    storedKind(message),
    message.eventType,
    message.parentSessionId,
    message.childSessionId ?? null,
    message.referenceNumber ?? null,
    message.result ?? null,
    message.body,
    traceparent,
  ];
  const payloadVersion = storedVersion(message);
  const schedule = storedSchedule(config.retry_schedule_seconds);
  if (urls.length === 1) {
    await q.query(ENQUEUE_SINGLE, [
      newId("dlv"),
      id,
      ...fields,
      urls[0],
      endpointIds?.[0] ?? null,
      statuses?.[0] ?? "pending",
      config.timeout_seconds,
      schedule,
      payloadVersion,
    ]);
    return;
  }
  await q.query(ENQUEUE_ONE, [
    id,
    ...fields,
    config.timeout_seconds,
    schedule,
    payloadVersion,
    urls.map(() => newId("dlv")),
    urls,
    urls.map((_, u) => endpointIds?.[u] ?? null),
    urls.map((_, u) => statuses?.[u] ?? "pending"),
  ]);
}

export type DeliveryStart = "pending" | "failed" | "stream";

/**
 * A stored message sent to one more URL (a merchant sending an old message to the URL configured
 * now): a new delivery after the message's others, numbered when it is first sent, after
 * everything its (parent, URL) got before.
 */
export async function addDelivery(
  q: Queryable,
  d: {
    messageId: string;
    merchantId: string;
    parentSessionId: string;
    url: string;
    endpointId: string | null;
    endpointKind?: "endpoint" | "cli" | undefined;
    eventType: string;
    payloadVersion: string;
    config: Pick<WebhookConfig, "timeout_seconds" | "retry_schedule_seconds">;
  },
): Promise<void> {
  await q.query(
    `insert into webhook_deliveries (id, message_id, position, merchant_id, event_type, parent_session_id, url,
                                     endpoint_id, status, timeout_seconds, retry_schedule_seconds, payload_version)
     select $1, $2, (select max(position) + 1 from webhook_deliveries where message_id = $2), $3, $4, $5, $6, $7, $8, $9,
            $10::int4[], $11`,
    [
      newId("dlv"),
      d.messageId,
      d.merchantId,
      d.eventType,
      d.parentSessionId,
      d.url,
      d.endpointId,
      d.endpointKind === "cli" ? "stream" : "pending",
      d.config.timeout_seconds,
      d.config.retry_schedule_seconds,
      d.payloadVersion,
    ],
  );
}
