/**
 * An operation reads the merchant's webhook routing (its endpoints with their URLs and whether
 * they are enabled) before it calls the gateway, and writes its message after the gateway has
 * answered. An endpoint deleted, disabled or moved to another URL in between must not get the
 * message where the producer last saw it: the worker checks each delivery's endpoint when it
 * claims it, ends one whose endpoint is gone or disabled as a delivery to a disabled endpoint is
 * ended, and sends one whose endpoint moved to where it is now.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { type ApiDelivery, configureWebhooks } from "../../../../test/support/webhooks.js";

/** How long the sandbox takes to answer an operation: the time the endpoints change in. */
const GATEWAY_ANSWER_MS = 4_000;

type Delivery = ApiDelivery;

describe.each(STORES)("an endpoint changed while an operation was at the gateway, on %s", (store) => {
  let stack: Stack;
  let receiver: Receiver;
  let m: TestMerchant;
  beforeAll(async () => {
    [stack, receiver] = await Promise.all([
      startStack(store, { operationAnswerDelayMs: GATEWAY_ANSWER_MS }),
      startReceiver(),
    ]);
    m = await createMerchant(stack);
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: `${receiver.url}/general`,
      notify_api_initiated: true,
    });
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });
  const call = (method: string, path: string, body?: unknown) =>
    api(stack, method, path, { auth: apiKey(m.privateKey), ...(body === undefined ? {} : { body }) });

  it("its message goes nowhere the endpoint no longer is: deleted and disabled ones get nothing, a moved one gets it at its new URL", async () => {
    const endpoint = async (name: string) =>
      (
        await call("POST", "/v1/webhooks/endpoints", {
          url: `${receiver.url}/${name}`,
          event_types: ["operation"],
        })
      ).json.id as string;
    const [gone, off, moved] = [await endpoint("gone"), await endpoint("off"), await endpoint("old")];
    const parent = await paidParent(stack, m);
    const refund = call("POST", "/v1/operations", {
      operation: "refund",
      session_id: parent.session_id,
      amount: "1.000",
    });
    // The refund has read the routing and reserved its amount: it is waiting for the gateway now.
    await expect
      .poll(
        async () =>
          (
            await stack.db.query<{ n: number }>(
              "select count(*)::int4 as n from operations where parent_session_id = $1 and state = 'refund_pending'",
              [parent.session_id],
            )
          )[0]!.n,
        { timeout: 10_000, interval: 20 },
      )
      .toBe(1);
    expect((await call("DELETE", `/v1/webhooks/endpoints/${gone}`)).status).toBe(204);
    expect((await call("PATCH", `/v1/webhooks/endpoints/${off}`, { enabled: false })).status).toBe(200);
    expect(
      (await call("PATCH", `/v1/webhooks/endpoints/${moved}`, { url: `${receiver.url}/new` })).status,
    ).toBe(200);
    // Still at the gateway when the changes were made: its message is written after them.
    const [pending] = await stack.db.query<{ n: number }>(
      "select count(*)::int4 as n from operations where parent_session_id = $1 and state = 'refund_pending'",
      [parent.session_id],
    );
    expect(pending!.n).toBe(1);
    expect((await refund).status).toBe(200);

    const deliveries = async () => {
      const r = await call("GET", `/v1/webhooks/messages?session_id=${parent.session_id}`);
      return (r.json.messages as { deliveries: Delivery[] }[]).flatMap((message) => message.deliveries);
    };
    await expect
      .poll(
        async () => (await deliveries()).every((d) => d.status === "succeeded" || d.status === "failed"),
        {
          timeout: 20_000,
          interval: 100,
        },
      )
      .toBe(true);
    const byEndpoint = new Map((await deliveries()).map((d) => [d.endpoint_id, d]));
    expect(byEndpoint.get(gone)).toMatchObject({
      status: "failed",
      last_error: "endpoint deleted: not sent",
      attempts: [],
    });
    expect(byEndpoint.get(off)).toMatchObject({
      status: "failed",
      last_error: "endpoint disabled: not sent",
      attempts: [],
    });
    expect(byEndpoint.get(moved)).toMatchObject({
      url: `${receiver.url}/new`,
      status: "succeeded",
      attempts: [{ url: `${receiver.url}/new`, status_code: 200 }],
    });
    expect(byEndpoint.get(null)).toMatchObject({ status: "succeeded" });
    const paths = receiver.requests.map((r) => r.path).sort();
    expect(paths).toEqual(["/general", "/new"]);
    const atNew = receiver.requests.find((r) => r.path === "/new")!;
    expect(atNew.headers["svc-sequence"]).toBe("1");
    // The disabled endpoint counts it among what it missed, and a replay sends it once it is back.
    const enabled = await call("PATCH", `/v1/webhooks/endpoints/${off}`, { enabled: true });
    expect(enabled.json.missed).toMatchObject({ failed: 1 });
  });
});
