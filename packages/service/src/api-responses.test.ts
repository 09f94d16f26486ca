/**
 * The OpenAPI document says what every documented operation answers, and the service answers
 * exactly that: each operation of api-responses.ts is called on the real service (both stores),
 * and every answer is validated against the served /openapi.json, whose objects are closed (an
 * undocumented field fails). Every documented status is reached at least once.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import formats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reportSandboxOperation } from "../../../test/support/gateway-notifications.js";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../test/support/merchant.js";
import { paidParent } from "../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../test/support/stack.js";
import { STORES } from "../../../test/support/stores.js";
import { RESPONSES } from "./api-responses.js";

type Answer = { content?: { "application/json"?: { schema?: object } } };
type Doc = {
  paths: Record<string, Record<string, { operationId?: string; responses: Record<string, Answer> }>>;
};

describe.each(STORES)("the API's answers match the OpenAPI document on %s", (store) => {
  let stack: Stack;
  let receiver: Receiver;
  let m: TestMerchant;
  let doc: Doc;
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  // ajv-formats is CommonJS: its function is the module itself, typed as its `default`.
  (formats as unknown as typeof formats.default)(ajv);
  const reached = new Set<string>();

  beforeAll(async () => {
    stack = await startStack(store);
    receiver = await startReceiver();
    m = await createMerchant(stack);
    doc = (await (await fetch(`${stack.url}/openapi.json`)).json()) as Doc;
    // The document's schemas as one JSON Schema: components.schemas.X is doc#/$defs/X.
    const schemas = (doc as unknown as { components: { schemas: object } }).components.schemas;
    ajv.addSchema({
      $id: "doc",
      $defs: JSON.parse(JSON.stringify(schemas).replaceAll('"#/components/schemas/', '"#/$defs/')),
    });
  });
  afterAll(async () => {
    await stack.close();
    await receiver.close();
  });

  /** Calls the operation and checks its answer against the document; returns the body. */
  async function call(operationId: string, method: string, path: string, body?: unknown) {
    const r = await api(stack, method, path, { auth: apiKey(m.privateKey), body });
    const op = Object.values(doc.paths)
      .flatMap((item) => Object.values(item))
      .find((o) => o.operationId === operationId);
    expect(op, operationId).toBeDefined();
    const answer = op!.responses[String(r.status)];
    expect(answer, `${operationId} answered ${r.status}: ${r.text}`).toBeDefined();
    expect(
      RESPONSES[operationId]?.[String(r.status)],
      `${operationId} ${r.status} in RESPONSES: ${r.text}`,
    ).toBeDefined();
    const schema = answer?.content?.["application/json"]?.schema;
    if (schema) {
      const validate = ajv.compile(
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"doc#/$defs/')) as object,
      );
      expect(validate(r.json) ? [] : validate.errors, `${operationId} ${r.status}`).toEqual([]);
    } else {
      expect(r.text, `${operationId} ${r.status} has no body`).toBe("");
    }
    reached.add(`${operationId} ${r.status}`);
    return r.json;
  }

  it("payments: checkout, status, the list (a page, and by order_no), operations done and queued", async () => {
    await call("createCheckout", "POST", "/v1/checkout", {
      type: "e_commerce",
      pg_codes: [m.pg.sandbox],
      amount: "10.500",
      currency_code: "KWD",
      order_no: `R-${store}`,
      metadata: { cart: "42" },
      customer_email: "sara@example.com",
      include_sdk_setup_preload: true,
    });
    const paid = await paidParent(stack, m, "sandbox");
    await call("createOperation", "POST", "/v1/operations", {
      operation: "refund",
      session_id: paid.session_id,
      amount: "1.000",
    });
    const payment = await call("getPayment", "GET", `/v1/payments/${paid.session_id}`);
    expect(payment.transactions).toHaveLength(1);
    const page = await call("listPayments", "GET", "/v1/payments?limit=1");
    expect(page.has_more).toBe(true);
    expect(typeof page.next_cursor).toBe("string");
    const one = await call("listPayments", "GET", `/v1/payments?order_no=R-${store}`);
    expect(one.metadata).toEqual({ cart: "42" });
    const queued = await paidParent(stack, m, "queued");
    const op = await call("createOperation", "POST", "/v1/operations", {
      operation: "refund",
      session_id: queued.session_id,
      amount: "1.000",
    });
    expect(op.result).toBe("queued");
    await call("getOverviewReport", "GET", "/v1/reports/overview?range=7d");
  });

  it("webhooks: configuration, endpoints, test messages, the log and its replays, event types", async () => {
    await call("updateWebhookConfig", "PUT", "/v1/webhooks/config", {
      enabled: true,
      operations_webhook_url: `${receiver.url}/general`,
      notify_api_initiated: true,
    });
    await call("getWebhookConfig", "GET", "/v1/webhooks/config");
    await call("listEventTypes", "GET", "/v1/webhooks/event-types");
    const endpoint = await call("createWebhookEndpoint", "POST", "/v1/webhooks/endpoints", {
      url: `${receiver.url}/endpoint`,
      description: "orders",
      event_types: ["operation", "payment.paid"],
      headers: { "x-shop": "1" },
    });
    await call("listWebhookEndpoints", "GET", "/v1/webhooks/endpoints");
    await call("getWebhookEndpoint", "GET", `/v1/webhooks/endpoints/${endpoint.id}`);
    await call("sendEndpointTestWebhook", "POST", `/v1/webhooks/endpoints/${endpoint.id}/test`, {});
    await call("sendTestWebhook", "POST", "/v1/webhooks/test", {});
    await receiver.waitFor(3);
    await call("updateWebhookEndpoint", "PATCH", `/v1/webhooks/endpoints/${endpoint.id}`, { enabled: false });
    const enabled = await call("updateWebhookEndpoint", "PATCH", `/v1/webhooks/endpoints/${endpoint.id}`, {
      enabled: true,
    });
    expect(enabled.missed).toEqual({ since: expect.any(String), failed: expect.any(Number) });
    await call("replayWebhookEndpoint", "POST", `/v1/webhooks/endpoints/${endpoint.id}/replay`, {});
    const log = await call("listWebhookMessages", "GET", "/v1/webhooks/messages");
    expect(log.messages.length).toBeGreaterThan(0);
    // Wait for an attempt to be recorded, so the attempts' schema is exercised too.
    let message = await call("getWebhookMessage", "GET", `/v1/webhooks/messages/${log.messages[0].id}`);
    for (let i = 0; i < 50 && !message.deliveries.some((d: { tries: number }) => d.tries > 0); i++) {
      await new Promise((r) => setTimeout(r, 100));
      message = await call("getWebhookMessage", "GET", `/v1/webhooks/messages/${log.messages[0].id}`);
    }
    expect(message.deliveries[0].attempts.length).toBeGreaterThan(0);
    await call("replayWebhookMessage", "POST", `/v1/webhooks/messages/${message.id}/replay`, {});
    await call("replayWebhookDeliveries", "POST", "/v1/webhooks/replay", { status: "succeeded" });
    await call("deleteWebhookEndpoint", "DELETE", `/v1/webhooks/endpoints/${endpoint.id}`);
    await call("getWebhookPlugin", "GET", "/v1/webhooks/plugins/e_commerce");
    await call("updateWebhookPlugin", "PUT", "/v1/webhooks/plugins/e_commerce", {
      webhook_url: `${receiver.url}/plugin`,
      enabled: true,
    });
    const moved = await call("updateWebhookPlugin", "PUT", "/v1/webhooks/plugins/e_commerce", {
      webhook_url: `${receiver.url}/plugin-new`,
    });
    expect(moved.moved).toBe(0);
    const rotated = await call("rotateWebhookSecret", "POST", "/v1/webhooks/secret/rotate", {});
    expect(rotated.secret).toMatch(/^whsec_/);
    const audit = await call("listAuditEvents", "GET", "/v1/audit-events?limit=1");
    expect(typeof audit.next_before).toBe("number");
  });

  it("discrepancies: the list, one, and its resolution", async () => {
    const paid = await paidParent(stack, m, "sandbox", { amount: "10.000" });
    // The gateway's own dashboard reports a refund of more than the payment.
    const reported = await reportSandboxOperation(stack, m.pg.sandbox, paid.session_id, "refund", "50.000");
    expect(reported.json).toMatchObject({ outcome: "discrepancy" });
    const { discrepancies } = await call(
      "listDiscrepancies",
      "GET",
      `/v1/discrepancies?session_id=${paid.session_id}`,
    );
    expect(discrepancies).toHaveLength(1);
    await call("getDiscrepancy", "GET", `/v1/discrepancies/${discrepancies[0].id}`);
    const resolved = await call(
      "resolveDiscrepancy",
      "POST",
      `/v1/discrepancies/${discrepancies[0].id}/resolve`,
      {
        note: "refund reversed on the gateway",
      },
    );
    expect(resolved.resolution).toMatchObject({
      note: "refund reversed on the gateway",
      resolved_by: "api key",
    });
  });

  it("reached every documented answer", () => {
    const documented = Object.entries(RESPONSES).flatMap(([id, answers]) =>
      Object.keys(answers).map((status) => `${id} ${status}`),
    );
    expect([...reached].sort()).toEqual(documented.sort());
  });
});
