/** The messages API: what was sent where, every attempt, and replays. */
import type { Db } from "../db/client.js";
import { retriedTx } from "../db/conflict.js";
import { AppError } from "../http/problem.js";
import { type MessageFilter, messagesRepo } from "./messages.repo.js";
import { TRANSACTION_TYPES } from "@svc/protocol";
import { addDelivery, FIRST_PAYLOAD_VERSION, type OutboxSignal, uniqueUrls } from "./outbox.js";
import { settingsRepo } from "./settings.repo.js";

export const DEFAULT_PAGE = 50;

/**
 * Replays and sends write only to the database, so each runs again when PostgreSQL undoes it to
 * break a deadlock (with a worker recording outcomes, or an endpoint being disabled) instead of
 * answering 503 (docs/architecture.md, "Transactions that collide").
 */
/** A message id this merchant has not, and where its ids are listed. */
const noMessage = (id: string) =>
  new AppError("not_found", `No webhook message ${id}. GET /v1/webhooks/messages lists this merchant's.`);

export function createMessagesService(db: Db, deps: { outbox: OutboxSignal }) {
  async function withDeliveries(messages: Awaited<ReturnType<typeof messagesRepo.list>>) {
    const deliveries = await messagesRepo.deliveries(
      db,
      messages.map((m) => m.id),
    );
    const attempts = await messagesRepo.attempts(db, deliveries);
    return messages.map((m) => {
      const own = deliveries.filter((d) => d.message_id === m.id);
      return {
        id: m.id,
        kind: m.kind,
        event_type: m.event_type,
        session_id: m.parent_session_id,
        child_session_id: m.child_session_id,
        reference_number: m.reference_number,
        result: m.result,
        status: messageStatus(own.map((d) => d.status)),
        created_at: m.created_at.toISOString(),
        payload: JSON.parse(m.body) as unknown,
        deliveries: own.map((d) => ({
          id: d.id,
          url: d.url,
          endpoint_id: d.endpoint_id,
          status: d.status,
          tries: d.tries,
          next_attempt_at:
            d.status === "pending" || d.status === "retrying" ? d.next_attempt_at.toISOString() : null,
          last_status_code: d.last_status_code,
          last_error: d.last_error,
          completed_at: d.completed_at?.toISOString() ?? null,
          attempts: attempts
            .filter((a) => a.delivery_id === d.id)
            .map((a) => ({
              attempted_at: a.attempted_at.toISOString(),
              url: a.url ?? d.url,
              status_code: a.status_code,
              latency_ms: a.latency_ms,
              error: a.error,
              response_body: a.response_body,
            })),
        })),
      };
    });
  }

  return {
    async list(merchantId: string, filter: MessageFilter) {
      return { messages: await withDeliveries(await messagesRepo.list(db, merchantId, filter)) };
    },
    async get(merchantId: string, id: string) {
      const message = await messagesRepo.find(db, merchantId, id);
      if (!message) throw noMessage(id);
      return (await withDeliveries([message]))[0]!;
    },
    /**
     * Sends one message again to each of its destinations that finished (succeeded or failed),
     * with the merchant's current timeout and retry schedule.
     */
    async replay(merchantId: string, id: string) {
      const message = await messagesRepo.find(db, merchantId, id);
      if (!message) throw noMessage(id);
      const counts = await retriedTx(db, async (q) =>
        messagesRepo.replay(q, merchantId, { messageId: id }, await settingsRepo.config(q, merchantId)),
      );
      deps.outbox.committed();
      return counts;
    },
    /**
     * The URLs a message could be sent to now that it was not sent to: the general URL, the plugin
     * URLs and the enabled endpoints (an old message, after a merchant changed their URL).
     */
    async otherDestinations(
      merchantId: string,
      urlsSentTo: string[],
    ): Promise<{ url: string; endpointId: string | null }[]> {
      const [config, plugins, routing] = await Promise.all([
        settingsRepo.config(db, merchantId),
        Promise.all(TRANSACTION_TYPES.map((t) => settingsRepo.plugin(db, merchantId, t))),
        settingsRepo.routing(db, merchantId, "e_commerce"),
      ]);
      const current = new Map<string, string | null>();
      for (const url of uniqueUrls([
        config.operations_webhook_url,
        ...plugins.map((p) => (p.enabled ? p.webhook_url : null)),
      ]))
        current.set(url, null);
      // A `svc listen` endpoint is someone's terminal for now, not a URL to send old messages to.
      for (const e of routing.endpoints) if (e.enabled && e.kind !== "cli") current.set(e.url, e.id);
      return [...current]
        .filter(([url]) => !urlsSentTo.includes(url))
        .map(([url, endpointId]) => ({ url, endpointId }));
    },
    /** Sends a stored message to one of its {@link otherDestinations}, with the current timeout and retries. */
    async sendTo(merchantId: string, id: string, url: string) {
      const message = await messagesRepo.find(db, merchantId, id);
      if (!message) throw noMessage(id);
      const sent = await messagesRepo.deliveries(db, [id]);
      const target = (
        await this.otherDestinations(
          merchantId,
          sent.map((d) => d.url),
        )
      ).find((d) => d.url === url);
      if (!target)
        throw new AppError(
          "invalid_state",
          `${url} is not one of your current webhook URLs that this message was not sent to: replay the message to send it again where it went.`,
        );
      await retriedTx(db, async (q) =>
        addDelivery(q, {
          messageId: id,
          merchantId,
          parentSessionId: message.parent_session_id,
          url,
          endpointId: target.endpointId,
          eventType: message.event_type,
          payloadVersion: sent[0]?.payload_version ?? FIRST_PAYLOAD_VERSION,
          config: await settingsRepo.config(q, merchantId),
        }),
      );
      deps.outbox.committed();
      return { sent_to: url };
    },
    async replayMany(
      merchantId: string,
      by: { status: "failed" | "succeeded"; since?: Date | undefined; until?: Date | undefined },
    ) {
      const counts = await retriedTx(db, async (q) =>
        messagesRepo.replay(q, merchantId, by, await settingsRepo.config(q, merchantId)),
      );
      deps.outbox.committed();
      return counts;
    },
  };
}

/** A message's status from its deliveries: failed if any failed, pending while any is not done. */
export function messageStatus(statuses: string[]): string {
  if (statuses.includes("failed")) return "failed";
  if (statuses.includes("retrying")) return "retrying";
  if (statuses.includes("pending")) return "pending";
  return "succeeded";
}

export type MessagesService = ReturnType<typeof createMessagesService>;
