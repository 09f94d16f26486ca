/**
 * Gateway notifications obey the money rules: an operation a gateway reports that would refund
 * or capture more than is left, or that the payment's state does not allow, is not applied to the
 * totals and sends no webhook; it is recorded once as a discrepancy, shown in the API, the
 * dashboard and /metrics, and answered 200 so the gateway stops retrying.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedIn } from "../../../../test/support/dashboard.js";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { type ParentKind, paidParent } from "../../../../test/support/payments.js";
import { reportSandboxOperation } from "../../../../test/support/gateway-notifications.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";

describe.each(STORES)("gateway discrepancies on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
    // Every applied operation would be sent: no message is the proof that none was.
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: "http://127.0.0.1:9/ops",
      notify_api_initiated: true,
    });
  });
  afterAll(() => stack?.close());

  /** A signed `operation` notification from the gateway's own dashboard. */
  const report = (
    pgCode: string,
    sessionId: string,
    operation: string,
    amount: string,
    options: { gatewayOperationId?: string; currency?: string } = {},
  ) => reportSandboxOperation(stack, pgCode, sessionId, operation, amount, options);
  const payment = async (sessionId: string) =>
    (await api(stack, "GET", `/v1/payments/${sessionId}`, { auth: apiKey(m.privateKey) })).json;
  const messages = (sessionId: string) =>
    stack.db.query("select id from webhook_messages where parent_session_id = $1", [sessionId]);
  const listed = async (sessionId: string) =>
    (await api(stack, "GET", `/v1/discrepancies?session_id=${sessionId}`, { auth: apiKey(m.privateKey) }))
      .json.discrepancies as Record<string, unknown>[];

  const cases: [string, ParentKind, string, string, string][] = [
    ["a refund of 50.000 on a 10.000 payment", "sandbox", "refund", "50.000", "amount_exceeds_refundable"],
    ["a void of a paid purchase", "sandbox", "void", "10.000", "invalid_state_for_operation"],
    ["a capture of a paid purchase", "sandbox", "capture", "1.000", "invalid_state_for_operation"],
    ["a capture beyond the authorization", "authorize", "capture", "10.001", "amount_exceeds_capturable"],
    [
      "a refund of an authorization with nothing captured",
      "authorize",
      "refund",
      "1.000",
      "invalid_state_for_operation",
    ],
  ];
  for (const [what, kind, operation, amount, rule] of cases) {
    it(`${what}: not applied, recorded as ${rule}, answered 200`, async () => {
      const parent = await paidParent(stack, m, kind, { amount: "10.000" });
      const pgCode = kind === "authorize" ? m.pg.authorize : m.pg.sandbox;
      const before = await payment(parent.session_id);
      const r = await report(pgCode, parent.session_id, operation, amount);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ received: true, outcome: "discrepancy" });
      expect(String(r.json.discrepancy_id)).toMatch(/^dsc_/);
      const after = await payment(parent.session_id);
      expect(after).toEqual(before);
      expect(await messages(parent.session_id)).toEqual([]);
      expect(await listed(parent.session_id)).toEqual([
        expect.objectContaining({
          id: r.json.discrepancy_id,
          status: "open",
          rule,
          operation,
          amount,
          currency_code: "KWD",
          session_id: parent.session_id,
          pg_code: pgCode,
        }),
      ]);
    });
  }

  it("another currency is a discrepancy too", async () => {
    const parent = await paidParent(stack, m, "sandbox", { amount: "10.000" });
    const r = await report(m.pg.sandbox, parent.session_id, "refund", "1.00", { currency: "USD" });
    expect(r.json).toMatchObject({ outcome: "discrepancy" });
    expect((await payment(parent.session_id)).refunded_amount).toBe("0.000");
    expect((await listed(parent.session_id))[0]).toMatchObject({ rule: "currency_mismatch" });
  });

  it("the same gateway operation reported again is one discrepancy; a valid report still applies", async () => {
    const parent = await paidParent(stack, m, "sandbox", { amount: "10.000" });
    const gatewayOperationId = `op_${randomUUID()}`;
    const first = await report(m.pg.sandbox, parent.session_id, "refund", "12.000", { gatewayOperationId });
    const again = await report(m.pg.sandbox, parent.session_id, "refund", "12.000", { gatewayOperationId });
    expect(first.json.outcome).toBe("discrepancy");
    expect(again.json).toMatchObject({ outcome: "duplicate", discrepancy_id: first.json.discrepancy_id });
    expect(await listed(parent.session_id)).toHaveLength(1);
    const valid = await report(m.pg.sandbox, parent.session_id, "refund", "4.000");
    expect(valid.json.outcome).toBe("applied");
    expect((await payment(parent.session_id)).refunded_amount).toBe("4.000");
    expect(await messages(parent.session_id)).toHaveLength(1);
  });

  it("two reports that each fit alone but not together: one applied, one discrepancy", async () => {
    const parent = await paidParent(stack, m, "sandbox", { amount: "10.000" });
    const answers = await Promise.all([
      report(m.pg.sandbox, parent.session_id, "refund", "6.000"),
      report(m.pg.sandbox, parent.session_id, "refund", "6.000"),
    ]);
    expect(answers.map((a) => a.json.outcome).sort()).toEqual(["applied", "discrepancy"]);
    expect((await payment(parent.session_id)).refunded_amount).toBe("6.000");
    expect((await listed(parent.session_id)).map((d) => d.rule)).toEqual(["amount_exceeds_refundable"]);
  });

  it("an operator resolves one with a note; /metrics counts them; the dashboard shows them", async () => {
    const parent = await paidParent(stack, m, "sandbox", { amount: "10.000" });
    const r = await report(m.pg.sandbox, parent.session_id, "refund", "20.000");
    const id = String(r.json.discrepancy_id);
    const metricsBefore = await (await fetch(`${stack.url}/metrics`)).text();
    const open = Number(/^svc_gateway_discrepancies_open (\d+)$/m.exec(metricsBefore)?.[1]);
    expect(open).toBeGreaterThanOrEqual(1);
    expect(
      Number(
        /^svc_gateway_discrepancies_total\{rule="amount_exceeds_refundable"\} (\d+)$/m.exec(
          metricsBefore,
        )?.[1],
      ),
    ).toBeGreaterThanOrEqual(1);

    const client = await signedIn(stack, m.admin);
    const page = await client.get(`/dashboard/payments/${parent.session_id}`);
    expect(page.text).toContain("The gateway reported an operation that breaks the money rules");
    const list = await client.get("/dashboard/discrepancies");
    expect(list.status).toBe(200);
    expect(list.text).toContain(id);
    const resolved = await client.post(`/dashboard/discrepancies/${id}/resolve`, {
      note: "Reversed on the gateway's dashboard",
    });
    expect(resolved.status).toBe(303);
    const shown = await api(stack, "GET", `/v1/discrepancies/${id}`, { auth: apiKey(m.privateKey) });
    expect(shown.json).toMatchObject({
      status: "resolved",
      resolution: { note: "Reversed on the gateway's dashboard", resolved_by: m.admin.username },
    });
    const twice = await api(stack, "POST", `/v1/discrepancies/${id}/resolve`, {
      auth: apiKey(m.privateKey),
      body: { note: "again" },
    });
    expect(twice.status).toBe(409);
    const metricsAfter = await (await fetch(`${stack.url}/metrics`)).text();
    expect(Number(/^svc_gateway_discrepancies_open (\d+)$/m.exec(metricsAfter)?.[1])).toBe(open - 1);
    // Another merchant sees none of them.
    const other = await createMerchant(stack);
    const foreign = await api(stack, "GET", `/v1/discrepancies/${id}`, { auth: apiKey(other.privateKey) });
    expect(foreign.status).toBe(404);
  });
});
