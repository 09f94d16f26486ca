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

export interface NewAuditEvent {
  merchantId: string;
  actorKind: "user" | "api_key";
  actor: string;
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
  ip: string | null;
  userAgent: string | null;
  /** When it happened (default: now). */
  at?: Date;
}

export const auditRepo = {
  async record(q: Queryable, e: NewAuditEvent): Promise<void> {
    await auditRepo.recordMany(q, [e]);
  },
  /** Many events in one statement (the hook's buffer). */
  async recordMany(q: Queryable, events: NewAuditEvent[]): Promise<void> {
    if (events.length === 0) return;
    await q.query(
      `insert into audit_events (merchant_id, actor_kind, actor, action, target, detail, ip, user_agent, at)
       select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::text[],
                            $8::text[], $9::timestamptz[])`,
      [
        events.map((e) => e.merchantId),
        events.map((e) => e.actorKind),
        events.map((e) => e.actor.slice(0, 200)),
        events.map((e) => e.action),
        events.map((e) => e.target?.slice(0, 200) ?? null),
        events.map((e) => JSON.stringify(e.detail)),
        events.map((e) => e.ip),
        events.map((e) => e.userAgent?.slice(0, 300) ?? null),
        events.map((e) => (e.at ?? new Date()).toISOString()),
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
