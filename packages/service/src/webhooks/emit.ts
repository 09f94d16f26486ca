/**
 * Decides whether a webhook is sent and where, builds its payload and writes it to the outbox,
 * inside the caller's transaction.
 *
 * The gate (operation webhook): nothing while `enabled` is off; when the parent was created
 * through the API or the operation came through the operations API, only if
 * `notify_api_initiated` is on. Destinations: the general `operations_webhook_url` and the
 * plugin `webhook_url` of the parent's type (if the plugin is enabled), the same URL once.
 * The final result of a queued operation goes where its queued notice went (see
 * {@link emitQueuedResultWebhook}).
 */
import type { OperationWebhook } from "@svc/webhooks";
import { canonicalJson } from "@svc/webhooks";
import type { TransactionRow } from "../payments/transactions.repo.js";
import type { Queryable } from "../db/client.js";
import type { OperationRow } from "../operations/operations.repo.js";
import { paymentsRepo } from "../payments/payments.repo.js";
import { messagesRepo } from "./messages.repo.js";
import { enqueue, enqueueMany, uniqueUrls } from "./outbox.js";
import { operationPayload, paymentPayload } from "./payload.js";
import { type Routing, settingsRepo } from "./settings.repo.js";

export function operationGateOpen(
  routing: Routing,
  parent: Pick<TransactionRow, "created_via">,
  child: Pick<OperationRow, "via">,
): boolean {
  // Every merchant gets a secret at creation; without one nothing could be signed, so nothing is sent.
  if (!routing.config.enabled || !routing.secret) return false;
  const apiInitiated = parent.created_via === "api" || child.via === "api";
  return !apiInitiated || routing.config.notify_api_initiated;
}

export function operationDestinations(routing: Routing): string[] {
  return uniqueUrls([
    routing.config.operations_webhook_url,
    routing.plugin.enabled ? routing.plugin.webhook_url : null,
  ]);
}

/** Builds the operation payload (also the operations API's response body) and queues it if the gate is open. */
export async function emitOperationWebhook(
  q: Queryable,
  parent: OperationWebhookParent,
  child: OperationRow,
  /** Already read with the parent (the operations service); read here otherwise. */
  known?: Routing,
): Promise<{ payload: OperationWebhook; messageId: string | undefined }> {
  const routing = known ?? (await settingsRepo.routing(q, parent.merchant_id, parent.type));
  return (await emitOperationWebhooks(q, [{ parent, child, routing }]))[0]!;
}

type OperationWebhookParent = Pick<
  TransactionRow,
  "session_id" | "merchant_id" | "type" | "created_via" | "order_no"
>;

/**
 * {@link emitOperationWebhook} of many operations, their messages written in one statement, in
 * the order given. The result at each position is that operation's.
 */
export async function emitOperationWebhooks(
  q: Queryable,
  items: { parent: OperationWebhookParent; child: OperationRow; routing: Routing }[],
): Promise<{ payload: OperationWebhook; messageId: string | undefined }[]> {
  return writeOperationMessages(
    q,
    items.map((item) => ({
      ...item,
      urls: operationGateOpen(item.routing, item.parent, item.child)
        ? operationDestinations(item.routing)
        : [],
    })),
  );
}

/**
 * The final result (success or rejected) of a queued operation, inside the caller's transaction:
 * to exactly the URLs its queued notice went to, whatever the gate and destinations say now, so
 * a settings change between the two moves neither (none when no notice was sent: the gate was
 * closed then). `enabled` off now still stops it, as it stops every new message; the payload's
 * `signature` and the deliveries' timeout and retry schedule are the current ones.
 */
export async function emitQueuedResultWebhook(
  q: Queryable,
  parent: OperationWebhookParent,
  child: OperationRow,
): Promise<{ payload: OperationWebhook; messageId: string | undefined }> {
  const routing = await settingsRepo.routing(q, parent.merchant_id, parent.type);
  const urls =
    routing.config.enabled && routing.secret
      ? await messagesRepo.destinations(q, parent.merchant_id, parent.session_id, child.session_id, "queued")
      : [];
  return (await writeOperationMessages(q, [{ parent, child, routing, urls }]))[0]!;
}

/** Builds each operation's payload and writes its message to `urls` (nothing without a URL). */
async function writeOperationMessages(
  q: Queryable,
  items: { parent: OperationWebhookParent; child: OperationRow; routing: Routing; urls: string[] }[],
): Promise<{ payload: OperationWebhook; messageId: string | undefined }[]> {
  const payloads = await Promise.all(
    items.map(({ parent, child, routing }) => operationPayload(parent, child, routing.secret ?? "")),
  );
  const messageIds = await enqueueMany(
    q,
    items.map(({ parent, child, routing, urls }, i) => {
      return {
        message: {
          merchantId: parent.merchant_id,
          kind: "operation" as const,
          parentSessionId: parent.session_id,
          childSessionId: child.session_id,
          referenceNumber: child.reference_number,
          result: payloads[i]!.result,
          // The body is the payload's RFC 8785 form: what the `signature` field covers, byte for
          // byte (receivers can check it without re-canonicalising). Nothing is stored without a URL.
          body: urls.length > 0 ? canonicalJson(payloads[i]) : "",
        },
        urls,
        config: routing.config,
      };
    }),
  );
  return payloads.map((payload, i) => ({ payload, messageId: messageIds[i] }));
}

/**
 * The payment webhook, when a payment becomes final: to the transaction's own `webhook_url`,
 * else its plugin's `webhook_url`. A URL given on the transaction is an explicit request, so the
 * API gate does not apply to it; `enabled` off still stops everything.
 */
export async function emitPaymentWebhook(q: Queryable, parent: TransactionRow, at: Date) {
  const routing = await settingsRepo.routing(q, parent.merchant_id, parent.type);
  if (!routing.config.enabled || !routing.secret) return undefined;
  const url = parent.webhook_url ?? (routing.plugin.enabled ? routing.plugin.webhook_url : null);
  if (!url) return undefined;
  const children = await paymentsRepo.children(q, parent.session_id);
  const payload = await paymentPayload(parent, children, at, routing.secret);
  return enqueue(
    q,
    {
      merchantId: parent.merchant_id,
      kind: "payment",
      parentSessionId: parent.session_id,
      result: parent.state,
      body: canonicalJson(payload),
    },
    [url],
    routing.config,
  );
}
