/**
 * Refund, capture and void on a parent, for the three triggers that start one: the operations
 * API (private key or a dashboard user's Basic credentials) and the dashboard (a user).
 *
 * No database transaction is held across the gateway call: (1) check the rules against totals
 * derived from the parent's children and insert a reservation (`<operation>_pending`, which
 * counts against the totals) — optimistically, committed only if the parent's `ops_version` is
 * unchanged since the read, else under the parent's lock; (2) call the gateway; (3) on success or
 * queued, finish the child and write its webhook to the outbox in one transaction; on a decline
 * or an unreachable gateway, delete the reservation, so nothing is stored and nothing is sent.
 * Reservations whose request died in step 2 are settled by {@link sweepReservations}.
 * The unlocked statements of steps 1 and 3 are batched across concurrent requests (db/batch.ts).
 */
import { formatAmount, type GatewayKind, newId, type Operation } from "@svc/protocol";
import type { OperationWebhook } from "@svc/webhooks";
import { batcher } from "../db/batch.js";
import type { Db, Queryable } from "../db/client.js";
import type { GatewayAdapter, GatewayOperationResult } from "../gateways/adapter.js";
import { GatewayError } from "../gateways/gateway-error.js";
import type { GatewayRegistry } from "../gateways/registry.js";
import { AppError } from "../http/problem.js";
import { deriveTotals } from "../payments/totals.js";
import { emitOperationWebhooks, operationGateOpen } from "../webhooks/emit.js";
import { operationPayload } from "../webhooks/payload.js";
import type { OutboxSignal } from "../webhooks/outbox.js";
import type { Routing } from "../webhooks/settings.repo.js";
import {
  type ChildFinish,
  type ChildInsert,
  type InitiatorRecord,
  type NewOperation,
  type ParentKey,
  type OperationParent,
  type OperationRow,
  operationsRepo,
} from "./operations.repo.js";
import { finalState, operationAmount } from "./rules.js";

export interface PerformInput {
  merchantId: string;
  /** api: the operations API; dashboard: the service dashboard (a later issue's forms call this). */
  via: "api" | "dashboard";
  /** The dashboard user behind the operation; absent for a private key. */
  initiator?: InitiatorRecord | undefined;
  operation: Operation;
  sessionId?: string | undefined;
  orderNo?: string | undefined;
  /** Wire amount; omitted = all that remains (void: always the whole remaining authorization). */
  amount?: string | undefined;
  currencyCode?: string | undefined;
}

export interface PerformResult {
  /** 200 when the gateway did it, 202 when it queued it. */
  status: 200 | 202;
  payload: OperationWebhook;
}

export interface OperationsDeps {
  gateways: GatewayRegistry;
  now: () => Date;
  publicUrl: string;
  outbox: OutboxSignal;
  /** A reservation older than this is settled by {@link sweepReservations}. */
  reservationTimeoutSeconds: number;
}

/** A reservation with what is needed to finish it. */
interface Reserved {
  parent: OperationParent;
  child: OperationRow;
  setting: { pg_code: string; kind: GatewayKind };
  adapter: GatewayAdapter;
  routing: Routing;
}

/**
 * Optimistic reservations tried before taking the parent's lock. Without contention the first
 * succeeds: two round trips (read, conditional insert) instead of a five-statement transaction.
 * When several operations race on one parent, the losers fall back to the locked path, which
 * always makes progress.
 */
const OPTIMISTIC_TRIES = 2;

