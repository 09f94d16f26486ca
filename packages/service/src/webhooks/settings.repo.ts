/** Webhook settings storage: the general configuration, plugin configurations, signing secrets. */
import type { TransactionType } from "@svc/protocol";
import type { Queryable } from "../db/client.js";
import type { EndpointRoute } from "./publish.js";
import { DEFAULT_RETRY_SCHEDULE_SECONDS } from "./retry-policy.js";
import { secretsInForce } from "./secrets.js";

/** The default schedule is the retry policy's (retry-policy.ts). */
export { DEFAULT_RETRY_SCHEDULE_SECONDS };
export const DEFAULT_TIMEOUT_SECONDS = 15;
/** The longest per-attempt timeout a destination may have. */
export const MAX_TIMEOUT_SECONDS = 30;
/** A rotated-out secret keeps signing (second signature) this long. */
export const SECRET_OVERLAP_MS = 24 * 3600 * 1000;

export interface WebhookConfig {
  enabled: boolean;
  operations_webhook_url: string | null;
  notify_api_initiated: boolean;
  timeout_seconds: number;
  retry_schedule_seconds: number[];
}

export interface PluginConfig {
  type: TransactionType;
  webhook_url: string | null;
  enabled: boolean;
}

export const DEFAULT_CONFIG: WebhookConfig = {
  enabled: true,
  operations_webhook_url: null,
  notify_api_initiated: false,
  timeout_seconds: DEFAULT_TIMEOUT_SECONDS,
  retry_schedule_seconds: [...DEFAULT_RETRY_SCHEDULE_SECONDS],
};

/** Everything needed to route one webhook, read in one query (it runs inside every operation). */
export interface Routing {
  config: WebhookConfig;
  plugin: { webhook_url: string | null; enabled: boolean };
  /** The newest signing secret: it computes the payload's `signature` field (null: none, send nothing). */
  secret: string | null;
  /** The merchant's endpoints (docs/webhooks.md "Endpoints"), oldest first, disabled ones too (their deliveries are held). */
  endpoints: EndpointRoute[];
  /** The `pg_code`s of the merchant's gateway settings that move real money (see {@link liveSetting}). */
  live: string[];
}

/**
 * Whether the gateway setting `g` moves real money: a real gateway's production host (no
 * `api_base_url`: not KNET's test host, not a stand-in) and, for Stripe, a live key (its hint
 * keeps the key's mode, `sk_live_…`). Everything else (the sandboxes, test hosts, test keys) is
 * a sandbox, and its webhooks say `is_sandbox: true`.
 */
export const liveSetting = (g: string) =>
  `(${g}.api_base_url is null and (${g}.kind = 'knet' or ${g}.kind = 'stripe' and left(${g}.credentials_hint->>'secret_key', 8) in ('sk_live_', 'rk_live_')))`;

/**
 * Columns of a Routing, for a query that joins `webhook_configs c` and `webhook_plugins p` on a
 * row `t` with `merchant_id` and `type` (the operations service reads them with the parent's lock).
 */
export const ROUTING_COLUMNS = `(${secretsInForce("t.merchant_id")})[1] as rt_secret,
         c.enabled as rt_enabled, c.operations_webhook_url as rt_url, c.notify_api_initiated as rt_notify,
         c.timeout_seconds as rt_timeout, c.retry_schedule_seconds as rt_schedule,
         p.webhook_url as rt_plugin_url, p.enabled as rt_plugin_enabled,
         (select coalesce(json_agg(json_build_object('id', e.id, 'url', e.url, 'event_types', e.event_types,
                    'include_metadata', e.include_metadata, 'payload_version', e.payload_version,
                    'enabled', e.enabled, 'kind', e.kind)
                  order by e.created_at, e.id), '[]'::json)
            from webhook_endpoints e where e.merchant_id = t.merchant_id) as rt_endpoints,
         (select coalesce(array_agg(l.pg_code), '{}') from gateway_settings l
           where l.merchant_id = t.merchant_id and ${liveSetting("l")}) as rt_live`;

export interface RoutingColumns {
  rt_secret: string | null;
  rt_enabled: boolean | null;
  rt_url: string | null;
  rt_notify: boolean | null;
  rt_timeout: number | null;
  rt_schedule: number[] | null;
  rt_plugin_url: string | null;
  rt_plugin_enabled: boolean | null;
  rt_endpoints: EndpointRoute[];
  rt_live: string[];
}

