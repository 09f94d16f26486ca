/** What gateways posted to svc, kept as received and as read (table gateway_messages). */
import { newId } from "@svc/protocol";
import type { Queryable } from "../db/client.js";
import { jsonParam, storableText } from "../db/json.js";
import type { NotificationRead } from "./adapter.js";

/**
 * How many messages are kept per payment (pg_code and reference), the first ones: a payment gets
 * a few from its gateway, but anyone who knows a KNET track id can post plain error posts naming
 * it, and each used to add a row for ever. (Two posts counted at the same instant may both be
 * kept: a bound, not an exact figure.)
 */
export const MESSAGES_PER_REFERENCE = 100;

export const gatewayMessagesRepo = {
  /** Keeps what a gateway posted, unless its payment already has {@link MESSAGES_PER_REFERENCE}. */
  async insert(q: Queryable, pgCode: string, record: NonNullable<NotificationRead["record"]>): Promise<void> {
    await q.query(
      `insert into gateway_messages (id, pg_code, pg_reference, raw, decoded, outcome)
       select $1, $2, $3, $4, $5, $6
        where $3::text is null
           or (select count(*) from (select 1 from gateway_messages where pg_code = $2 and pg_reference = $3
                                      limit $7) kept) < $7`,
      // As received, but storable (db/json.ts): a NUL or half an emoji in what a gateway
      // posted must not fail the notification.
      [
        newId("gmsg"),
        pgCode,
        record.pgReference,
        storableText(record.raw),
        jsonParam(record.decoded),
        record.outcome,
        MESSAGES_PER_REFERENCE,
      ],
    );
  },
  /** The messages about one payment, oldest first (support and reconciliation). */
  async forReference(q: Queryable, pgCode: string, pgReference: string) {
    return q.query<{
      id: string;
      received_at: Date;
      raw: string;
      decoded: Record<string, unknown>;
      outcome: string;
    }>(
      `select id, received_at, raw, decoded, outcome from gateway_messages
        where pg_code = $1 and pg_reference = $2 order by received_at, id`,
      [pgCode, pgReference],
    );
  },
};
