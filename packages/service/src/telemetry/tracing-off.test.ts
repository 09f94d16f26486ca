/**
 * Tracing off, as it is when no OTEL_* variable asks for it: the service runs a refund and
 * delivers its webhook with nothing of OpenTelemetry registered — no tracer provider, no
 * diagnostics-channel subscriber, `pg` unpatched, no trace-id mixin — and sends no `traceparent`
 * to the gateway or the merchant, even when the client sent one. (tracing.test.ts starts tracing
 * in a process of its own.)
 */
import dc from "node:diagnostics_channel";
import type { IncomingMessage, Server } from "node:http";
import { trace } from "@opentelemetry/api";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { until } from "../../../../test/support/until.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";
import { activeTraceparent, tracingActive } from "./trace-context.js";
import { startTracing } from "./index.js";

/** The traceparent headers the sandbox gateway (a node:http server here) was sent. */
const atGateway: (string | undefined)[] = [];
let gatewayPort = 0;
dc.subscribe("http.server.request.start", (message) => {
  const { request, server } = message as { request: IncomingMessage; server: Server };
  const address = server.address();
  if (typeof address === "object" && address?.port === gatewayPort)
    atGateway.push(request.headers.traceparent as string | undefined);
});

describe.each(STORES)("tracing off on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    expect(await startTracing({ OTEL_SERVICE_NAME: "svc" })).toBeUndefined();
    stack = await startStack(store, { config: { logLevel: "error" } });
    gatewayPort = Number(new URL(stack.gatewayUrl).port);
    m = await createMerchant(stack);
    receiver = await startReceiver();
    await configureWebhooks(stack, m, {
      operations_webhook_url: `${receiver.url}/ops`,
      notify_api_initiated: true,
    });
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  it("registers nothing", () => {
    expect(tracingActive()).toBe(false);
    expect(trace.getTracer("svc").startSpan("probe").isRecording()).toBe(false);
    for (const channel of ["undici:request:create", "fastify.initialization"])
      expect(dc.channel(channel).hasSubscribers, channel).toBe(false);
    expect("__wrapped" in pg.Client.prototype.query).toBe(false);
    expect(activeTraceparent()).toBeNull();
    const mixin = Object.getOwnPropertySymbols(stack.service.app.log).find(
      (s) => s.description === "pino.mixin",
    );
    expect(mixin && (stack.service.app.log as unknown as Record<symbol, unknown>)[mixin]).toBeUndefined();
  });

  it("sends no traceparent to the gateway or the merchant and stores none, even when the client sent one", async () => {
    const parent = await paidParent(stack, m);
    const before = atGateway.length;
    const answer = await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
      headers: { traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(atGateway.length).toBeGreaterThan(before);
    expect(atGateway.slice(before)).toEqual(atGateway.slice(before).map(() => undefined));
    const childSessionId = answer.json.txn.session_id as string;
    const delivered = await until(
      () => receiver.requests.find((r) => r.json?.txn?.session_id === childSessionId),
      "the refund's webhook",
    );
    expect(delivered.headers.traceparent).toBeUndefined();
    const [message] = await stack.db.query<{ traceparent: string | null }>(
      "select traceparent from webhook_messages where child_session_id = $1",
      [childSessionId],
    );
    expect(message!.traceparent).toBeNull();
  });
});
