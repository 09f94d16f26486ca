/** SQL of the messages API (messages with their deliveries and attempts, replays) and of where a message went. */
import type { Queryable } from "../db/client.js";
import type { WebhookConfig } from "./settings.repo.js";

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
        `exists (select 1 from webhook_deliveries d where d.message_id = m.id and d.status = $${params.length})`,
      );
    }
    params.push(f.limit);
    return q.query<MessageRow>(
      `select m.id, m.kind, m.event_type, m.parent_session_id, m.child_session_id, m.reference_number, m.result, m.body, m.created_at
         from webhook_messages m where ${where.join(" and ")}
        order by m.created_at desc, m.id desc limit $${params.length}`,
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
      `select id, message_id, url, endpoint_id, payload_version, status, tries, next_attempt_at, last_error, last_status_code, created_at, completed_at
         from webhook_deliveries where message_id = any($1) order by seq`,
      [messageIds],
    );
  },
  async attempts(q: Queryable, deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    return q.query<AttemptRow>(
      `select delivery_id, attempted_at, status_code, latency_ms, error, response_body
         from webhook_delivery_attempts where delivery_id = any($1) order by attempted_at`,
      [deliveryIds],
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
   * was created: a merchant replays after fixing what made them fail). Returns how many.
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
  ): Promise<number> {
    const params: unknown[] = [merchantId, current.timeout_seconds, current.retry_schedule_seconds];
    const where = ["merchant_id = $1", "status in ('succeeded', 'failed')"];
    if (by.messageId) {
      params.push(by.messageId);
      where.push(`message_id = $${params.length}`);
    }
    if (by.endpointId) {
      params.push(by.endpointId);
      where.push(`endpoint_id = $${params.length}`);
    }
    if (by.status) {
      params.push(by.status);
      where.push(`status = $${params.length}`);
    }
    if (by.since) {
      params.push(by.since);
      where.push(`created_at >= $${params.length}`);
    }
    if (by.until) {
      params.push(by.until);
      where.push(`created_at < $${params.length}`);
    }
    if (by.completedSince) {
      params.push(by.completedSince);
      where.push(`completed_at >= $${params.length}`);
    }
    const rows = await q.query(
      `update webhook_deliveries set status = 'pending', tries = 0, next_attempt_at = now(), lease_until = null,
              completed_at = null, updated_at = now(), timeout_seconds = $2, retry_schedule_seconds = $3::int4[]
        where ${where.join(" and ")} returning id`,
      params,
    );
    return rows.length;
  },
};
