/**
 * A payment's whole story for the dashboard, read in one round trip per source: the payment
 * attempt, each operation (who, from where, why), each webhook message with how its deliveries
 * went, and each discrepancy a gateway reported. Reads the tables only (no other domain's code).
 */
import type { Queryable } from "../db/client.js";

export interface TimelineAttempt {
  form_of_payment: string;
  pg_code: string;
  status: string;
  created_at: Date;
  updated_at: Date;
}

export interface TimelineOperation {
  session_id: string;
  operation: string;
  amount_minor: number;
  state: string;
  source: string;
  via: string;
  initiator: { username?: string; first_name?: string | null; last_name?: string | null } | null;
  reason: string | null;
  reference_number: string;
  created_at: Date;
  operated_at: Date | null;
}

export interface TimelineMessage {
  id: string;
  event_type: string;
  result: string | null;
  child_session_id: string | null;
  created_at: Date;
  /** Deliveries by status, e.g. {succeeded: 2, failed: 1}. */
  statuses: Record<string, number>;
  urls: string[];
}

export const timelineRepo = {
  async attempts(q: Queryable, sessionId: string): Promise<TimelineAttempt[]> {
    return q.query<TimelineAttempt>(
      "select form_of_payment, pg_code, status, created_at, updated_at from payment_attempts where session_id = $1",
      [sessionId],
    );
  },
  async operations(q: Queryable, sessionId: string): Promise<TimelineOperation[]> {
    return q.query<TimelineOperation>(
      `select session_id, operation, amount_minor, state, source, via, initiator, reason, reference_number,
              created_at, operated_at
         from operations where parent_session_id = $1 order by created_at, session_id`,
      [sessionId],
    );
  },
  async messages(q: Queryable, merchantId: string, sessionId: string): Promise<TimelineMessage[]> {
    return q.query<TimelineMessage>(
      `select m.id, m.event_type, m.result, m.child_session_id, m.created_at,
              coalesce((select json_object_agg(s.status, s.n) from (
                 select d.status, count(*)::int4 as n from webhook_deliveries d where d.message_id = m.id
                  group by d.status) s), '{}'::json) as statuses,
              array(select d.url from webhook_deliveries d where d.message_id = m.id order by d.seq) as urls
         from webhook_messages m
        where m.merchant_id = $1 and m.parent_session_id = $2
        order by m.created_at, m.id limit 200`,
      [merchantId, sessionId],
    );
  },
};
