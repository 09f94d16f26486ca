/**
 * Refund, capture and void on a parent, for the three triggers that start one: the operations
 * API (private key or a dashboard user's Basic credentials) and the dashboard (a user).
 *
 * No database transaction is held across the gateway call: (1) check the rules against totals
 * derived from the parent's children and insert a reservation (`<operation>_pending`, which
 * counts against the totals) — optimistically, committed only if the parent's `ops_version` is
 * unchanged since the read, else under the parent's lock — and, in the same statement, make it
 * the recovery point of the request's idempotency key; (2) call the gateway under the
 * operation's `reference_number`, its idempotency key there; (3) on success or queued, finish
 * the child and write its webhook to the outbox in one transaction; on a decline or a gateway
 * that was never reached, delete the reservation, so nothing is stored and nothing is sent.
 *
 * When the answer of step 2 is lost (a timeout, a 5xx, a crash) the reservation stays: its
 * outcome is unknown. It is recovered — the gateway asked by reference, then step 3 as the first
 * request would have done it — by whichever comes first: a retry with the same idempotency key
 * ({@link perform} with a claim that has a recovery point) or {@link sweepReservations}. Step 3
 * is conditional on the reservation's state, so the second finds it settled and does nothing.
 * The state machine is in docs/operations.md. The unlocked statements of steps 1 and 3 are
 * batched across concurrent requests (db/batch.ts).
 */
import { formatAmount, newId, type Operation } from "@svc/protocol";
import type { OperationWebhook } from "@svc/webhooks";
import { batcher } from "../db/batch.js";
import type { Db, Queryable } from "../db/client.js";
import type { GatewayAdapter, GatewayOperationRequest, GatewayOperationResult } from "../gateways/adapter.js";
import { amountProblemFor, operationsFor } from "../gateways/capabilities.js";
import type { GatewayConnection } from "../gateways/connection.js";
import { discrepanciesRepo } from "../gateways/discrepancies.repo.js";
import { GatewayError } from "../gateways/gateway-error.js";
import type { GatewayRegistry } from "../gateways/registry.js";
import { type IdempotencyClaim, idempotencyRepo } from "../http/idempotency.js";
import { AppError } from "../http/problem.js";
import { deriveTotals } from "../payments/totals.js";
import {
  operationWebhookMessages,
  operationPayload,
  operationWebhookDestinations,
} from "./operation-webhook.js";
import type { OutboxSignal } from "../webhooks/outbox.js";
import type { Routing } from "../webhooks/settings.repo.js";
import { activeTraceparent } from "../telemetry/trace-context.js";
import {
  type ChildFinish,
  type ChildInsert,
  finishedChild,
  type InitiatorRecord,
  type NewOperation,
  type ParentKey,
  type OperationParent,
  type OperationRow,
  operationsRepo,
} from "./operations.repo.js";
import { capturesInFlight, finalState, operationAmount } from "./rules.js";
import { noTransaction } from "../http/not-found.js";
import { retriedTx } from "../db/conflict.js";
import { finishQueued } from "./gateway-notifications.js";

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
  /** The request's idempotency key: its recovery point is finished instead of a new operation. */
  idempotency?: IdempotencyClaim | undefined;
  /** Why (the dashboard's optional reason), stored with the operation, never sent in its webhook. */
  reason?: string | undefined;
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
  /** A queued operation is asked of its gateway by {@link sweepQueued} at most this often. */
  queuedCheckSeconds: number;
}

/** A reservation with what is needed to finish it. */
interface Reserved {
  parent: OperationParent;
  child: OperationRow;
  setting: GatewayConnection;
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
  // With the gate open, the children and their messages commit together: one statement per batch
  // (operationsRepo.finishManyReporting). The messages are built first, as if every child is
  // finished; those of a child settled meanwhile (by the request or the sweep, the second one)
  // are not written, and it gets undefined. Each message keeps the trace of its own request (a
  // batch runs in the first one's context).
  const finishAndEmit = batcher(
    async (
      items: (ChildFinish & Pick<Reserved, "parent" | "routing"> & { traceparent: string | null })[],
    ) => {
      const { payloads, enqueues, firstIds } = await operationWebhookMessages(
        items.map((item) => ({
          parent: item.parent,
          child: finishedChild(item),
          routing: item.routing,
          traceparent: item.traceparent,
        })),
      );
      const { finished, messageIds } = await operationsRepo.finishManyReporting(db, items, enqueues);
      const firsts = firstIds(messageIds);
      return finished.map((done, i) => (done ? { payload: payloads[i]!, messageId: firsts[i] } : undefined));
    },
    { maxInFlight: 2 },
  );