/** A Routing from ROUTING_COLUMNS; absent rows mean the defaults. */
export function routingFrom(row: RoutingColumns): Routing {
  const config: WebhookConfig =
    row.rt_enabled === null
      ? { ...DEFAULT_CONFIG, retry_schedule_seconds: [...DEFAULT_CONFIG.retry_schedule_seconds] }
      : {
          enabled: row.rt_enabled,
          operations_webhook_url: row.rt_url,
          notify_api_initiated: row.rt_notify ?? false,
          timeout_seconds: row.rt_timeout ?? DEFAULT_TIMEOUT_SECONDS,
          retry_schedule_seconds: row.rt_schedule ?? [...DEFAULT_RETRY_SCHEDULE_SECONDS],
        };
  return {
    config,
    plugin: { webhook_url: row.rt_plugin_url, enabled: row.rt_plugin_enabled ?? true },
    secret: row.rt_secret,
    endpoints: row.rt_endpoints,
    live: row.rt_live,
  };
}

export const settingsRepo = {
  async routing(q: Queryable, merchantId: string, type: TransactionType): Promise<Routing> {
    const rows = await q.query<RoutingColumns>(
      `select ${ROUTING_COLUMNS}
         from (select $1::text as merchant_id, $2::text as type) as t
         left join webhook_configs c on c.merchant_id = t.merchant_id
         left join webhook_plugins p on p.merchant_id = t.merchant_id and p.type = t.type`,
      [merchantId, type],
    );
    return routingFrom(rows[0]!);
  },
  async config(q: Queryable, merchantId: string): Promise<WebhookConfig> {
    const rows = await q.query<WebhookConfig>(
      `select enabled, operations_webhook_url, notify_api_initiated, timeout_seconds, retry_schedule_seconds
         from webhook_configs where merchant_id = $1`,
      [merchantId],
    );
    return (
      rows[0] ?? { ...DEFAULT_CONFIG, retry_schedule_seconds: [...DEFAULT_CONFIG.retry_schedule_seconds] }
    );
  },
  async saveConfig(q: Queryable, merchantId: string, c: WebhookConfig): Promise<void> {
    await q.query(
      `insert into webhook_configs (merchant_id, enabled, operations_webhook_url, notify_api_initiated, timeout_seconds, retry_schedule_seconds)
       values ($1, $2, $3, $4, $5, $6)
       on conflict (merchant_id) do update set enabled = $2, operations_webhook_url = $3, notify_api_initiated = $4,
         timeout_seconds = $5, retry_schedule_seconds = $6, updated_at = now()`,
      [
        merchantId,
        c.enabled,
        c.operations_webhook_url,
        c.notify_api_initiated,
        c.timeout_seconds,
        c.retry_schedule_seconds,
      ],
    );
  },
  async plugin(q: Queryable, merchantId: string, type: TransactionType): Promise<PluginConfig> {
    const rows = await q.query<PluginConfig>(
      "select type, webhook_url, enabled from webhook_plugins where merchant_id = $1 and type = $2",
      [merchantId, type],
    );
    return rows[0] ?? { type, webhook_url: null, enabled: true };
  },
  async savePlugin(q: Queryable, merchantId: string, p: PluginConfig): Promise<void> {
    await q.query(
      `insert into webhook_plugins (merchant_id, type, webhook_url, enabled) values ($1, $2, $3, $4)
       on conflict (merchant_id, type) do update set webhook_url = $3, enabled = $4, updated_at = now()`,
      [merchantId, p.type, p.webhook_url, p.enabled],
    );
  },
  /** The merchant's signing secrets still in force, newest first (the dashboard reveals them). */
  async secrets(q: Queryable, merchantId: string): Promise<string[]> {
    const [row] = await q.query<{ secrets: string[] }>(`select ${secretsInForce("$1")} as secrets`, [
      merchantId,
    ]);
    return row!.secrets;
  },
  async rotateSecret(q: Queryable, merchantId: string, id: string, secret: string, overlapEndsAt: Date) {
    await q.query(
      "update webhook_secrets set expires_at = $2 where merchant_id = $1 and expires_at is null",
      [merchantId, overlapEndsAt],
    );
    await q.query("insert into webhook_secrets (id, merchant_id, secret) values ($1, $2, $3)", [
      id,
      merchantId,
      secret,
    ]);
  },
};
