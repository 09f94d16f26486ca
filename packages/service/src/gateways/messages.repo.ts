/** What gateways posted to svc, kept as received and as read (table gateway_messages). */
import { newId } from "@svc/protocol";
import type { Queryable } from "../db/client.js";
import { jsonParam, storableText } from "../db/json.js";
import type { NotificationRead } from "./adapter.js";

export const gatewayMessagesRepo = {
  async insert(q: Queryable, pgCode: string, record: NonNullable<NotificationRead["record"]>): Promise<void> {
    await q.query(
      "insert into gateway_messages (id, pg_code, pg_reference, raw, decoded, outcome) values ($1, $2, $3, $4, $5, $6)",
      // As received, but storable (db/json.ts): a NUL or half an emoji in what a gateway
      // posted must not fail the notification.
      [
        newId("gmsg"),
        pgCode,
        record.pgReference,
        storableText(record.raw),
        jsonParam(record.decoded),
        record.outcome,
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
