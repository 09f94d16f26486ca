/**
 * The reservation sweep: reservations left by a request that died during its gateway call are
 * asked of the gateway again and settled (finished with their webhook, or deleted on a decline).
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

  /** A reservation as `perform` writes it, whose request then died: old enough to be swept. */
  async function abandonedReservation(amountMinor: number) {
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
    await stack.db.query(
      "update operations set updated_at = now() - interval '1 day' where session_id = $1",
      [child!.session_id],
    );
    return child!;
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
    const parent = await paidParent(stack, m);
    const child = await operationsRepo.insert(stack.db, {
      session_id: newId("sess"),
      parent_session_id: parent.session_id,
      merchant_id: m.id,
      operation: "refund",
      amount_minor: 1_000,
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
    expect(await stack.service.app.services.operations.sweepReservations()).toBe(0);
    expect(await stateOf(child!.session_id)).toBe("refund_pending");
    // Its request finishes it after all; the sweep, had it run, could not finish it twice.
    const finished = await operationsRepo.finish(stack.db, child!, "refunded", {}, new Date());
    expect(finished?.state).toBe("refunded");
    expect(await operationsRepo.finish(stack.db, child!, "refunded", {}, new Date())).toBeUndefined();
  });
});
