/**
 * The operation webhook (the seed's payload, exact): its gate, its destinations and its payload,
 * written to the outbox inside the caller's transaction.
 *
 * The gate: nothing while `enabled` is off; when the parent was created through the API or the
 * operation came through the operations API, only if `notify_api_initiated` is on. Destinations:
 * the general `operations_webhook_url` and the plugin `webhook_url` of the parent's type (if the
 * plugin is enabled), the same URL once. The final result of a queued operation goes where its
 * queued notice went (see {@link emitQueuedResultWebhook}). The `signature` field is computed
 * here, once, with @svc/webhooks; the Standard Webhooks headers are computed per attempt by the
 * worker.
 */
import { formatAmount } from "@svc/protocol";
import type { OperationWebhook } from "@svc/webhooks";
import { canonicalJson } from "@svc/webhooks";
import { signPayload } from "@svc/webhooks/sign";
import type { Queryable } from "../db/client.js";
import type { TransactionRow } from "../payments/transactions.repo.js";
import { isSandboxPayment, timestampUtc } from "../webhooks/format.js";
import { messagesRepo } from "../webhooks/messages.repo.js";
import { uniqueUrls } from "../webhooks/outbox.js";
import {
  type Destination,
  endpointDestination,
  type Publication,
  publications,
  publishMany,
  route,
  SEED_VARIANT,
} from "../webhooks/publish.js";
import { type Routing, settingsRepo } from "../webhooks/settings.repo.js";
import type { InitiatorRecord, OperationRow } from "./operations.repo.js";
import { clipText, storable } from "../db/json.js";

/** The initiator within the seed's limits; optional fields are omitted when empty. */
export function initiatorOf(record: InitiatorRecord): NonNullable<OperationWebhook["initiator"]> {
  // Cut by characters, as the limits on users count them: a cut inside a surrogate pair (an
  // emoji) left a lone surrogate that no JSON signature can take, after the gateway had refunded.
  const optional = (value: string | null | undefined, max: number) =>
    value ? clipText(value, max) : undefined;
  const first = optional(record.first_name, 32);
  const last = optional(record.last_name, 32);
  const phone = optional(record.phone, 128);
  return {
    id: Number(record.id),
    ...(first ? { first_name: first } : {}),
    ...(last ? { last_name: last } : {}),
    username: clipText(record.username, 150),
    email: clipText(record.email, 254),
    ...(phone ? { phone } : {}),
  };
}

/** `result` from a child's state: final states are success, `_queued` queued, `_rejected` rejected. */
export function resultOf(state: string): "success" | "queued" | "rejected" {
  if (state.endsWith("_queued")) return "queued";
  if (state.endsWith("_rejected")) return "rejected";
  return "success";
}

/** The operation webhook payload for `child` of `parent`, signed with the merchant's newest secret. */
export async function operationPayload(
  parent: Pick<TransactionRow, "session_id" | "order_no">,
  child: OperationRow,
  signing: Pick<Routing, "secret" | "live">,
): Promise<OperationWebhook> {
  const amount = formatAmount(child.amount_minor, child.currency_code);
  const result = resultOf(child.state);
  const payload = {
    amount,
    ...(child.initiator ? { initiator: initiatorOf(child.initiator) } : {}),
    is_sandbox: isSandboxPayment(signing.live, child.pg_code),
    operation: child.operation,
    ...(parent.order_no ? { order_no: parent.order_no } : {}),
    pg_code: child.pg_code,
    // A gateway's words, as stored (db/json.ts): a lone surrogate in them cannot be signed.
    pg_response: storable(child.pg_response ?? {}),
    reference_number: child.reference_number,
    result,
    session_id: parent.session_id,
    signature: "",
    source: child.source,
    success: result === "success",
    timestamp_utc: timestampUtc(child.operated_at ?? child.created_at),
    txn: {
      amount,
      currency_code: child.currency_code,
      order_no: parent.order_no ?? child.reference_number,
      session_id: child.session_id,
      state: child.state,
    },
  } as OperationWebhook;
  payload.signature = signing.secret ? await signPayload(payload, signing.secret) : "";
  return payload;
}

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

/** The seed's destinations: the general URL and the plugin URL of the parent's type, each once. */
export function operationDestinations(routing: Routing): string[] {
  return uniqueUrls([
    routing.config.operations_webhook_url,
    routing.plugin.enabled ? routing.plugin.webhook_url : null,
  ]);
}

/**
 * Where an operation's webhook goes: the seed's destinations when its gate is open, and the
 * endpoints subscribed to `operation` (an endpoint is an explicit subscription: the seed's
 * `enabled` and API gates are the general configuration's, not the endpoint's). None without a
 * signing secret.
 */
export function operationWebhookDestinations(
  routing: Routing,
  parent: Pick<TransactionRow, "created_via">,
  child: Pick<OperationRow, "via">,
): Destination[] {
  if (!routing.secret) return [];
  const seed = operationGateOpen(routing, parent, child) ? operationDestinations(routing) : [];
  return route(seed, routing.endpoints, "operation");
}

