/**
 * The transactional outbox: a webhook message and its deliveries are inserted in the caller's
 * database transaction, beside the change they report, so a crash at any instant loses no
 * message and sends none for a change that did not commit. After the commit the caller signals
 * {@link OutboxSignal.committed}: it wakes this process's worker at once and, on PostgreSQL,
 * every other worker process by a NOTIFY sent after the commit, never inside the transaction
 * (PostgreSQL serialises the commits of all transactions that NOTIFY, so a NOTIFY per operation
 * made operations queue behind one another). A wake that is lost (a crash right after the commit)
 * costs latency only: workers also poll.
 */
import { EventEmitter } from "node:events";
import { newId } from "@svc/protocol";
import type { Db, Queryable } from "../db/client.js";
import type { WebhookConfig } from "./settings.repo.js";

/** The NOTIFY channel workers LISTEN on. */
export const OUTBOX_CHANNEL = "svc_webhook_outbox";

/**
 * Emits "committed" after a transaction that wrote messages has committed, and sends the NOTIFY
 * that wakes workers in other processes. NOTIFYs are coalesced: at most one is in flight, and
 * commits signalled meanwhile are covered by one more sent after it, so every commit is
 * followed by a NOTIFY that started after it.
 */
export class OutboxSignal extends EventEmitter {
  private notifying = false;
  private again = false;

  /** @param notifyOthers sends the cross-process NOTIFY (PostgreSQL); absent with one process. */
  constructor(private readonly notifyOthers?: () => Promise<unknown>) {
    super();
  }

  committed(): void {
    this.emit("committed");
    this.notify();
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
      "A refund, capture or void: the seed's operation webhook (its `result` says success, queued or rejected).",
  },
  { type: "payment.paid", description: "A purchase was paid." },
  { type: "payment.authorized", description: "An authorization succeeded: capture or void it." },
  { type: "payment.failed", description: "The payment was declined." },
  { type: "payment.canceled", description: "The payment was cancelled (by the customer or the gateway)." },
  { type: "webhook.test", description: "A test message sent from the dashboard." },
] as const;
export type EventType = (typeof EVENT_TYPES)[number]["type"];

export interface NewMessage {
  merchantId: string;
  kind: "operation" | "payment";
  eventType: EventType;
  parentSessionId: string;
  childSessionId?: string | undefined;
  referenceNumber?: string | undefined;
  result?: string | undefined;
  body: string;
}

/** Destination URLs, each once, in a stable order. */
export function uniqueUrls(urls: (string | null | undefined)[]): string[] {
  return [...new Set(urls.filter((u): u is string => typeof u === "string" && u.length > 0))];
}

/** A message to insert, with where it goes and the destination settings its deliveries keep. */
export interface Enqueue {
  message: NewMessage;
  urls: string[];
  config: Pick<WebhookConfig, "timeout_seconds" | "retry_schedule_seconds">;
}

// Messages and their deliveries in one statement: the outbox costs the operation one round trip
// however many messages a batch of operations writes. Deliveries are inserted in the order given,
// so `seq` orders the messages of one (URL, parent) as they were enqueued, and each takes the next
// `sequence` of its (parent, URL) from webhook_sequences: the upsert holds that counter's row
// until the caller commits, so two producers of one parent number their messages one after the
// other, and a rollback gives the numbers back (no gap).
const ENQUEUE = `with message as (
    insert into webhook_messages (id, merchant_id, kind, event_type, parent_session_id, child_session_id, reference_number, result, body)
    select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[])
    returning id),
  counters as (
    insert into webhook_sequences as s (parent_session_id, url, last)
    select * from unnest($18::text[], $19::text[], $20::int8[])
    on conflict (parent_session_id, url) do update set last = s.last + excluded.last
    returning parent_session_id, url, last),
  deliveries as (
    insert into webhook_deliveries (id, message_id, merchant_id, parent_session_id, url, status, timeout_seconds,
                                    retry_schedule_seconds, event_type, sequence)
    select d.id, d.message_id, d.merchant_id, d.parent_session_id, d.url, 'pending', d.timeout_seconds,
           d.schedule::int4[], d.event_type, counters.last - d.count + d.k
      from unnest($10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::int4[], $16::text[], $17::text[],
                  $21::int8[], $22::int8[]) with ordinality
           as d(id, message_id, merchant_id, parent_session_id, url, timeout_seconds, schedule, event_type, k, count, n)
      join message on message.id = d.message_id
      join counters on counters.parent_session_id = d.parent_session_id and counters.url = d.url
     order by d.n)
  select count(*) from message`;

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
  const ids = items.map(({ urls }) => (urls.length === 0 ? undefined : newId("msg")));
  const messages = items.flatMap(({ message }, i) => (ids[i] ? [{ id: ids[i], ...message }] : []));
  if (messages.length === 0) return ids;
  const deliveries = items.flatMap(({ message, urls, config }, i) =>
    urls.map((url) => ({
      id: newId("dlv"),
      messageId: ids[i]!,
      merchantId: message.merchantId,
      parentSessionId: message.parentSessionId,
      url,
      timeoutSeconds: config.timeout_seconds,
      schedule: `{${config.retry_schedule_seconds.join(",")}}`,
      eventType: message.eventType,
      /** Its place among this batch's deliveries of the same (parent, URL), from 1. */
      k: 0,
      count: 0,
    })),
  );
  // Sequence numbers: each (parent, URL) of the batch moves its counter by how many deliveries it
  // has here; each delivery takes counter − count + k (the batch's order is the commit order).
  const groups = new Map<string, { parent: string; url: string; count: number }>();
  for (const d of deliveries) {
    const key = `${d.parentSessionId}\n${d.url}`;
    const group = groups.get(key) ?? { parent: d.parentSessionId, url: d.url, count: 0 };
    groups.set(key, group);
    d.k = ++group.count;
  }
  for (const d of deliveries) d.count = groups.get(`${d.parentSessionId}\n${d.url}`)!.count;
  // Counter rows are locked in one order (parent, then URL) by every producer, so two batches
  // that share parents wait for each other instead of deadlocking.
  const counters = [...groups.values()].sort((a, b) =>
    a.parent === b.parent ? (a.url < b.url ? -1 : 1) : a.parent < b.parent ? -1 : 1,
  );
  await q.query(ENQUEUE, [
    messages.map((m) => m.id),
    messages.map((m) => m.merchantId),
    messages.map((m) => m.kind),
    messages.map((m) => m.eventType),
    messages.map((m) => m.parentSessionId),
    messages.map((m) => m.childSessionId ?? null),
    messages.map((m) => m.referenceNumber ?? null),
    messages.map((m) => m.result ?? null),
    messages.map((m) => m.body),
    deliveries.map((d) => d.id),
    deliveries.map((d) => d.messageId),
    deliveries.map((d) => d.merchantId),
    deliveries.map((d) => d.parentSessionId),
    deliveries.map((d) => d.url),
    deliveries.map((d) => d.timeoutSeconds),
    deliveries.map((d) => d.schedule),
    deliveries.map((d) => d.eventType),
    counters.map((c) => c.parent),
    counters.map((c) => c.url),
    counters.map((c) => c.count),
    deliveries.map((d) => d.k),
    deliveries.map((d) => d.count),
  ]);
  return ids;
}