export function createOperationsService(db: Db, deps: OperationsDeps) {
  // The unlocked statements of the hot path, batched across concurrent requests (db/batch.ts).
  // One insert batch at a time: two batches of one process never wait on each other's parents.
  const readParent = batcher((keys: ParentKey[]) => operationsRepo.parentsForOperation(db, keys), {
    maxInFlight: 2,
  });
  const insertChild = batcher((items: ChildInsert[]) => operationsRepo.insertMany(db, items), {
    maxInFlight: 1,
  });
  const finishChild = batcher((items: ChildFinish[]) => operationsRepo.finishMany(db, items), {
    maxInFlight: 2,
  });
  // With the gate open, the children and their messages commit together: one transaction per batch.
  const finishAndEmit = batcher(
    (items: (ChildFinish & Pick<Reserved, "parent" | "routing">)[]) =>
      db.tx(async (q) => {
        const finished = await operationsRepo.finishMany(q, items);
        const settled = items.flatMap((item, i) => {
          const child = finished[i];
          return child ? [{ parent: item.parent, child, routing: item.routing }] : [];
        });
        const emitted = await emitOperationWebhooks(q, settled);
        // Undefined for a child settled meanwhile (by the request or the sweep, the second one).
        let next = 0;
        return finished.map((child) => (child ? emitted[next++] : undefined));
      }),
    { maxInFlight: 2 },
  );

  /**
   * Checks the rules against the parent's totals and inserts the reservation. Unlocked, it
   * returns undefined when a concurrent operation changed the parent since it was read.
   */
  async function tryReserve(q: Queryable, input: PerformInput, lock: boolean) {
    const key = { merchantId: input.merchantId, sessionId: input.sessionId, orderNo: input.orderNo };
    const found = lock ? await operationsRepo.parentForOperation(q, key, true) : await readParent(key);
    if (!found)
      throw new AppError(
        "not_found",
        input.sessionId
          ? `No transaction with session_id ${input.sessionId}.`
          : `No transaction with order_no ${input.orderNo}.`,
      );
    const { parent, gatewayKind, routing } = found;
    const sums = found.childSums ?? (await operationsRepo.childSums(q, parent.session_id));
    const totals = deriveTotals(parent, sums);
    const capturesInFlight = sums
      .filter(
        (c) => c.operation === "capture" && (c.state === "capture_queued" || c.state === "capture_pending"),
      )
      .reduce((n, c) => n + c.count, 0);
    const amountMinor = operationAmount(
      { state: parent.state, currency_code: parent.currency_code, captures_in_flight: capturesInFlight },
      totals,
      input,
    );
    if (!gatewayKind || !parent.pg_code || !parent.pg_reference)
      throw new AppError("invalid_state_for_operation", "This payment has no gateway payment to operate on.");
    const setting = { pg_code: parent.pg_code, kind: gatewayKind };
    const adapter = deps.gateways.adapterFor(setting.kind);
    if (!adapter.operations.includes(input.operation))
      throw new AppError(
        "invalid_state_for_operation",
        `The gateway ${setting.pg_code} (${setting.kind}) does not support ${input.operation}.`,
      );
    const op: NewOperation = {
      session_id: newId("sess"),
      parent_session_id: parent.session_id,
      merchant_id: parent.merchant_id,
      operation: input.operation,
      amount_minor: amountMinor,
      currency_code: parent.currency_code,
      state: `${input.operation}_pending`,
      reference_number: newId("ref"),
      source: "input",
      via: input.via,
      initiator: input.initiator ? initiatorRecord(input.initiator) : null,
      pg_code: setting.pg_code,
      pg_response: {},
      gateway_operation_id: null,
    };
    const child = lock
      ? await operationsRepo.insert(q, op)
      : await insertChild({ op, expectedVersion: parent.ops_version });
    return child && { parent, child, setting, adapter, routing };
  }

  async function reserve(input: PerformInput) {
    for (let i = 0; i < OPTIMISTIC_TRIES; i++) {
      const reserved = await tryReserve(db, input, false);
      if (reserved) return reserved;
    }
    const reserved = await db.tx((q) => tryReserve(q, input, true));
    // Locked, the insert cannot lose a race (its reference and session ids are fresh).
    if (!reserved) throw new Error("the locked reservation inserted nothing");
    return reserved;
  }

  async function release(sessionId: string): Promise<void> {
    await db.tx((q) => operationsRepo.deleteReservation(q, sessionId));
  }

  /** Asks the gateway to do the reserved operation (again: the reference makes it idempotent). */
  function askGateway({ parent, child, setting, adapter }: Reserved): Promise<GatewayOperationResult> {
    return adapter.operate({
      pgCode: setting.pg_code,
      kind: setting.kind,
      operation: child.operation,
      pgReference: parent.pg_reference!,
      referenceNumber: child.reference_number,
      amount: formatWire(child),
      amountMinor: child.amount_minor,
      currency: child.currency_code,
      notificationUrl: `${deps.publicUrl}/v1/gateways/${encodeURIComponent(setting.pg_code)}/notifications`,
    });
  }

  /**
   * Finishes a reservation the gateway did or queued, with its webhook when the gate is open,
   * and returns the operation's payload. If the reservation was settled meanwhile (by the
   * request or the sweep, whichever came second), nothing is written or sent again.
   */
  async function settle(
    { parent, child, routing }: Reserved,
    answer: Exclude<GatewayOperationResult, { status: "declined" }>,
  ): Promise<OperationWebhook> {
    const state = answer.status === "queued" ? `${child.operation}_queued` : finalState(child.operation);
    const operatedAt = deps.now();
    const settled = { ...child, state, pg_response: answer.pgResponse, operated_at: operatedAt };
    // Routing was read before the gateway call (a settings change in that instant applies from
    // the next operation). With the gate closed, finishing is one statement; with it open, the
    // child and its messages commit together (the outbox).
    if (!operationGateOpen(routing, parent, child)) {
      await finishChild({ child, state, pgResponse: answer.pgResponse, operatedAt });
      return operationPayload(parent, settled, routing.secret ?? "");
    }
    const emitted = await finishAndEmit({
      child,
      state,
      pgResponse: answer.pgResponse,
      operatedAt,
      parent,
      routing,
    });
    if (emitted?.messageId) deps.outbox.committed();
    return emitted?.payload ?? operationPayload(parent, settled, routing.secret ?? "");
  }

  return {
    /**
     * Performs an operation and returns the operation webhook payload of its outcome.
     * @throws AppError 402 operation_declined (nothing stored), 409/422 rule violations, 502 gateway_unavailable
     */
    async perform(input: PerformInput): Promise<PerformResult> {
      const reserved = await reserve(input);
      let answer: GatewayOperationResult;
      try {
        answer = await askGateway(reserved);
      } catch (error) {
        await release(reserved.child.session_id);
        const reason = error instanceof GatewayError ? error.message : "the gateway call failed";
        throw new AppError("gateway_unavailable", `${reason}. Nothing was done; try again later.`);
      }
      if (answer.status === "declined") {
        await release(reserved.child.session_id);
        throw new AppError(
          "operation_declined",
          `The gateway declined the ${input.operation}; nothing was stored. See pg_response.`,
          { extra: { pg_response: answer.pgResponse } },
        );
      }
      return { status: answer.status === "queued" ? 202 : 200, payload: await settle(reserved, answer) };
    },

    /**
     * Settles reservations whose request died during the gateway call (a crash, a kill): each
     * older than the reservation timeout is asked of the gateway again under its own reference
     * (the gateway answers a repeated reference with the same operation), then finished with its
     * webhook, or deleted on a decline. An unreachable gateway leaves it for a later sweep.
     * Returns how many were settled.
     */
    async sweepReservations(limit = 100): Promise<number> {
      const stale = await operationsRepo.claimStaleReservations(db, deps.reservationTimeoutSeconds, limit);
      let settledCount = 0;
      for (const child of stale) {
        const found = await readParent({ merchantId: child.merchant_id, sessionId: child.parent_session_id });
        if (!found?.gatewayKind) continue; // its gateway setting is gone: left for an operator
        const setting = { pg_code: child.pg_code, kind: found.gatewayKind };
        const reserved = {
          parent: found.parent,
          child,
          setting,
          adapter: deps.gateways.adapterFor(setting.kind),
          routing: found.routing,
        };
        let answer: GatewayOperationResult;
        try {
          answer = await askGateway(reserved);
        } catch {
          continue; // unreachable now: the next sweep asks again
        }
        if (answer.status === "declined") await release(child.session_id);
        else await settle(reserved, answer);
        settledCount += 1;
      }
      return settledCount;
    },
  };
}

/** Only the initiator's identity is stored (never permissions or other user fields). */
function initiatorRecord(user: InitiatorRecord): InitiatorRecord {
  return {
    id: Number(user.id),
    username: user.username,
    email: user.email,
    first_name: user.first_name ?? null,
    last_name: user.last_name ?? null,
    phone: user.phone ?? null,
  };
}

function formatWire(child: Pick<OperationRow, "amount_minor" | "currency_code">): string {
  return formatAmount(child.amount_minor, child.currency_code);
}

export type OperationsService = ReturnType<typeof createOperationsService>;
