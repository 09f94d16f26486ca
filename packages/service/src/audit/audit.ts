/**
 * The audit log: who did what to a merchant's account, when and from where. One hook records
 * every action that changed something, from the HTTP API (private key or Basic auth) and from the
 * dashboard, as it answered; sign-ins are recorded by the sign-in page itself (there is no
 * principal yet when it answers). Reads are not recorded, except revealing the signing secret.
 *
 * What counts as done: an API call that answered 2xx (and not the replay of a stored answer to a
 * repeated Idempotency-Key: that was recorded the first time). A dashboard form cannot say so by
 * its status — a refusal redirects with an error notice as a success redirects with its notice —
 * so its handler says it: {@link auditDone}, called once the change is made. A dashboard request
 * whose handler did not call it (a refusal, a confirmation page, a resubmitted form) is not
 * recorded, whatever it answered.
 *
 * Records are written after the answer, buffered and inserted many at a time (every 50 ms or 200
 * records), so auditing never slows or fails an action and costs a busy API one statement per
 * batch, not one per request. A crash before a flush loses those records: the audit log is an
 * account of activity, not the ledger (operations and their webhooks are). Key hints are cached
 * per process (a key's hint never changes).
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Db } from "../db/client.js";
import { auditRepo, type NewAuditEvent } from "./audit.repo.js";

const FLUSH_MS = 50;
const FLUSH_SIZE = 200;

/** An action the hook records: its name, the target's route parameter, and what of the body to keep. */
interface Rule {
  action: string | ((body: Record<string, unknown>) => string);
  target?: string;
  keep?: string[];
  /**
   * The dashboard form's checkboxes among what is kept: a browser sends a checked box as "on"
   * and leaves an unchecked one out, so each is recorded as true or false, never missing.
   */
  checkboxes?: string[];
}

/** Dashboard requests whose handler made its change, with any details it adds. */
const done = new WeakMap<FastifyRequest, Record<string, unknown>>();

/**
 * Says that this dashboard request changed something (or revealed the secret), so the audit log
 * records it; call it once the change is made, never for a refusal or a confirmation page.
 * `detail` adds to (or overrides) what the route's rule keeps of the form.
 */
export function auditDone(request: FastifyRequest, detail: Record<string, unknown> = {}): void {
  done.set(request, { ...done.get(request), ...detail });
}

const API: Record<string, Rule> = {
  "POST /v1/operations": {
    action: (b) => `operation.${String(b.operation ?? "unknown")}`,
    keep: ["session_id", "order_no", "amount", "currency_code"],
  },
  "PUT /v1/webhooks/config": {
    action: "webhooks.config_changed",
    keep: [
      "enabled",
      "operations_webhook_url",
      "notify_api_initiated",
      "timeout_seconds",
      "retry_schedule_seconds",
    ],
  },
  "PUT /v1/webhooks/plugins/:type": {
    action: "webhooks.plugin_changed",
    target: "type",
    keep: ["webhook_url", "enabled"],
  },
  "POST /v1/webhooks/secret/rotate": { action: "webhooks.secret_rotated" },
  "POST /v1/webhooks/endpoints": {
    action: "webhooks.endpoint_created",
    keep: ["url", "event_types", "enabled"],
  },
  "PATCH /v1/webhooks/endpoints/:id": {
    action: "webhooks.endpoint_changed",
    target: "id",
    keep: ["url", "event_types", "enabled", "payload_version", "include_metadata"],
  },
  "DELETE /v1/webhooks/endpoints/:id": { action: "webhooks.endpoint_deleted", target: "id" },
  "POST /v1/webhooks/endpoints/:id/replay": { action: "webhooks.replayed", target: "id", keep: ["since"] },
  "POST /v1/webhooks/endpoints/:id/test": { action: "webhooks.test_sent", target: "id" },
  "POST /v1/webhooks/test": { action: "webhooks.test_sent" },
  "POST /v1/webhooks/messages/:id/replay": { action: "webhooks.replayed", target: "id" },
  "POST /v1/webhooks/replay": { action: "webhooks.replayed", keep: ["status", "since", "until"] },
};