/** Builds the operation payload (also the operations API's response body) and queues it to its destinations. */
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
  "session_id" | "merchant_id" | "type" | "created_via" | "order_no" | "metadata"
>;

/**
 * {@link emitOperationWebhook} of many operations, their messages written in one statement, in
 * the order given. The result at each position is that operation's. `traceparent`: the trace of
 * the request that did the operation, when the statement is batched across requests (outbox.ts).
 */
export async function emitOperationWebhooks(
  q: Queryable,
  items: OperationWebhookItem[],
): Promise<{ payload: OperationWebhook; messageId: string | undefined }[]> {
  return writeOperationMessages(q, withDestinations(items));
}

interface OperationWebhookItem {
  parent: OperationWebhookParent;
  child: OperationRow;
  routing: Routing;
  traceparent?: string | null | undefined;
}

/**
 * What {@link emitOperationWebhooks} writes, not yet written: for a caller that writes the
 * messages in a statement of its own (`enqueueFragment`), each owned by its operation's position
 * from 1. `firstIds` turns the messages' ids into each operation's first message id.
 */
export async function operationWebhookMessages(items: OperationWebhookItem[]) {
  const { payloads, published } = await operationPublications(withDestinations(items));
  return { payloads, ...(await publications(published)) };
}

const withDestinations = (items: OperationWebhookItem[]) =>
  items.map((item) => ({
    ...item,
    destinations: operationWebhookDestinations(item.routing, item.parent, item.child),
  }));

/**
 * The final result (success or rejected) of a queued operation, inside the caller's transaction:
 * to exactly where its queued notice went (the same URLs; the same endpoints, held if disabled),
 * whatever the gate, destinations and subscriptions say now, so a settings change between the
 * two does not part them (none when no notice was sent). A notice still waiting when its URL
 * changed went on to the new one (moveWaitingDeliveries), and the final result follows it there. `enabled` off now still stops the seed's
 * destinations, as it stops every new message to them; the payload's `signature` and the
 * deliveries' timeout and retry schedule are the current ones.
 */
export async function emitQueuedResultWebhook(
  q: Queryable,
  parent: OperationWebhookParent,
  child: OperationRow,
): Promise<{ payload: OperationWebhook; messageId: string | undefined }> {
  const routing = await settingsRepo.routing(q, parent.merchant_id, parent.type);
  const went = routing.secret
    ? await messagesRepo.destinations(q, parent.merchant_id, parent.session_id, child.session_id, "queued")
    : [];
  const endpoints = new Map(routing.endpoints.map((e) => [e.id, e]));
  const destinations: Destination[] = [];
  for (const { url, endpoint_id } of went) {
    if (endpoint_id === null) {
      if (routing.config.enabled) destinations.push({ url, endpointId: null, variant: SEED_VARIANT });
      continue;
    }
    // An endpoint deleted since gets nothing; a disabled one gets it held, as every new message.
    const endpoint = endpoints.get(endpoint_id);
    if (endpoint) destinations.push(endpointDestination(endpoint));
  }
  return (await writeOperationMessages(q, [{ parent, child, routing, destinations }]))[0]!;
}

/** Builds each operation's payload and publishes it to its destinations (nothing without one). */
async function writeOperationMessages(
  q: Queryable,
  items: (OperationWebhookItem & { destinations: Destination[] })[],
): Promise<{ payload: OperationWebhook; messageId: string | undefined }[]> {
  const { payloads, published } = await operationPublications(items);
  const messageIds = await publishMany(q, published);
  return payloads.map((payload, i) => ({ payload, messageId: messageIds[i] }));
}

/** Each operation's payload and its publication to its destinations (nothing without one). */
async function operationPublications(
  items: (OperationWebhookItem & { destinations: Destination[] })[],
): Promise<{ payloads: OperationWebhook[]; published: Publication[] }> {
  const payloads = await Promise.all(
    items.map(({ parent, child, routing }) => operationPayload(parent, child, routing)),
  );
  const published = items.map(({ parent, child, routing, destinations, traceparent }, i): Publication => ({
    message: {
      merchantId: parent.merchant_id,
      kind: "operation" as const,
      eventType: "operation" as const,
      parentSessionId: parent.session_id,
      childSessionId: child.session_id,
      referenceNumber: child.reference_number,
      result: payloads[i]!.result,
      traceparent,
    },
    destinations,
    // The body is the payload's RFC 8785 form: what the `signature` field covers, byte for
    // byte (receivers can check it without re-canonicalising). The seed's payload is exact; an
    // endpoint that opts in also gets the parent's metadata (when it has some), signed with it.
    body: async ({ metadata }) => {
      const extra = metadata && Object.keys(parent.metadata ?? {}).length > 0;
      if (!extra) return canonicalJson(payloads[i]);
      const withMetadata = { ...payloads[i]!, metadata: parent.metadata, signature: "" };
      withMetadata.signature = await signPayload(withMetadata, routing.secret ?? "");
      return canonicalJson(withMetadata);
    },
    config: routing.config,
  }));
  return { payloads, published };
}
