/**
 * Webhook endpoints (docs/webhooks.md "Endpoints"): the merchant's own destinations beside the
 * seed's general operations URL and plugin URLs. Each has the event types it wants (or all),
 * custom headers, an enabled flag, the payload version it was created with (pinned), and whether
 * operation webhooks carry the merchant's metadata (the seed's payload is exact otherwise).
 *
 * The seed's destinations appear in the list as endpoints of their own kind (`general`,
 * `plugin`), read-only here: they keep being configured as the seed says.
 *
 * An endpoint whose every attempt has failed for `disableAfterMs` (5 days) is disabled by
 * {@link EndpointsService.disableFailing}, which tells the merchant's other endpoints
 * (`webhook.endpoint_disabled`); re-enabling it offers to replay what it missed.
 */
import { newId, TRANSACTION_TYPES } from "@svc/protocol";
import { canonicalJson, type EndpointDisabledWebhook } from "@svc/webhooks";
import {
  CURRENT_PAYLOAD_VERSION,
  PAYLOAD_VERSIONS,
  type PayloadVersion,
  signPayload,
} from "@svc/webhooks/sign";
import type { Db, Queryable } from "../db/client.js";
import { retriedTx } from "../db/conflict.js";
import { AppError, FieldErrors } from "../http/problem.js";
import { type EndpointChange, type EndpointRow, endpointsRepo } from "./endpoints.repo.js";
import { timestampUtc } from "./format.js";
import { messagesRepo, type Moved } from "./messages.repo.js";
import { EVENT_TYPES, FIRST_PAYLOAD_VERSION, type OutboxSignal } from "./outbox.js";
import { publish, route } from "./publish.js";
import { settingsRepo, type WebhookConfig } from "./settings.repo.js";
import { urlProblem } from "./settings.service.js";
import { noEndpoint } from "../http/not-found.js";

/**
 * A `svc listen` endpoint nobody has read for this long is deleted: its CLI was killed outright
 * (`kill -9`, a crash) and could not delete it. A running CLI keeps its stream open, or reopens it
 * within seconds, so only an abandoned one is this quiet.
 */
export const CLI_ENDPOINT_ABANDONED_MS = 24 * 3600 * 1000;

/** How many endpoints (of kind endpoint or cli) one merchant may have. */
export const MAX_ENDPOINTS = 20;
export const MAX_HEADERS = 10;
const MAX_HEADER_VALUE = 1000;
const MAX_DESCRIPTION = 200;

/**
 * Headers svc sets itself, or that HTTP reserves: an endpoint may not set them (nor any
 * `webhook-*`, `svc-*` or `content-*` header, checked by prefix).
 */
const RESERVED_HEADERS = new Set([
  "host",
  "user-agent",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "expect",
  "authorization-signature",
  // Trace context: svc sends its own when tracing (docs/operations.md, Tracing).
  "traceparent",
  "tracestate",
]);
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
// Visible ASCII, space and tab: nothing that could end the header or smuggle another.
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/** The event types an endpoint may subscribe to (every one but the test message, sent on request). */
export const SUBSCRIBABLE = EVENT_TYPES.map((e) => e.type).filter((t) => t !== "webhook.test");

/** What the API says about an endpoint, of any kind. */
export interface EndpointView {
  id: string;
  kind: "endpoint" | "cli" | "general" | "plugin";
  url: string;
  description: string;
  /** `["*"]`: every event type. */
  event_types: string[];
  headers: Record<string, string>;
  enabled: boolean;
  payload_version: string;
  include_metadata: boolean;
  /** Read-only kinds (general, plugin) are configured through the webhook settings. */
  editable: boolean;
  /** When the current run of failed attempts began (null: the last attempt succeeded). */
  failing_since: string | null;
  last_error: string | null;
  disabled_at: string | null;
  disabled_reason: "manual" | "failing" | null;
  created_at: string | null;
  updated_at: string | null;
}

