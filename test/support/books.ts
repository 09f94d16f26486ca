/**
 * After a run of operations, for fault tests: svc's books against the sandbox gateway's own
 * ledger, and the operation webhooks a receiver got against the children svc committed. Each
 * check returns its disagreements as readable lines (empty: they agree), so a test can assert
 * all of them and print what it found.
 */
import type { Queryable } from "../../packages/service/src/db/client.js";
import { api, apiKey, type ServiceUrl, type TestMerchant } from "./merchant.js";
import { sandboxPayments } from "./payments.js";
import type { ReceivedRequest } from "./receiver.js";

/** A child transaction (an operation) as svc stored it. */
export interface ChildRow {
  session_id: string;
  parent_session_id: string;
  state: string;
  amount_minor: number;
  reference_number: string;
}

export function childrenOf(db: Queryable, merchantId: string): Promise<ChildRow[]> {
  return db.query<ChildRow>(
    `select session_id, parent_session_id, state, amount_minor, reference_number from operations
      where merchant_id = $1 order by created_at`,
    [merchantId],
  );
}

/**
 * Per parent: svc's `refunded_amount` (Payment Status API) equals the gateway's `refunded`, and
 * the gateway's successful operations are exactly the children's reference numbers, each once.
 */
export async function booksAgainstLedger(
  service: ServiceUrl,
  m: TestMerchant,
  gatewayUrl: string,
  parents: string[],
  children: ChildRow[],
): Promise<string[]> {
  const problems: string[] = [];
  const ledger = new Map((await sandboxPayments({ gatewayUrl })).map((p) => [p.session_id, p]));
  for (const parent of parents) {
    const status = await api(service, "GET", `/v1/payments/${parent}`, { auth: apiKey(m.privateKey) });
    const payment = ledger.get(parent);
    if (status.status !== 200 || !payment) {
      problems.push(
        `${parent}: svc answered ${status.status}, the gateway has ${payment ? "it" : "nothing"}`,
      );
      continue;
    }
    if (status.json.refunded_amount !== payment.refunded)
      problems.push(
        `${parent}: svc refunded ${status.json.refunded_amount}, the gateway ${payment.refunded}`,
      );
    const gatewayRefs = payment.operations
      .filter((op) => op.status === "success")
      .map((op) => op.reference_number ?? `(no reference: ${op.gateway_operation_id})`)
      .sort();
    const ours = children
      .filter((c) => c.parent_session_id === parent)
      .map((c) => c.reference_number)
      .sort();
    if (gatewayRefs.join() !== ours.join())
      problems.push(
        `${parent}: the gateway's operations [${gatewayRefs.join(", ")}] are not the children [${ours.join(", ")}]`,
      );
  }
  return problems;
}

export interface WebhookAudit {
  /** Children no webhook arrived for. */
  missing: string[];
  /** Webhooks naming an operation that svc did not commit (or with another reference number). */
  phantoms: string[];
  /** Children whose webhooks came under more than one webhook-id (two messages for one operation). */
  split: string[];
  /** Webhook-ids whose repeats carried another body. */
  changed: string[];
  received: number;
  distinct: number;
}

/**
 * The operation webhooks `received` against `children`: each child's arrived, under one
 * webhook-id; at-least-once repeats (the same webhook-id and body again) are allowed and counted.
 */
export function auditOperationWebhooks(received: ReceivedRequest[], children: ChildRow[]): WebhookAudit {
  const childById = new Map(children.map((c) => [c.session_id, c]));
  const idsByChild = new Map<string, Set<string>>();
  const bodyById = new Map<string, string>();
  const audit: WebhookAudit = { missing: [], phantoms: [], split: [], changed: [], received: 0, distinct: 0 };
  for (const r of received) {
    audit.received += 1;
    const id = String(r.headers["webhook-id"]);
    const childId = String(r.json?.txn?.session_id);
    const child = childById.get(childId);
    if (!child || child.reference_number !== r.json?.reference_number) {
      audit.phantoms.push(`${id}: ${childId} ${String(r.json?.reference_number)}`);
      continue;
    }
    const first = bodyById.get(id);
    if (first === undefined) bodyById.set(id, r.body);
    else if (first !== r.body) audit.changed.push(id);
    idsByChild.set(childId, (idsByChild.get(childId) ?? new Set()).add(id));
  }
  audit.distinct = bodyById.size;
  for (const c of children) {
    const ids = idsByChild.get(c.session_id);
    if (!ids) audit.missing.push(`${c.session_id} (${c.reference_number}, ${c.state})`);
    else if (ids.size > 1) audit.split.push(`${c.session_id}: ${[...ids].join(", ")}`);
  }
  return audit;
}
