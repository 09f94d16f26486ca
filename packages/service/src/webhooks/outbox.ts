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

export interface NewMessage {
  merchantId: string;
  kind: "operation" | "payment";
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
  if (urls.length === 0) return undefined;
  const id = newId("msg");
  // One statement (message and deliveries): the outbox costs the operation one round trip.
  await q.query(
    `with message as (
       insert into webhook_messages (id, merchant_id, kind, parent_session_id, child_session_id, reference_number, result, body)
       values ($1, $2, $3, $4, $5, $6, $7, $8) returning id),
     deliveries as (
       insert into webhook_deliveries (id, message_id, merchant_id, parent_session_id, url, status, timeout_seconds, retry_schedule_seconds)
       select d.id, message.id, $2, $4, d.url, 'pending', $11, $12
         from message, unnest($9::text[], $10::text[]) with ordinality as d(id, url, n)
        order by d.n)
     select id from message`,
    [
      id,
      message.merchantId,
      message.kind,
      message.parentSessionId,
      message.childSessionId ?? null,
      message.referenceNumber ?? null,
      message.result ?? null,
      message.body,
      urls.map(() => newId("dlv")),
      urls,
      config.timeout_seconds,
      config.retry_schedule_seconds,
    ],
  );
  return id;
}