const DASHBOARD: Record<string, Rule> = {
  "POST /dashboard/payments/:session_id/refund": {
    action: "operation.refund",
    target: "session_id",
    keep: ["amount", "reason"],
  },
  "POST /dashboard/payments/:session_id/capture": {
    action: "operation.capture",
    target: "session_id",
    keep: ["amount", "reason"],
  },
  "POST /dashboard/payments/:session_id/void": {
    action: "operation.void",
    target: "session_id",
    keep: ["reason"],
  },
  "POST /dashboard/payments/new": {
    action: "payment_request.created",
    keep: ["amount", "currency_code", "order_no"],
  },
  "POST /dashboard/webhooks/config": {
    action: "webhooks.config_changed",
    keep: [
      "enabled",
      "operations_webhook_url",
      "notify_api_initiated",
      "timeout_seconds",
      "retry_schedule_seconds",
    ],
    checkboxes: ["enabled", "notify_api_initiated"],
  },
  // The form's fields are named after the type: its handler gives the URL and the switch.
  "POST /dashboard/webhooks/plugins/:type": { action: "webhooks.plugin_changed", target: "type" },
  "POST /dashboard/webhooks/secret/reveal": { action: "webhooks.secret_revealed" },
  "POST /dashboard/webhooks/secret/rotate": { action: "webhooks.secret_rotated" },
  "POST /dashboard/webhooks/test": { action: "webhooks.test_sent" },
  "POST /dashboard/webhooks/endpoints": { action: "webhooks.endpoint_created", keep: ["url"] },
  "POST /dashboard/webhooks/endpoints/:id": {
    action: "webhooks.endpoint_changed",
    target: "id",
    keep: ["url", "enabled", "include_metadata"],
    checkboxes: ["enabled", "include_metadata"],
  },
  "POST /dashboard/webhooks/endpoints/:id/delete": { action: "webhooks.endpoint_deleted", target: "id" },
  "POST /dashboard/webhooks/endpoints/:id/replay": { action: "webhooks.replayed", target: "id" },
  "POST /dashboard/webhooks/endpoints/:id/test": { action: "webhooks.test_sent", target: "id" },
  "POST /dashboard/deliveries/:message_id/replay": { action: "webhooks.replayed", target: "message_id" },
  "POST /dashboard/deliveries/:message_id/send": {
    action: "webhooks.sent_to_current_url",
    target: "message_id",
    keep: ["url"],
  },
  "POST /dashboard/deliveries/replay": {
    action: "webhooks.replayed",
    keep: ["failed_since", "failed_until"],
  },
  "POST /dashboard/keys": { action: "key.created", keep: ["kind", "label"] },
  "POST /dashboard/keys/:key_id/revoke": { action: "key.revoked", target: "key_id" },
  "POST /dashboard/sdk": { action: "sdk.settings_changed", keep: ["is_enabled"], checkboxes: ["is_enabled"] },
  // Gateway settings: which one, of what kind, named how; never a credential.
  "POST /dashboard/gateways": { action: "gateway.created", keep: ["pg_code", "kind", "name"] },
  "POST /dashboard/gateways/:pg_code": { action: "gateway.changed", target: "pg_code", keep: ["name"] },
  // Settling by hand counts an operation and sends its webhook, or removes it: who said which, and why.
  "POST /dashboard/discrepancies/:id/resolve": {
    action: "discrepancy.resolved",
    target: "id",
    keep: ["outcome", "note"],
  },
  "POST /dashboard/sign-out": { action: "user.signed_out" },
};

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  return typeof body === "object" && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}

/** Records the actions of {@link API} and {@link DASHBOARD} that succeeded. Returns the writer's flush (for shutdown). */
export function registerAuditHook(
  app: FastifyInstance,
  db: Db,
  onError: (error: unknown) => void,
): { flush(): Promise<void> } {
  const hints = new Map<string, string>();
  let buffer: NewAuditEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const batch = buffer;
    buffer = [];
    if (batch.length > 0) writing = writing.then(() => auditRepo.recordMany(db, batch)).catch(onError);
    return writing;
  };
  app.addHook("onClose", async () => {
    await flush();
  });
  app.addHook("onResponse", async (request, reply) => {
    const key = `${request.method} ${request.routeOptions.url ?? ""}`;
    const rule = API[key] ?? DASHBOARD[key];
    if (!rule) return;
    const dashboard = key.includes(" /dashboard/");
    // A dashboard form's handler says it did something (its answer cannot: refusals redirect
    // too); the API answers 2xx for done (202: queued), and a stored answer replayed to a
    // repeated Idempotency-Key was recorded when it was first given.
    const handlerDetail = done.get(request);
    if (dashboard) {
      if (!handlerDetail) return;
    } else if (reply.statusCode >= 300 || reply.getHeader("idempotent-replayed") === "true") return;
    const p = request.principal;
    if (!p || (p.kind !== "private" && p.kind !== "user")) return;
    const body = bodyOf(request);
    const params = (request.params ?? {}) as Record<string, string>;
    const detail: Record<string, unknown> = {};
    for (const k of rule.keep ?? []) {
      if (rule.checkboxes?.includes(k)) detail[k] = body[k] === "on";
      else if (body[k] !== undefined && body[k] !== "") detail[k] = body[k];
    }
    if (!dashboard && reply.statusCode === 202) detail.queued = true;
    Object.assign(detail, handlerDetail);
    let actor: string;
    if (p.kind === "user") actor = p.user.username;
    else {
      let hint = hints.get(p.credential);
      if (hint === undefined) {
        hint = await auditRepo.keyHint(db, p.credential).catch(() => "an API key");
        if (hints.size > 10_000) hints.clear();
        hints.set(p.credential, hint);
      }
      actor = hint;
    }
    buffer.push({
      merchantId: p.merchantId,
      actorKind: p.kind === "user" ? "user" : "api_key",
      actor,
      action: typeof rule.action === "function" ? rule.action(body) : rule.action,
      target: rule.target ? (params[rule.target] ?? null) : null,
      detail,
      ip: request.ip,
      userAgent: request.headers["user-agent"] ?? null,
      at: new Date(),
    });
    if (buffer.length >= FLUSH_SIZE) void flush();
    else if (!timer) {
      timer = setTimeout(() => void flush(), FLUSH_MS);
      timer.unref();
    }
  });
  return { flush };
}
