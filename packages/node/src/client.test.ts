/**
 * @svc/node against the real service on loopback: typed calls by operationId, an
 * Idempotency-Key made for each money-moving call and reused by its retries (a refund whose
 * answer was lost is retried and happens once), retries on 5xx for reads only, no blind retry of
 * another write, and typed errors carrying the problem and the request id. The client's types
 * and the document they come from must match what the service serves now.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMerchant, createTransaction, type TestMerchant } from "../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../test/support/stack.js";
import { clientDocument, DOCUMENT_FILE, SCHEMA_FILE, schemaSource } from "../scripts/generate.js";
import { createSvc, SvcError, verifyWebhook } from "./index.js";

describe("@svc/node", () => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack("pglite");
    m = await createMerchant(stack);
  });
  afterAll(() => stack.close());

  /** A fetch that records each attempt and can break one: what a flaky network does to a client. */
  function flakyFetch(fault?: (attempt: number, request: Request) => "lose-answer" | "503" | undefined) {
    const attempts: { method: string; url: string; key: string | null }[] = [];
    const fetchImpl = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      attempts.push({
        method: request.method,
        url: request.url,
        key: request.headers.get("idempotency-key"),
      });
      const what = fault?.(attempts.length, request);
      if (what === "503")
        return new Response("{}", { status: 503, headers: { "content-type": "application/json" } });
      const response = await fetch(request);
      if (what === "lose-answer") {
        await response.arrayBuffer();
        throw new TypeError("fetch failed: socket hang up (the answer was lost)");
      }
      return response;
    };
    return { attempts, fetch: fetchImpl as typeof fetch };
  }

  async function paid() {
    const session = (await createTransaction(stack, m)).json.session_id as string;
    const svc = createSvc({ apiUrl: stack.url, apiKey: m.publicKey });
    const result = await svc.createCheckoutPayment({
      params: { path: { session_id: session } },
      body: { form_of_payment: "wallet_a_pay", pg_code: m.pg.sandbox, payment_token: "tok" },
    });
    expect(result).toMatchObject({ status: "success" });
    return session;
  }

  it("is generated from the document the service serves now (run `npm run generate -w @svc/node` after an API change)", async () => {
    const served = (await (await fetch(`${stack.url}/openapi.json`)).json()) as Record<string, unknown>;
    const committed = JSON.parse(await readFile(DOCUMENT_FILE, "utf8")) as Record<string, unknown>;
    expect(committed).toEqual(clientDocument(served));
    expect(await readFile(SCHEMA_FILE, "utf8")).toBe(await schemaSource(committed));
  });

  it("refunds by operationId with an Idempotency-Key; an answer lost on the way is retried with the same key and refunds once", async () => {
    const session = await paid();
    const net = flakyFetch((n) => (n === 1 ? "lose-answer" : undefined));
    const svc = createSvc({ apiUrl: stack.url, apiKey: m.privateKey, fetch: net.fetch, retryDelayMs: 10 });
    // Typed from the document: the operation webhook's payload.
    const op = await svc.createOperation({
      body: { operation: "refund", session_id: session, amount: "1.000" },
    });
    expect(op.result).toBe("success");
    expect(net.attempts).toHaveLength(2);
    expect(net.attempts[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(net.attempts[1]!.key).toBe(net.attempts[0]!.key);
    const payment = await createSvc({ apiUrl: stack.url, apiKey: m.privateKey }).getPayment({
      params: { path: { session_id: session } },
    });
    // One refund child, not two.
    expect(payment.transactions).toHaveLength(1);
    expect(payment.refunded_amount).toBe("1.000");
    expect(payment.transactions[0]!.reference_number).toBe(op.reference_number);
  });

  it("a caller's own Idempotency-Key is kept: the same key twice gives the first outcome", async () => {
    const session = await paid();
    const svc = createSvc({ apiUrl: stack.url, apiKey: m.privateKey });
    const init = {
      body: { operation: "refund" as const, session_id: session, amount: "2.000" },
      headers: { "idempotency-key": `order-42-refund-${session}` },
    };
    const first = await svc.createOperation(init);
    const again = await svc.createOperation(init);
    expect(again.reference_number).toBe(first.reference_number);
  });

  it("retries a read after a 503; does not repeat a write that has no Idempotency-Key", async () => {
    const session = await paid();
    const reads = flakyFetch((n) => (n === 1 ? "503" : undefined));
    const reader = createSvc({
      apiUrl: stack.url,
      apiKey: m.privateKey,
      fetch: reads.fetch,
      retryDelayMs: 10,
    });
    expect(await reader.getPayment({ params: { path: { session_id: session } } })).toMatchObject({
      session_id: session,
    });
    expect(reads.attempts.map((a) => a.method)).toEqual(["GET", "GET"]);

    const writes = flakyFetch(() => "lose-answer");
    const writer = createSvc({
      apiUrl: stack.url,
      apiKey: m.privateKey,
      fetch: writes.fetch,
      retryDelayMs: 10,
    });
    const error = await writer.rotateWebhookSecret().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ status: 0, code: "network_error" });
    expect(writes.attempts).toHaveLength(1);
  });

  it("throws SvcError with the problem's code, status, detail, field errors and the request id", async () => {
    const session = await paid();
    const svc = createSvc({ apiUrl: stack.url, apiKey: m.privateKey });
    const error = (await svc
      .createOperation({ body: { operation: "refund", session_id: session, amount: "-1" } })
      .catch((e: unknown) => e)) as SvcError;
    expect(error).toBeInstanceOf(SvcError);
    expect(error.status).toBe(422);
    expect(error.code).toBe("validation_failed");
    expect(error.detail).toMatch(/amount/);
    expect(error.requestId).toMatch(/^req_/);
    expect(error.problem?.errors).toHaveProperty("amount");
    const missing = (await svc
      .getPayment({ params: { path: { session_id: "sess_missing" } } })
      .catch((e: unknown) => e)) as SvcError;
    expect(missing).toMatchObject({ status: 404, code: expect.any(String) });
    const wrongKey = (await createSvc({ apiUrl: stack.url, apiKey: "sk_wrong" })
      .listPayments()
      .catch((e: unknown) => e)) as SvcError;
    expect(wrongKey.status).toBe(401);
  });

  it("re-exports webhook verification from @svc/webhooks", () => {
    expect(typeof verifyWebhook).toBe("function");
  });
});