  /**
   * Checks the rules against the parent's totals and inserts the reservation. Unlocked, it
   * returns undefined when a concurrent operation changed the parent since it was read.
   */
  async function tryReserve(q: Queryable, input: PerformInput, lock: boolean) {
    const key = { merchantId: input.merchantId, sessionId: input.sessionId, orderNo: input.orderNo };
    const found = lock ? await operationsRepo.parentForOperation(q, key, true) : await readParent(key);
    if (!found) throw noTransaction(input);
    const { parent, gateway, routing } = found;
    // What the gateway cannot do is refused first, whatever the payment's state.
    if (gateway && !operationsFor(gateway.kind).includes(input.operation))
      throw new AppError(
        "invalid_state_for_operation",
        `The gateway ${gateway.pg_code} (${gateway.kind}) does not support ${input.operation}.`,
      );
    const sums = found.childSums ?? (await operationsRepo.childSums(q, parent.session_id));
    const totals = deriveTotals(parent, sums);
    const amountMinor = operationAmount(
      {
        state: parent.state,
        currency_code: parent.currency_code,
        captures_in_flight: capturesInFlight(sums),
        captures_once: parent.captures_once,
      },
      totals,
      input,
    );
    if (!gateway || !parent.pg_code || !parent.pg_reference)
      throw new AppError("invalid_state_for_operation", "This payment has no gateway payment to operate on.");
    // An amount the gateway cannot take (Stripe's step in three-decimal currencies) is refused
    // here, with what to send instead, not by the gateway after a reservation.
    const amountProblem = amountProblemFor(gateway.kind, amountMinor, parent.currency_code, "operation");
    if (amountProblem)
      throw new AppError(
        "validation_failed",
        `${gateway.pg_code} cannot take this amount: ${amountProblem}.`,
        {
          errors: { amount: [amountProblem] },
        },
      );
    const setting = gateway;
    // Built before the reservation: a setting whose credentials cannot be opened writes nothing.
    const adapter = deps.gateways.adapterFor(setting);
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
      reason: input.reason?.trim().slice(0, 200) || null,
    };
    const idempotency = input.idempotency;
    const child = lock
      ? await operationsRepo.insert(q, op, null, idempotency)
      : await insertChild({ op, expectedVersion: parent.ops_version, idempotency });
    return child && { parent, child, setting, adapter, routing };
  }

  /**
   * Reserves the operation, or returns the recovery point its idempotency key got meanwhile
   * (a retry that took the key over reserved first): that one is finished instead.
   */
  async function reserve(input: PerformInput): Promise<Reserved | { recoveryId: string }> {
    for (let i = 0; i < OPTIMISTIC_TRIES; i++) {
      const reserved = await tryReserve(db, input, false);
      if (reserved) return reserved;
      // Nearly always the parent's version moved (another operation on it). The key's recovery
      // point is not asked about here: if a retry linked one meanwhile, the locked try below
      // cannot link the key either and asks then (the same answer, one statement fewer per
      // lost race).
    }
    const reserved = await db.tx((q) => tryReserve(q, input, true));
    if (reserved) return reserved;
    if (input.idempotency) {
      const recoveryId = await idempotencyRepo.recoveryOf(db, input.idempotency);
      if (recoveryId) return { recoveryId };
      throw new AppError(
        "idempotency_key_in_use",
        "Another request with this Idempotency-Key has just finished; retry to get its answer.",
      );
    }
    // Locked, the insert cannot lose a race (its reference and session ids are fresh).
    throw new Error("the locked reservation inserted nothing");
  }

  /**
   * Deletes a reservation whose operation did not happen. Its idempotency key, if any, gets the
   * answer in the same transaction (a decline: `answer`), or is freed (the gateway was never
   * reached), so a retry never finds a key pointing at nothing.
   */
  async function release(sessionId: string, answer?: AppError): Promise<void> {
    await db.tx(async (q) => {
      await operationsRepo.deleteReservation(q, sessionId);
      if (answer)
        await idempotencyRepo.completeByRecovery(
          q,
          sessionId,
          answer.status,
          "application/problem+json; charset=utf-8",
          JSON.stringify(answer.toProblem()),
        );
      else await idempotencyRepo.freeByRecovery(q, sessionId);
    });
  }

  /**
   * The gateway's answer to a reservation whose first answer was lost: what it answered then,
   * or, if it never received the operation, its answer now to the same operation under the same
   * reference (which the gateway treats as its idempotency key).
   */
  async function recoverAnswer(reserved: Reserved): Promise<GatewayOperationResult> {
    // A gateway that can be neither asked nor safely sent the operation again (KNET): it stays
    // unknown until an operator settles it by hand; never sent twice.
    if (!reserved.adapter.recoversOperations)
      throw new GatewayError("gateway_unavailable", "its answer was lost", { outcomeUnknown: true });
    try {
      const known = await reserved.adapter.operationStatus(operationRequest(reserved));
      return known ?? (await askGateway(reserved));
    } catch (error) {
      // Whatever failed now, the first call may have been done: still unknown, never released.
      if (!(error instanceof GatewayError)) throw error;
      throw new GatewayError("gateway_unavailable", error.message, { cause: error, outcomeUnknown: true });
    }
  }

  /**
   * Steps 2 and 3 for a reservation: `call` gets the gateway's answer (asking it, or recovering
   * a lost one), then the reservation is settled or released. An unknown outcome keeps it.
   */
  async function complete(
    reserved: Reserved,
    call: (reserved: Reserved) => Promise<GatewayOperationResult>,
  ): Promise<PerformResult> {
    const { child } = reserved;
    let answer: GatewayOperationResult;
    try {
      answer = await call(reserved);
    } catch (error) {
      if (error instanceof GatewayError && error.outcomeUnknown && !reserved.adapter.recoversOperations) {
        await recordUnknownOutcome(reserved, error);
        throw manualOutcomeUnknown(reserved);
      }
      if (error instanceof GatewayError && error.outcomeUnknown) {
        throw new AppError(
          "gateway_outcome_unknown",
          `The gateway did not answer the ${child.operation} (${error.message}); it may have been done. ` +
            `Retry with the same Idempotency-Key to get its outcome: it will never be done twice. ` +
            `Without a key, svc settles it within ${deps.reservationTimeoutSeconds * 2} s and sends its webhook.`,
          { extra: { reference_number: child.reference_number } },
        );
      }
      await release(child.session_id);
      // Refused by the gateway (a setting to fix, a request it does not take) is not unreachable.
      if (error instanceof GatewayError && error.code === "gateway_request_rejected")
        throw new AppError("gateway_request_rejected", `${error.message}. Nothing was done.`);
      const reason = error instanceof GatewayError ? error.message : "the gateway call failed";
      throw new AppError("gateway_unavailable", `${reason}. Nothing was done; try again later.`);
    }
    if (answer.status === "declined") {
      const declined = new AppError(
        "operation_declined",
        `The gateway declined the ${child.operation}; nothing was stored. See pg_response.`,
        { extra: { pg_response: answer.pgResponse } },
      );
      await release(child.session_id, declined);
      throw declined;
    }
    return { status: answer.status === "queued" ? 202 : 200, payload: await settle(reserved, answer) };
  }

  /** The reservation behind a recovery point, with what is needed to finish it. */
  async function reservedOf(merchantId: string, childSessionId: string): Promise<Reserved> {
    const child = await operationsRepo.child(db, merchantId, childSessionId);
    const found = child && (await readParent({ merchantId, sessionId: child.parent_session_id }));
    // A recovery point is written with its reservation and cleared (or answered) with its
    // deletion, in one transaction each: it always names a child, whose parent always exists.
    if (!child || !found?.gateway)
      throw new Error(`recovery point ${childSessionId} names no operation of merchant ${merchantId}`);
    return {
      parent: found.parent,
      child,
      setting: found.gateway,
      adapter: deps.gateways.adapterFor(found.gateway),
      routing: found.routing,
    };
  }

  /** Finishes the operation a request before this one started, as that request would have. */
  async function recover(merchantId: string, childSessionId: string): Promise<PerformResult> {
    const reserved = await reservedOf(merchantId, childSessionId);
    const { parent, child, routing } = reserved;
    if (child.state.endsWith("_pending")) return complete(reserved, recoverAnswer);
    // Settled already (by that request before it died, or by the sweep): its answer, from what is stored.
    return {
      status: child.state.endsWith("_queued") ? 202 : 200,
      payload: await operationPayload(parent, child, routing),
    };
  }

  /** The reserved operation as the gateway is asked to do it (or asked about it). */
  function operationRequest({ parent, child, setting }: Reserved): GatewayOperationRequest {
    return {
      pgCode: setting.pg_code,
      kind: setting.kind,
      operation: child.operation,
      pgReference: parent.pg_reference!,
      referenceNumber: child.reference_number,
      amount: formatWire(child),
      amountMinor: child.amount_minor,
      currency: child.currency_code,
      notificationUrl: `${deps.publicUrl}/v1/gateways/${encodeURIComponent(setting.pg_code)}/notifications`,
    };
  }

  /** Asks the gateway to do the reserved operation (again: the reference makes it idempotent). */
  function askGateway(reserved: Reserved): Promise<GatewayOperationResult> {
    return reserved.adapter.operate(operationRequest(reserved));
  }

  /**
   * The answer to an operation whose outcome is unknown at a gateway that cannot be asked about
   * it: the same on every retry with the key, until an operator settles it by hand.
   */
  function manualOutcomeUnknown({ child, setting }: Reserved): AppError {
    return new AppError(
      "gateway_outcome_unknown",
      `The gateway (${setting.kind}) did not answer the ${child.operation}, so it may have been done. ` +
        `It offers no way to ask about it and no safe way to send it again, so svc will not retry it: ` +
        `check ${child.operation} ${child.reference_number} in the gateway's own portal, then settle it on the ` +
        `Discrepancies page (done or not done). Until then it counts as in progress, and retrying with the ` +
        `same Idempotency-Key gives this answer.`,
      { extra: { reference_number: child.reference_number } },
    );
  }

  /** Puts an operation whose outcome is unknown on the Discrepancies page (once). */
  async function recordUnknownOutcome(
    { parent, child, setting }: Reserved,
    error: GatewayError,
  ): Promise<void> {
    await discrepanciesRepo.record(db, {
      kind: "unknown_outcome",
      merchant_id: parent.merchant_id,
      parent_session_id: parent.session_id,
      child_session_id: child.session_id,
      pg_code: setting.pg_code,
      gateway_operation_id: child.reference_number,
      notification_id: null,
      operation: child.operation,
      amount: formatWire(child),
      currency_code: child.currency_code,
      rule: "gateway_outcome_unknown",
      detail:
        `svc sent this ${child.operation} to ${setting.pg_code} and got no answer (${error.message}). ` +
        `The gateway cannot be asked about it, so it is neither retried nor assumed: check it in the gateway's portal ` +
        `(look for the amount on the payment's track id) and settle it here as done or not done.`,
      pg_response: error.pgResponse ?? {},
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
    const settled = finishedChild({ child, state, pgResponse: answer.pgResponse, operatedAt });
    // Routing was read before the gateway call (a settings change in that instant applies from
    // the next operation). With nowhere to send it, finishing is one statement; otherwise the
    // child and its messages commit together (the outbox).
    if (operationWebhookDestinations(routing, parent, child).length === 0) {
      await finishChild({ child, state, pgResponse: answer.pgResponse, operatedAt });
      return operationPayload(parent, settled, routing);
    }
    const emitted = await finishAndEmit({
      child,
      state,
      pgResponse: answer.pgResponse,
      operatedAt,
      parent,
      routing,
      traceparent: activeTraceparent(),
    });
    if (emitted?.messageId) deps.outbox.committed();
    return emitted?.payload ?? operationPayload(parent, settled, routing);
  }

  return {
    /**
     * Performs an operation and returns the operation webhook payload of its outcome.
     * @throws AppError 402 operation_declined (nothing stored), 409/422 rule violations, 502 gateway_unavailable
     */
    async perform(input: PerformInput): Promise<PerformResult> {
      const recoveryId = input.idempotency?.recoveryId;
      if (recoveryId) return recover(input.merchantId, recoveryId);
      const reserved = await reserve(input);
      if ("recoveryId" in reserved) return recover(input.merchantId, reserved.recoveryId);
      return complete(reserved, askGateway);
    },

    /**
     * Settles by hand an operation whose outcome was unknown at a gateway that cannot be asked
     * (the Discrepancies page): `done` finishes it as the gateway's success, with its webhook;
     * `not_done` removes the reservation and gives its idempotency key a decline. Nothing
     * happens to an operation no longer in flight (settled before), so it is safe to repeat.
     */
    async settleByHand(
      merchantId: string,
      childSessionId: string,
      outcome: "done" | "not_done",
      by: string,
      note: string,
    ): Promise<void> {
      const reserved = await reservedOf(merchantId, childSessionId);
      const { child } = reserved;
      if (!child.state.endsWith("_pending")) return;
      const record = { settled_by_hand: outcome, settled_by: by, note };
      if (outcome === "done") {
        await settle(reserved, { status: "success", pgResponse: { ...child.pg_response, ...record } });
        return;
      }
      await release(
        child.session_id,
        new AppError(
          "operation_declined",
          `The ${child.operation} ${child.reference_number} was not done at the gateway (checked in its portal and settled by ${by}); nothing was stored.`,
          { extra: { pg_response: record } },
        ),
      );
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
        if (!found?.gateway) continue; // its gateway setting is gone: left for an operator
        let adapter: GatewayAdapter;
        try {
          adapter = deps.gateways.adapterFor(found.gateway);
        } catch {
          continue; // its credentials cannot be opened now (no key): the next sweep tries again
        }
        const reserved = {
          parent: found.parent,
          child,
          setting: found.gateway,
          adapter,
          routing: found.routing,
        };
        // Unknown at a gateway that cannot be asked (KNET): on the Discrepancies page (once, if
        // the request that sent it died before putting it there), never asked, never resent.
        if (!adapter.recoversOperations) {
          const lost = new GatewayError(
            "gateway_unavailable",
            "the request that sent it ended without its answer",
          );
          await recordUnknownOutcome(reserved, lost);
          continue;
        }
        try {
          await complete(reserved, recoverAnswer);
        } catch (error) {
          // Still unknown (the gateway unreachable now): the next sweep asks again.
          if (error instanceof AppError && error.code === "gateway_outcome_unknown") continue;
          // A decline released it (its key, if any, holds the answer): settled all the same.
          if (!(error instanceof AppError)) throw error;
        }
        settledCount += 1;
      }
      return settledCount;
    },

    /**
     * Finishes queued operations whose final result the gateway never notified (a wrong signing
     * secret, a disabled endpoint, a lost event): each not asked about for `queuedCheckSeconds`
     * is asked of its gateway, and a final answer finishes it as the notification would have,
     * with its webhook. One still queued, or a gateway that cannot be asked or reached now, is
     * left for a later sweep. Returns how many were finished.
     */
    async sweepQueued(limit = 100): Promise<number> {
      const stale = await operationsRepo.claimStaleQueued(db, deps.queuedCheckSeconds, limit);
      let finishedCount = 0;
      for (const child of stale) {
        const found = await readParent({ merchantId: child.merchant_id, sessionId: child.parent_session_id });
        if (!found?.gateway) continue;
        let adapter: GatewayAdapter;
        try {
          adapter = deps.gateways.adapterFor(found.gateway);
        } catch {
          continue;
        }
        if (!adapter.recoversOperations) continue;
        let answer: GatewayOperationResult | undefined;
        try {
          answer = await adapter.operationStatus(
            operationRequest({
              parent: found.parent,
              child,
              setting: found.gateway,
              adapter,
              routing: found.routing,
            }),
          );
        } catch (error) {
          if (error instanceof GatewayError) continue;
          throw error;
        }
        if (!answer || answer.status === "queued") continue;
        const status = answer.status === "success" ? "success" : "rejected";
        const finished = await retriedTx(db, async (q) => {
          const locked = await operationsRepo.lockByReference(q, child.pg_code, child.reference_number);
          // Finished meanwhile (by the gateway's notification): nothing more to do.
          if (!locked || locked.state !== `${locked.operation}_queued`) return false;
          await finishQueued(q, locked, status, answer.pgResponse, deps.now());
          return true;
        });
        if (finished) {
          finishedCount += 1;
          deps.outbox.committed();
        }
      }
      return finishedCount;
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
