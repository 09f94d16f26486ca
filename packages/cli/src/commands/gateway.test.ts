import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  apiKey,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { gatewayCommand } from "./gateway.js";

describe("svc gateway", () => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack("pglite");
    m = await createMerchant(stack);
  });
  afterAll(() => stack.close());

  it("lists the gateway's payments and refunds one on the gateway's side by session id", async () => {
    const tx = (await createTransaction(stack, m)).json;
    const paid = await api(stack, "POST", `/v1/checkout/${tx.session_id}/payments`, {
      auth: apiKey(m.publicKey),
      body: { form_of_payment: "wallet_a_pay", pg_code: m.pg.sandbox, payment_token: "t" },
    });
    expect(paid.json.status).toBe("success");
    const env = { SVC_GATEWAY_URL: stack.gatewayUrl };
    const lines: string[] = [];
    expect(await gatewayCommand(["payments"], env, (l) => lines.push(l))).toBe(0);
    const listed = JSON.parse(lines.join("\n")) as { payments: { session_id: string; status: string }[] };
    expect(listed.payments.find((p) => p.session_id === tx.session_id)?.status).toBe("approved");
    lines.length = 0;
    expect(await gatewayCommand(["refund", tx.session_id, "1.000"], env, (l) => lines.push(l))).toBe(0);
    expect(JSON.parse(lines.join("\n"))).toMatchObject({
      operation: "refund",
      amount: "1.000",
      currency: "KWD",
      status: "success",
    });
  });

  it("says what is wrong: usage, unknown session, unreachable gateway", async () => {
    const lines: string[] = [];
    expect(
      await gatewayCommand(["refund"], { SVC_GATEWAY_URL: stack.gatewayUrl }, (l) => lines.push(l)),
    ).toBe(2);
    expect(lines.join("")).toContain("usage: svc gateway");
    await expect(
      gatewayCommand(["void", "sess_nope", "1.000"], { SVC_GATEWAY_URL: stack.gatewayUrl }, () => {}),
    ).rejects.toThrow(/no payment for session sess_nope/);
    await expect(
      gatewayCommand(["payments"], { SVC_GATEWAY_URL: "http://127.0.0.1:9" }, () => {}),
    ).rejects.toThrow(/cannot reach the sandbox gateway/);
  });

  it("takes the gateway's address from --gateway-url, as docs/cli.md says", async () => {
    const { run } = await import("../main.js");
    const out: string[] = [];
    const code = await run(["gateway", "payments", "--gateway-url", stack.gatewayUrl], {
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => out.push(t),
      isTTY: false,
      env: { SVC_GATEWAY_URL: "http://127.0.0.1:9" },
    });
    expect(code).toBe(0);
    expect(JSON.parse(out.join(""))).toHaveProperty("payments");
  });
});
