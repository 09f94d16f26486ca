/**
 * "Send test webhook": a sample operation webhook, shaped and signed exactly like a real one and
 * sent through the same outbox and worker, to every configured destination (the general URL and
 * both plugin URLs). It is an explicit request, so the `enabled` and API gates do not apply.
 * `order_no` is "svc-test-webhook" so a receiver can tell it apart.
 */
import { newId, type TransactionType } from "@svc/protocol";
import type { OperationWebhook } from "@svc/webhooks";
import { canonicalJson } from "@svc/webhooks";
import { signPayload } from "@svc/webhooks/sign";
import type { Db } from "../db/client.js";
import type { AuthUser } from "../http/auth.js";
import { enqueue, type OutboxSignal, uniqueUrls } from "../webhooks/outbox.js";
import { initiatorOf } from "../operations/operation-webhook.js";
import { timestampUtc } from "../webhooks/format.js";
import { settingsRepo } from "../webhooks/settings.repo.js";

export const TEST_ORDER_NO = "svc-test-webhook";

export async function sendTestWebhook(
  db: Db,
  outbox: OutboxSignal,
  merchantId: string,
  user: AuthUser,
  now: Date,
): Promise<{ messageId: string | undefined; urls: string[] }> {
  const result = await db.tx(async (q) => {
    const routings = await Promise.all(
      (["e_commerce", "payment_request"] as TransactionType[]).map((t) =>
        settingsRepo.routing(q, merchantId, t),
      ),
    );
    const [first] = routings;
    const urls = uniqueUrls([
      first!.config.operations_webhook_url,
      ...routings.map((r) => r.plugin.webhook_url),
    ]);
    const parent = newId("sess");
    const reference = newId("ref");
    const payload = {
      amount: "1.000",
      initiator: initiatorOf(user),
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
      timestamp_utc: timestampUtc(now),
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
    const messageId = await enqueue(
      q,
      {
        merchantId,
        kind: "operation",
        eventType: "webhook.test",
        parentSessionId: parent,
        childSessionId: payload.txn.session_id,
        referenceNumber: reference,
        result: "success",
        body: canonicalJson(payload),
      },
      urls,
      first!.config,
    );
    return { messageId, urls };
  });
  if (result.messageId) outbox.committed();
  return result;
}