export interface EndpointInput {
  url?: string | undefined;
  description?: string | undefined;
  event_types?: string[] | undefined;
  headers?: Record<string, string> | undefined;
  enabled?: boolean | undefined;
  payload_version?: string | undefined;
  include_metadata?: boolean | undefined;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** What a masked header value starts with: not ASCII, so no value svc accepts can start with it. */
const MASK = "••••";

/**
 * How a custom header's value is shown in an answer or a page: never whole, since it is often a
 * token a receiver checks. Its last 4 characters when it has 12 or more, so one can tell two apart.
 */
export function maskedHeaderValue(value: string): string {
  return `${MASK}${value.length >= 12 ? value.slice(-4) : ""}`;
}

/**
 * Headers as given, each value that is the masked form of the value stored under that name (any
 * case) replaced by the stored value: an endpoint read and sent back, or the dashboard's form
 * submitted as shown, keeps its values.
 */
function unmasked(given: Record<string, string>, stored: Record<string, string>): Record<string, string> {
  const byName = new Map(Object.entries(stored).map(([name, value]) => [name.toLowerCase(), value]));
  return Object.fromEntries(
    Object.entries(given).map(([name, value]) => {
      const kept = byName.get(name.toLowerCase());
      return [name, kept !== undefined && value === maskedHeaderValue(kept) ? kept : value];
    }),
  );
}

export function endpointView(e: EndpointRow): EndpointView {
  return {
    id: e.id,
    kind: e.kind,
    url: e.url,
    description: e.description,
    event_types: e.event_types ?? ["*"],
    headers: Object.fromEntries(
      Object.entries(e.headers).map(([name, value]) => [name, maskedHeaderValue(value)]),
    ),
    enabled: e.enabled,
    payload_version: e.payload_version,
    include_metadata: e.include_metadata,
    editable: true,
    failing_since: iso(e.failing_since),
    last_error: e.last_error,
    disabled_at: iso(e.disabled_at),
    disabled_reason: e.disabled_reason,
    created_at: iso(e.created_at),
    updated_at: iso(e.updated_at),
  };
}

/** The seed's destinations as read-only endpoints: the general URL and each plugin URL set. */
function seedViews(
  config: WebhookConfig,
  plugins: { type: string; webhook_url: string | null; enabled: boolean }[],
) {
  const seed = (
    id: string,
    kind: "general" | "plugin",
    url: string,
    description: string,
    eventTypes: string[],
    enabled: boolean,
  ): EndpointView => ({
    id,
    kind,
    url,
    description,
    event_types: eventTypes,
    headers: {},
    enabled,
    payload_version: FIRST_PAYLOAD_VERSION,
    include_metadata: false,
    editable: false,
    failing_since: null,
    last_error: null,
    disabled_at: null,
    disabled_reason: null,
    created_at: null,
    updated_at: null,
  });
  const views: EndpointView[] = [];
  if (config.operations_webhook_url)
    views.push(
      seed(
        "general",
        "general",
        config.operations_webhook_url,
        "General configuration: operation webhooks (PUT /v1/webhooks/config)",
        ["operation"],
        config.enabled,
      ),
    );
  for (const p of plugins)
    if (p.webhook_url)
      views.push(
        seed(
          `plugin_${p.type}`,
          "plugin",
          p.webhook_url,
          `Plugin ${p.type}: operation and payment webhooks (PUT /v1/webhooks/plugins/${p.type})`,
          ["operation", "payment.paid", "payment.authorized", "payment.failed", "payment.canceled"],
          config.enabled && p.enabled,
        ),
      );
  return views;
}

/** Checks what a create (`full`) or a change gives; throws one 422 naming every bad field. */
function validate(
  input: EndpointInput,
  full: boolean,
  allowPrivate: boolean,
): EndpointChange & { enabled?: boolean } {
  const errors = new FieldErrors();
  const out: EndpointChange & { enabled?: boolean } = {};
  if (input.url !== undefined || full) {
    const problem = input.url
      ? urlProblem(input.url, allowPrivate)
      : "is required: the URL svc sends this endpoint's webhooks to";
    if (problem) errors.add("url", problem);
    else out.url = input.url;
  }
  if (input.description !== undefined) {
    if ([...input.description].length > MAX_DESCRIPTION)
      errors.add("description", `at most ${MAX_DESCRIPTION} characters`);
    else out.description = input.description;
  }
  if (input.event_types !== undefined) {
    const types = input.event_types;
    if (types.length === 0)
      errors.add("event_types", 'must name at least one event type, or be ["*"] for all of them');
    else if (types.includes("*")) {
      if (types.length > 1) errors.add("event_types", '"*" means every event type: give it alone');
      else out.event_types = null;
    } else {
      const unknown = types.filter((t) => !(SUBSCRIBABLE as readonly string[]).includes(t));
      for (const t of unknown)
        errors.add(
          "event_types",
          `unknown event type "${String(t).slice(0, 60)}": use one of ${SUBSCRIBABLE.join(", ")} (GET /v1/webhooks/event-types)`,
        );
      if (unknown.length === 0) out.event_types = [...new Set(types)];
    }
  }
  if (input.headers !== undefined) {
    const entries = Object.entries(input.headers);
    const before = Object.keys(errors.errors).length;
    if (entries.length > MAX_HEADERS) errors.add("headers", `at most ${MAX_HEADERS} custom headers`);
    const seen = new Set<string>();
    for (const [name, value] of entries) {
      const lower = name.toLowerCase();
      const at = `headers.${name.slice(0, 64)}`;
      if (!HEADER_NAME.test(name))
        errors.add(at, "a header name is 1 to 64 letters, digits or !#$%&'*+.^_`|~- characters");
      else if (
        lower.startsWith("webhook-") ||
        lower.startsWith("svc-") ||
        lower.startsWith("content-") ||
        RESERVED_HEADERS.has(lower)
      )
        errors.add(
          at,
          "is set by svc (signature, event and delivery headers) or by HTTP itself: choose another name",
        );
      else if (lower.startsWith("proxy-")) errors.add(at, "proxy headers cannot be set");
      else if (seen.has(lower)) errors.add(at, "given twice (header names ignore case)");
      if (typeof value === "string" && value.startsWith(MASK))
        errors.add(
          at,
          "is a masked value (svc never shows a header's value whole) that stands for no value stored under this name: send the value itself",
        );
      else if (typeof value !== "string" || value.length > MAX_HEADER_VALUE || !HEADER_VALUE.test(value))
        errors.add(
          at,
          `the value must be text of at most ${MAX_HEADER_VALUE} visible ASCII characters, without line breaks`,
        );
      seen.add(lower);
    }
    if (Object.keys(errors.errors).length === before) out.headers = Object.fromEntries(entries);
  }
  if (input.payload_version !== undefined) {
    if (!(PAYLOAD_VERSIONS as readonly string[]).includes(input.payload_version))
      errors.add(
        "payload_version",
        `unknown version "${input.payload_version.slice(0, 40)}": use one of ${PAYLOAD_VERSIONS.join(", ")}`,
      );
    else out.payload_version = input.payload_version;
  }
  if (input.include_metadata !== undefined) out.include_metadata = input.include_metadata;
  if (input.enabled !== undefined) out.enabled = input.enabled;
  errors.throwIfAny();
  return out;
}

/**
 * The `webhook.endpoint_disabled` payload: which endpoint, since when it failed, its last error.
 * @svc/webhooks' type, so the notice and the library that parses it cannot differ.
 */
export type EndpointDisabledPayload = EndpointDisabledWebhook;

export function createEndpointsService(
  db: Db,
  deps: {
    outbox: OutboxSignal;
    now: () => Date;
    /** An endpoint failing this long is disabled: 5 days by default (SVC_WEBHOOK_DISABLE_AFTER_HOURS). */
    disableAfterMs: number;
    /** Counts endpoints disabled for failing (the metric). */
    onDisabled?: (count: number) => void;
    /** SVC_WEBHOOK_ALLOW_PRIVATE: whether a URL may name a private address (see urlProblem). */
    allowPrivate: boolean;
  },
) {
  async function find(q: Queryable, merchantId: string, id: string, lock = false): Promise<EndpointRow> {
    const e = await endpointsRepo.find(q, merchantId, id, lock);
    if (e) return e;
    if (id === "general" || id.startsWith("plugin_"))
      throw new AppError(
        "read_only",
        `"${id}" is one of the seed's destinations: change it with ${id === "general" ? "PUT /v1/webhooks/config" : `PUT /v1/webhooks/plugins/${id.slice(7)}`}.`,
      );
    throw noEndpoint(id);
  }

  /**
   * What the endpoint missed since `since`: its deliveries that failed (tried and given up, or
   * held while it was disabled), which a replay sends again.
   */
  async function missedSince(q: Queryable, e: EndpointRow, since: Date) {
    const rows = await q.query<{ n: number }>(
      `select count(*)::int4 as n from webhook_deliveries
        where endpoint_id = $1 and status = 'failed' and completed_at >= $2`,
      [e.id, since],
    );
    return { failed: rows[0]!.n };
  }

  return {
    /** The merchant's endpoints: the seed's destinations first (read-only), then their own, oldest first. */
    async list(merchantId: string): Promise<EndpointView[]> {
      const [config, plugins, own] = await Promise.all([
        settingsRepo.config(db, merchantId),
        Promise.all(TRANSACTION_TYPES.map((t) => settingsRepo.plugin(db, merchantId, t))),
        endpointsRepo.list(db, merchantId),
      ]);
      return [...seedViews(config, plugins), ...own.map(endpointView)];
    },

    async get(merchantId: string, id: string): Promise<EndpointView> {
      if (id === "general" || id.startsWith("plugin_")) {
        const seed = (await this.list(merchantId)).find((v) => v.id === id);
        if (seed) return seed;
      }
      return endpointView(await find(db, merchantId, id));
    },

    /** What an enabled endpoint missed since it was enabled again (0 when nothing: no replay to offer). */
    async missed(merchantId: string, id: string): Promise<{ since: string | null; failed: number }> {
      const e = await find(db, merchantId, id);
      if (!e.enabled || !e.replay_since) return { since: null, failed: 0 };
      return { since: iso(e.replay_since), ...(await missedSince(db, e, e.replay_since)) };
    },

    /** The merchant's endpoints disabled for failing (the dashboard's banner). */
    async disabledForFailing(merchantId: string) {
      const rows = await db.query<{ id: string; url: string; disabled_at: Date | null }>(
        `select id, url, disabled_at from webhook_endpoints
          where merchant_id = $1 and not enabled and disabled_reason = 'failing' order by disabled_at desc`,
        [merchantId],
      );
      return rows.map((r) => ({ id: r.id, url: r.url, disabled_at: iso(r.disabled_at) }));
    },

    /**
     * The temporary endpoint of `svc listen` (kind `cli`): its address is its own stream, so it
     * needs no URL; it counts towards the merchant's endpoints until the CLI deletes it.
     */
    async createCli(merchantId: string, eventTypes: string[] | undefined): Promise<EndpointView> {
      const valid = validate(
        { ...(eventTypes ? { event_types: eventTypes } : {}) },
        false,
        deps.allowPrivate,
      );
      return db.tx(async (q) => {
        await q.query("select id from merchants where id = $1 for update", [merchantId]);
        if ((await endpointsRepo.count(q, merchantId)) >= MAX_ENDPOINTS)
          throw new AppError(
            "limit_reached",
            `A merchant can have ${MAX_ENDPOINTS} webhook endpoints: delete one you no longer use first (svc listen deletes its own when it stops).`,
          );
        const id = newId("we");
        return endpointView(
          await endpointsRepo.insert(q, {
            id,
            merchant_id: merchantId,
            kind: "cli",
            url: `svc-cli://${id}`,
            description: "svc listen",
            event_types: valid.event_types === undefined ? null : valid.event_types,
            headers: {},
            enabled: true,
            payload_version: CURRENT_PAYLOAD_VERSION,
            include_metadata: false,
          }),
        );
      });
    },

    async create(
      merchantId: string,
      input: EndpointInput,
      kind: "endpoint" | "cli" = "endpoint",
    ): Promise<EndpointView> {
      const valid = validate(input, true, deps.allowPrivate);
      return db.tx(async (q) => {
        // One merchant's creates take turns (the merchant row), so the limit and the URL check hold.
        await q.query("select id from merchants where id = $1 for update", [merchantId]);
        if ((await endpointsRepo.count(q, merchantId)) >= MAX_ENDPOINTS)
          throw new AppError(
            "limit_reached",
            `A merchant can have ${MAX_ENDPOINTS} webhook endpoints: delete one you no longer use first.`,
          );
        if (await endpointsRepo.urlTaken(q, merchantId, valid.url!))
          throw new AppError(
            "conflict",
            `An endpoint for ${valid.url} exists already: change that one instead.`,
          );
        const row = await endpointsRepo.insert(q, {
          id: newId("we"),
          merchant_id: merchantId,
          kind,
          url: valid.url!,
          description: valid.description ?? "",
          event_types: valid.event_types === undefined ? null : valid.event_types,
          headers: valid.headers ?? {},
          enabled: valid.enabled ?? true,
          payload_version: (valid.payload_version as PayloadVersion | undefined) ?? CURRENT_PAYLOAD_VERSION,
          include_metadata: valid.include_metadata ?? false,
        });
        return endpointView(row);
      });
    },

    /**
     * Changes the fields given. `enabled: false` ends the deliveries still waiting for it;
     * `enabled: true` on a disabled endpoint answers with `missed`: what a replay
     * (POST …/replay) would send it.
     */
    async update(
      merchantId: string,
      id: string,
      input: EndpointInput,
    ): Promise<EndpointView & { missed?: { since: string; failed: number } } & Moved> {
      // Masked values sent back stand for the values stored (read here, before the change's
      // transaction: the worst a concurrent change can do is keep the value it replaced).
      const stored = input.headers && (await find(db, merchantId, id)).headers;
      const valid = validate(
        stored ? { ...input, headers: unmasked(input.headers!, stored) } : input,
        false,
        deps.allowPrivate,
      );
      // Disabling ends the deliveries waiting for it, which a worker recording a retry may be
      // pushing back at that moment: a deadlock undoes one of the two, and this one runs again.
      const result = await retriedTx(db, async (q) => {
        const current = await find(q, merchantId, id, true);
        if (current.kind === "cli" && valid.url !== undefined) {
          const errors = new FieldErrors();
          errors.add(
            "url",
            "cannot be set: this endpoint belongs to svc listen, which streams its webhooks to the CLI; add an endpoint of your own for a URL",
          );
          errors.throwIfAny();
        }
        if (
          valid.url &&
          valid.url !== current.url &&
          (await endpointsRepo.urlTaken(q, merchantId, valid.url, id))
        )
          throw new AppError(
            "conflict",
            `An endpoint for ${valid.url} exists already: change that one instead.`,
          );
        const { enabled, ...change } = valid;
        let row =
          Object.keys(change).length > 0 ? await endpointsRepo.update(q, merchantId, id, change) : current;
        // What still waits for it goes to the new URL, as its custom headers apply to retries.
        const moved =
          row.url !== current.url ? { moved: await endpointsRepo.moveWaiting(q, id, row.url) } : {};
        if (enabled === false && current.enabled) {
          row = await endpointsRepo.setEnabled(q, merchantId, id, false, "manual");
          await endpointsRepo.failWaiting(q, id, "endpoint disabled");
        }
        if (enabled === true && !current.enabled) {
          row = await endpointsRepo.setEnabled(q, merchantId, id, true, "manual");
          const since = current.failing_since ?? current.disabled_at ?? current.updated_at;
          return {
            ...endpointView(row),
            ...moved,
            missed: { since: iso(since)!, ...(await missedSince(q, row, since)) },
          };
        }
        return { ...endpointView(row), ...moved };
      });
      return result;
    },

    async remove(merchantId: string, id: string): Promise<void> {
      // Ending the waiting deliveries can collide with a worker's push-back, as in `update`.
      await retriedTx(db, async (q) => {
        await find(q, merchantId, id, true);
        await endpointsRepo.remove(q, merchantId, id, "endpoint deleted");
      });
    },

    /**
     * Sends an enabled endpoint what it missed since `since` (default: since it began failing, or
     * was disabled, before it was enabled again): every delivery to it that failed — tried and given
     * up, or held while it was disabled — again, to its URL and headers now (not those it had when
     * the delivery was made), with the current timeout and retry schedule, each with its own
     * sequence number (messagesRepo.replay).
     */
    async replay(merchantId: string, id: string, since?: Date) {
      const result = await db.tx(async (q) => {
        const e = await find(q, merchantId, id, true);
        if (!e.enabled)
          throw new AppError(
            "endpoint_disabled",
            `Endpoint ${id} is disabled: enable it first (PATCH with "enabled": true).`,
          );
        const config = await settingsRepo.config(q, merchantId);
        const from = since ?? e.replay_since ?? e.failing_since ?? e.updated_at;
        const { replayed } = await messagesRepo.replay(
          q,
          merchantId,
          { endpointId: id, status: "failed", completedSince: from },
          config,
        );
        return { since: from.toISOString(), replayed };
      });
      deps.outbox.committed();
      return result;
    },

    /**
     * Deletes the `svc listen` endpoints nobody has read for `abandonedMs` (a day), ending what
     * waits for them as a delete does, and ends what streams to one deleted before its message
     * was written (endpointsRepo.endOrphanStreams). Safe to run in several processes at once.
     */
    async removeAbandonedCli(abandonedMs = CLI_ENDPOINT_ABANDONED_MS): Promise<string[]> {
      const cutoff = new Date(deps.now().getTime() - abandonedMs);
      return retriedTx(db, async (q) => {
        const rows = await endpointsRepo.abandonedCli(q, cutoff);
        for (const e of rows) {
          await endpointsRepo.remove(
            q,
            e.merchant_id,
            e.id,
            "endpoint deleted: svc listen was gone for a day",
          );
        }
        await endpointsRepo.endOrphanStreams(q);
        return rows.map((e) => e.id);
      });
    },

    /**
     * Disables every endpoint failing for longer than the configured period, ends what waits for
     * it, and tells the merchant's other endpoints subscribed to `webhook.endpoint_disabled`. Safe
     * to run in several processes at once (one statement picks each endpoint once).
     */
    async disableFailing(): Promise<EndpointRow[]> {
      const now = deps.now();
      // Everything it does is in the transaction: one undone by a deadlock runs again.
      const disabled = await retriedTx(db, async (q) => {
        const rows = await endpointsRepo.disableFailing(q, new Date(now.getTime() - deps.disableAfterMs));
        for (const e of rows) {
          await endpointsRepo.failWaiting(q, e.id, "endpoint disabled: every delivery failed for too long");
          const routing = await settingsRepo.routing(q, e.merchant_id, "e_commerce");
          if (!routing.secret) continue;
          const secret = routing.secret;
          const payload: EndpointDisabledPayload = {
            event: "webhook.endpoint_disabled",
            endpoint: { id: e.id, url: e.url, description: e.description },
            reason: "failing",
            failing_since: iso(e.failing_since),
            last_error: e.last_error,
            disabled_at: iso(e.disabled_at)!,
            timestamp_utc: timestampUtc(now),
            signature: "",
          };
          payload.signature = await signPayload(payload, secret);
          await publish(q, {
            message: {
              merchantId: e.merchant_id,
              kind: "webhook",
              eventType: "webhook.endpoint_disabled",
              parentSessionId: e.id,
              result: "failing",
            },
            // Its other endpoints: the disabled one would get a held delivery of its own notice.
            destinations: route(
              [],
              routing.endpoints.filter((other) => other.id !== e.id),
              "webhook.endpoint_disabled",
            ),
            body: () => canonicalJson(payload),
            config: routing.config,
          });
        }
        return rows;
      });
      if (disabled.length > 0) {
        deps.onDisabled?.(disabled.length);
        deps.outbox.committed();
      }
      return disabled;
    },
  };
}

export type EndpointsService = ReturnType<typeof createEndpointsService>;
