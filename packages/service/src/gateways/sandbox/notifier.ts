/**
 * Delivers signed notifications to svc. Fire-and-forget from the caller's point of view, with a
 * bounded retry schedule so a service that is briefly down (a restart, a deploy) still hears
 * about a payment or an operation; after the last try the notification is dropped, as real
 * gateways do, and svc falls back to asking `paymentStatus`.
 */
import { randomUUID } from "node:crypto";
import { Agent, request } from "undici";
import { SIGNATURE_HEADER, sandboxSettingSecret, signSandboxPayload } from "./signature.js";
import type { WireNotification } from "./wire.js";

/** Wait before each try: 5 tries spread over ~30 s. */
export const NOTIFY_RETRY_DELAYS_MS: readonly number[] = [0, 1_000, 3_000, 8_000, 18_000];
/** One try gives up after this long so a hung receiver does not hold the schedule. */
export const NOTIFY_TIMEOUT_MS = 5_000;

/** Distributive Omit, so each member of the union keeps its own fields. */
type WithoutEnvelope<T> = T extends unknown
  ? Omit<T, "notification_id" | "created_at" | "is_sandbox">
  : never;
export type NotificationDraft = WithoutEnvelope<WireNotification>;

export interface DeliveryRecord {
  notificationId: string;
  url: string;
  tries: number;
  delivered: boolean;
}

export class Notifier {
  private readonly agent = new Agent({ keepAliveTimeout: 10_000 });
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  /** Latest outcome per notification, for the dashboard listing and tests. */
  readonly deliveries: DeliveryRecord[] = [];

  constructor(
    private readonly masterSecret: string,
    private readonly retryDelaysMs: readonly number[] = NOTIFY_RETRY_DELAYS_MS,
  ) {}

  /**
   * Queues `draft` for `url`, signed with the secret of the gateway setting `pgCode` (derived
   * from the master secret); returns the notification_id it will carry on every try.
   */
  send(url: string, pgCode: string, draft: NotificationDraft): string {
    const notificationId = `ntf_${randomUUID()}`;
    const body = JSON.stringify({
      ...draft,
      notification_id: notificationId,
      created_at: new Date().toISOString(),
      is_sandbox: true,
    });
    const record: DeliveryRecord = { notificationId, url, tries: 0, delivered: false };
    this.deliveries.push(record);
    this.schedule(record, body, sandboxSettingSecret(this.masterSecret, pgCode), 0);
    return notificationId;
  }

  private schedule(record: DeliveryRecord, body: string, secret: string, attempt: number): void {
    const delayMs = this.retryDelaysMs[attempt];
    if (delayMs === undefined || this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(record, body, secret, attempt);
    }, delayMs);
    this.timers.add(timer);
  }

  private async attempt(
    record: DeliveryRecord,
    body: string,
    secret: string,
    attempt: number,
  ): Promise<void> {
    record.tries = attempt + 1;
    try {
      // Signed at each try so the timestamp stays inside the receiver's replay window.
      const response = await request(record.url, {
        method: "POST",
        dispatcher: this.agent,
        body,
        headers: {
          "content-type": "application/json",
          [SIGNATURE_HEADER]: signSandboxPayload(secret, body),
        },
        headersTimeout: NOTIFY_TIMEOUT_MS,
        bodyTimeout: NOTIFY_TIMEOUT_MS,
      });
      await response.body.dump();
      if (response.statusCode >= 200 && response.statusCode < 300) {
        record.delivered = true;
        return;
      }
    } catch {
      // Unreachable or timed out: fall through to the next try.
    }
    this.schedule(record, body, secret, attempt + 1);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await this.agent.destroy();
  }
}
