/**
 * Webhook settings: the general configuration, the payment webhook plugin per transaction type,
 * and the signing secret's rotation. URLs are checked for syntax (http/https) and, unless private
 * addresses are allowed, for a host that is plainly private (an IP literal in a blocked range, or
 * `localhost`); a name's addresses are judged at connect time by the SSRF guard, where the DNS
 * answers are known.
 */
import { newId, type TransactionType } from "@svc/protocol";
import type { Db } from "../db/client.js";
import { retriedTx } from "../db/conflict.js";
import { FieldErrors } from "../http/problem.js";
import { type Moved, moveSeedWaiting } from "./messages.repo.js";
import { MAX_RETRIES, MAX_RETRY_DELAY_SECONDS } from "./retry-policy.js";
import { blockedLiteral } from "./ssrf.js";
import { newWebhookSecret } from "./secrets.js";
import { type PluginConfig, SECRET_OVERLAP_MS, settingsRepo, type WebhookConfig } from "./settings.repo.js";

export type ConfigInput = Partial<WebhookConfig>;

/**
 * Checks a destination URL; returns a message for the merchant, or undefined when it is fine.
 * `allowPrivate` is SVC_WEBHOOK_ALLOW_PRIVATE: without it a loopback, private or link-local host
 * written in the URL is refused here, when the merchant can fix it, instead of failing every
 * delivery later.
 */
export function urlProblem(value: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute URL such as https://shop.example.com/webhooks/svc";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must start with https:// or http://";
  if (url.username || url.password)
    return "must not carry credentials; authenticate the webhook by its signature";
  if (url.hash) return "must not have a #fragment";
  if (!allowPrivate) {
    // An IP literal as the guard judges it at connect time; `localhost` names always resolve to loopback.
    const blocked =
      blockedLiteral(url.hostname) ??
      // A trailing dot (`localhost.`, the fully qualified spelling) names the same host.
      (/^localhost\.?$|\.localhost\.?$/i.test(url.hostname)
        ? { host: url.hostname, reason: "loopback" }
        : undefined);
    if (blocked)
      return `points to ${blocked.host}, a ${blocked.reason} address: svc sends webhooks to public addresses only. To receive them on your machine, run "svc listen", which forwards them to localhost`;
  }
  return undefined;
}

export function createSettingsService(db: Db, deps: { now: () => Date; allowPrivate: boolean }) {
  return {
    config: (merchantId: string) => settingsRepo.config(db, merchantId),

    /** Replaces the fields given; the others keep their current value. */
    async updateConfig(merchantId: string, input: ConfigInput): Promise<WebhookConfig & Moved> {
      const errors = new FieldErrors();
      const url = input.operations_webhook_url;
      if (url) {
        const problem = urlProblem(url, deps.allowPrivate);
        if (problem) errors.add("operations_webhook_url", problem);
      }
      const schedule = input.retry_schedule_seconds;
      if (schedule) {
        if (schedule.length > MAX_RETRIES)
          errors.add("retry_schedule_seconds", `at most ${MAX_RETRIES} retries`);
        if (schedule.some((s) => !Number.isInteger(s) || s < 1 || s > MAX_RETRY_DELAY_SECONDS))
          errors.add(
            "retry_schedule_seconds",
            `each delay must be a whole number of seconds from 1 to ${MAX_RETRY_DELAY_SECONDS}`,
          );
      }
      errors.throwIfAny();
      return retriedTx(db, async (q) => {
        const current = await settingsRepo.config(q, merchantId);
        const next: WebhookConfig = {
          enabled: input.enabled ?? current.enabled,
          operations_webhook_url:
            input.operations_webhook_url === undefined
              ? current.operations_webhook_url
              : input.operations_webhook_url || null,
          notify_api_initiated: input.notify_api_initiated ?? current.notify_api_initiated,
          timeout_seconds: input.timeout_seconds ?? current.timeout_seconds,
          retry_schedule_seconds: schedule ?? current.retry_schedule_seconds,
        };
        await settingsRepo.saveConfig(q, merchantId, next);
        // What still waits for the old URL goes to the new one, as an endpoint's does.
        const from = current.operations_webhook_url;
        const to = next.operations_webhook_url;
        return from && to && from !== to
          ? { ...next, moved: await moveSeedWaiting(q, merchantId, "general", from, to) }
          : next;
      });
    },

    plugin: (merchantId: string, type: TransactionType) => settingsRepo.plugin(db, merchantId, type),

    async updatePlugin(
      merchantId: string,
      type: TransactionType,
      input: { webhook_url?: string | null; enabled?: boolean },
    ): Promise<PluginConfig & Moved> {
      if (input.webhook_url) {
        const problem = urlProblem(input.webhook_url, deps.allowPrivate);
        if (problem) {
          const errors = new FieldErrors();
          errors.add("webhook_url", problem);
          errors.throwIfAny();
        }
      }
      return retriedTx(db, async (q) => {
        const current = await settingsRepo.plugin(q, merchantId, type);
        const next: PluginConfig = {
          type,
          webhook_url: input.webhook_url === undefined ? current.webhook_url : input.webhook_url || null,
          enabled: input.enabled ?? current.enabled,
        };
        await settingsRepo.savePlugin(q, merchantId, next);
        const from = current.webhook_url;
        const to = next.webhook_url;
        return from && to && from !== to
          ? { ...next, moved: await moveSeedWaiting(q, merchantId, type, from, to) }
          : next;
      });
    },

    /** A new signing secret; the previous one keeps signing as a second signature for 24 h. */
    async rotateSecret(merchantId: string) {
      const secret = newWebhookSecret();
      const previousExpiresAt = new Date(deps.now().getTime() + SECRET_OVERLAP_MS);
      await db.tx((q) => settingsRepo.rotateSecret(q, merchantId, newId("key"), secret, previousExpiresAt));
      return { secret, previous_secret_expires_at: previousExpiresAt.toISOString() };
    },
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;
