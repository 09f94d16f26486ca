/**
 * A test webhook (`webhook.test`): a sample operation webhook, shaped and signed exactly like a
 * real one and sent through the same outbox and worker. To every destination — the general URL,
 * both plugin URLs and every enabled endpoint — or, asked for one endpoint, to that endpoint
 * only. It is an explicit request, so the `enabled` and API gates and the endpoints' event types
 * do not apply. `order_no` is "svc-test-webhook" so a receiver can tell it apart; `initiator` is
 * the dashboard user who asked (absent through the API).
 */
import { newId, type TransactionType } from "@svc/protocol";
import type { OperationWebhook } from "@svc/webhooks";
import { canonicalJson } from "@svc/webhooks";
import { signPayload } from "@svc/webhooks/sign";
import type { Db } from "../db/client.js";
import { AppError } from "../http/problem.js";
import { timestampUtc } from "../webhooks/format.js";
import { type OutboxSignal, uniqueUrls } from "../webhooks/outbox.js";
import { type Destination, endpointDestination, publish, SEED_VARIANT } from "../webhooks/publish.js";
import { settingsRepo } from "../webhooks/settings.repo.js";
import { type InitiatorRecord } from "./operations.repo.js";
import { initiatorOf } from "./operation-webhook.js";
import { noEndpoint } from "../http/not-found.js";

export const TEST_ORDER_NO = "svc-test-webhook";

export async function sendTestWebhook(
  db: Db,
  outbox: OutboxSignal,
  merchantId: string,
  options: { initiator?: InitiatorRecord | undefined; now: Date; endpointId?: string | undefined },
): Promise<{ messageId: string | undefined; urls: string[] }> {
  const result = await db.tx(async (q) => {
    const routings = await Promise.all(
      (["e_commerce", "payment_request"] as TransactionType[]).map((t) =>
        settingsRepo.routing(q, merchantId, t),
      ),
    );
    const [first] = routings;
    let destinations: Destination[];
    if (options.endpointId) {
      const endpoint = first!.endpoints.find((e) => e.id === options.endpointId);
      if (!endpoint) throw noEndpoint(options.endpointId);
      if (!endpoint.enabled)
        throw new AppError(
          "endpoint_disabled",
          `Endpoint ${endpoint.id} is disabled: enable it to send it a test webhook.`,
        );
      destinations = [endpointDestination(endpoint)];
    } else {
      const seed = uniqueUrls([
        first!.config.operations_webhook_url,
        ...routings.map((r) => r.plugin.webhook_url),
      ]);
      const byUrl = new Map<string, Destination>(
        seed.map((url) => [url, { url, endpointId: null, variant: SEED_VARIANT }]),
      );
      for (const e of first!.endpoints) if (e.enabled) byUrl.set(e.url, endpointDestination(e));
      destinations = [...byUrl.values()];
    }
    const parent = newId("sess");
    const reference = newId("ref");
    const payload = {
      amount: "1.000",
      ...(options.initiator ? { initiator: initiatorOf(options.initiator) } : {}),
      is_sandbox: true,
      operation: "refund",
      order_no: TEST_ORDER_NO,
      pg_code: "test",
      pg_response: { test: true },
      reference_number: reference,
      result: "success",
      session_id: parent,
      signature: "",
      source: "input",
      success: true,
      timestamp_utc: timestampUtc(options.now),
      txn: {
        amount: "1.000",
        currency_code: "KWD",
        order_no: TEST_ORDER_NO,
        session_id: newId("sess"),
        state: "refunded",
      },
    } as OperationWebhook;
    // Like real webhooks: signed with the newest secret; without one there is nothing to send.
    if (!first!.secret) return { messageId: undefined, urls: [] };
    payload.signature = await signPayload(payload, first!.secret);
    const messageId = await publish(q, {
      message: {
        merchantId,
        kind: "operation",
        eventType: "webhook.test",
        parentSessionId: parent,
        childSessionId: payload.txn.session_id,
        referenceNumber: reference,
        result: "success",
      },
      destinations,
      body: () => canonicalJson(payload),
      config: first!.config,
    });
    return { messageId, urls: destinations.map((d) => d.url) };
  });
  if (result.messageId) outbox.committed();
  return result;
}
