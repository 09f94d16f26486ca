/** SQL of the audit log. */
import type { Queryable } from "../db/client.js";

export interface AuditEvent {
  id: number;
  at: Date;
  actor_kind: "user" | "api_key";
  actor: string;
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
  ip: string | null;
  user_agent: string | null;
}

export const auditRepo = {
  async record(
    q: Queryable,
    e: {
      merchantId: string;
      actorKind: "user" | "api_key";
      actor: string;
      action: string;
      target: string | null;
      detail: Record<string, unknown>;
      ip: string | null;
      userAgent: string | null;
    },
  ): Promise<void> {
    await q.query(
      `insert into audit_events (merchant_id, actor_kind, actor, action, target, detail, ip, user_agent)
       values ($1, $2, $3, $4, $5, $6::jsonb, $7, $8)`,
      [
        e.merchantId,
        e.actorKind,
        e.actor.slice(0, 200),
        e.action,
        e.target?.slice(0, 200) ?? null,
        JSON.stringify(e.detail),
        e.ip,
        e.userAgent?.slice(0, 300) ?? null,
      ],
    );
  },
  /** The hint of the API key behind a credential (`key:<hash>`), as the keys page shows it. */
  async keyHint(q: Queryable, credential: string): Promise<string> {
    const hash = credential.startsWith("key:") ? credential.slice(4) : credential;
    const rows = await q.query<{ key_hint: string }>("select key_hint from api_keys where key_hash = $1", [
      hash,
    ]);
    return rows[0]?.key_hint ?? "an API key";
  },
  /** The merchant's events, newest first, before event `before` (the cursor). */
  async list(q: Queryable, merchantId: string, limit: number, before?: number): Promise<AuditEvent[]> {
    return q.query<AuditEvent>(
      `select id, at, actor_kind, actor, action, target, detail, ip, user_agent from audit_events
        where merchant_id = $1 ${before ? "and id < $3" : ""} order by id desc limit $2`,
      before ? [merchantId, limit + 1, before] : [merchantId, limit + 1],
    );
  },
};
