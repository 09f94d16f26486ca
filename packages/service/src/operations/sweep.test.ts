/**
 * The reservation sweep: reservations left by a request that died during its gateway call are
 * asked of the gateway again and settled (finished with their webhook, or deleted on a decline);
 * and the finish a request and the sweep race on, written with its messages in one statement.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
import { newId } from "@svc/protocol";
import { operationsRepo } from "./operations.repo.js";

describe.each(STORES)("reservation sweep on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startStack(store);
    m = await createMerchant(stack);
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: `${receiver.url}/ops`,
      notify_api_initiated: true,
    });
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });

  /** A refund reservation as `perform` writes it before calling the gateway. */
  async function reservation(amountMinor: number) {
    const parent = await paidParent(stack, m);
    const child = await operationsRepo.insert(stack.db, {
      session_id: newId("sess"),
      parent_session_id: parent.session_id,
      merchant_id: m.id,
      operation: "refund",
      amount_minor: amountMinor,
      currency_code: "KWD",
      state: "refund_pending",
      reference_number: newId("ref"),
      source: "input",
      via: "api",
      initiator: null,
      pg_code: m.pg.sandbox,
      pg_response: {},
      gateway_operation_id: null,
    });
    return child!;
  }

  /** A reservation whose request then died: old enough to be swept. */
  async function abandonedReservation(amountMinor: number) {
    const child = await reservation(amountMinor);
    await stack.db.query(
      "update operations set updated_at = now() - interval '1 day' where session_id = $1",
      [child.session_id],
    );
    return child;
  }

  const stateOf = async (sessionId: string) =>
    (
      await stack.db.query<{ state: string }>("select state from operations where session_id = $1", [
        sessionId,
      ])
    )[0]?.state;

  it("finishes a reservation the gateway does, and sends its webhook", async () => {
    receiver.requests.length = 0;
    const child = await abandonedReservation(2_500);
    expect(await stack.service.app.services.operations.sweepReservations()).toBe(1);
    expect(await stateOf(child.session_id)).toBe("refunded");
    const [request] = await receiver.waitFor(1, { path: "/ops" });
    expect(JSON.parse(request!.body)).toMatchObject({
      amount: "2.500",
      operation: "refund",
      result: "success",
      reference_number: child.reference_number,
      source: "input",
      txn: { session_id: child.session_id, state: "refunded" },
    });
    // Settled once: nothing is left for a second sweep.
    expect(await stack.service.app.services.operations.sweepReservations()).toBe(0);
  });

  it("deletes a reservation the gateway declines, and sends nothing", async () => {
    receiver.requests.length = 0;
    // Minor units ending in 13: the sandbox's decline test value.
    const child = await abandonedReservation(1_013);
    expect(await stack.service.app.services.operations.sweepReservations()).toBe(1);
    expect(await stateOf(child.session_id)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests).toHaveLength(0);
  });

  it("leaves a fresh reservation alone (its request may still be waiting on the gateway)", async () => {
    const child = await reservation(1_000);
    expect(await stack.service.app.services.operations.sweepReservations()).toBe(0);
    expect(await stateOf(child.session_id)).toBe("refund_pending");
    // Its request finishes it after all; the sweep, had it run, could not finish it twice.
    const finished = await operationsRepo.finish(stack.db, child, "refunded", {}, new Date());
    expect(finished?.state).toBe("refunded");
    expect(await operationsRepo.finish(stack.db, child, "refunded", {}, new Date())).toBeUndefined();
  });

  // The request's finish and its webhook are one statement (operations.service.ts, finishAndEmit).
  describe("finishing children with the messages that report them", () => {
    const message = (owner: number, child: { session_id: string }, status: string = "pending") => ({
      owner,
      message: {
        merchantId: m.id,
        kind: "operation" as const,
        eventType: "operation" as const,
        parentSessionId: `sess_fin_${owner}`,
        childSessionId: child.session_id,
        body: JSON.stringify({ owner }),
      },
      urls: [`${receiver.url}/fin`],
      statuses: [status as "pending"],
      config: { timeout_seconds: 5, retry_schedule_seconds: [1] },
    });
    const finishing = (child: Awaited<ReturnType<typeof reservation>>) => ({
      child,
      state: "refunded",
      pgResponse: { code: "00" },
      operatedAt: new Date(),
    });
    const messagesOf = async (childSessionId: string) =>
      stack.db.query<{ id: string }>("select id from webhook_messages where child_session_id = $1", [
        childSessionId,
      ]);

    it("writes the messages of the children it finished, not of one settled meanwhile", async () => {
      const [a, b] = [await reservation(1_000), await reservation(1_000)];
      // b was settled meanwhile (the sweep, or its own request first).
      await operationsRepo.finish(stack.db, b, "refunded", {}, new Date());
      const { finished, messageIds } = await operationsRepo.finishManyReporting(
        stack.db,
        [finishing(a), finishing(b)],
        [message(1, a), message(2, b), message(1, a)],
      );
      expect(finished).toEqual([true, false]);
      expect(messageIds[0]).toMatch(/^msg_/);
      expect(messageIds[1]).toBeUndefined();
      expect(messageIds[2]).toMatch(/^msg_/);
      expect(await stateOf(a.session_id)).toBe("refunded");
      expect((await messagesOf(a.session_id)).map((r) => r.id).sort()).toEqual(
        [messageIds[0], messageIds[2]].sort(),
      );
      expect(await messagesOf(b.session_id)).toEqual([]);
    });

    it("writes nothing when a message cannot be written: the finish is undone with it", async () => {
      const [a, b] = [await reservation(1_000), await reservation(1_000)];
      await expect(
        operationsRepo.finishManyReporting(
          stack.db,
          [finishing(a), finishing(b)],
          // A status the table refuses: the statement fails as a whole.
          [message(1, a), message(2, b, "bogus")],
        ),
      ).rejects.toThrow(/webhook_deliveries_status_check/);
      expect(await stateOf(a.session_id)).toBe("refund_pending");
      expect(await stateOf(b.session_id)).toBe("refund_pending");
      expect(await messagesOf(a.session_id)).toEqual([]);
    });
  });
});
