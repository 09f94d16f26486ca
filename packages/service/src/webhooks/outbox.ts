/**
 * The transactional outbox: a webhook message and its deliveries are inserted in the caller's
 * database transaction, beside the change they report, so a crash at any instant loses no
 * message and sends none for a change that did not commit. `pg_notify` wakes every worker
 * process on commit (PostgreSQL delivers it only then); the in-process signal wakes this one.
 */
import { EventEmitter } from "node:events";
import { newId } from "@svc/protocol";
import type { Queryable } from "../db/client.js";
import type { WebhookConfig } from "./settings.repo.js";

/** The NOTIFY channel workers LISTEN on. */
export const OUTBOX_CHANNEL = "svc_webhook_outbox";

/** Emits "committed" after a transaction that wrote messages has committed (same process). */
export class OutboxSignal extends EventEmitter {
  committed(): void {
    this.emit("committed");
  }
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
  // One statement (message, deliveries, NOTIFY): the outbox costs the operation one round trip.
  await q.query(
    `with message as (
       insert into webhook_messages (id, merchant_id, kind, parent_session_id, child_session_id, reference_number, result, body)
       values ($1, $2, $3, $4, $5, $6, $7, $8) returning id),
     deliveries as (
       insert into webhook_deliveries (id, message_id, merchant_id, parent_session_id, url, status, timeout_seconds, retry_schedule_seconds)
       select d.id, message.id, $2, $4, d.url, 'pending', $11, $12
         from message, unnest($9::text[], $10::text[]) with ordinality as d(id, url, n)
        order by d.n)
     select pg_notify($13, '')`,
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
      OUTBOX_CHANNEL,
    ],
  );
  return id;
}
