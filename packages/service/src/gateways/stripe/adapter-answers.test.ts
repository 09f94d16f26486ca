/**
 * A "Stripe" on loopback that answers what Stripe never does: a 200 with an empty object or
 * another kind of object, and an answer dripped a byte at a time. The adapter (with the official
 * `stripe` package) must call each outcome unknown — never a decline, which would tell a merchant
 * to refund again — and within its deadline.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayConnection } from "../connection.js";
import { GatewayError } from "../gateway-error.js";
import { createStripeAdapter } from "./adapter.js";

let answer: (res: http.ServerResponse) => void = (res) => res.end("{}");
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.setHeader("content-type", "application/json");
    answer(res);
  });
});
let baseUrl = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const TIMEOUT_MS = 1_000;
function adapter() {
  const connection = { api_base_url: baseUrl } as GatewayConnection;
  return createStripeAdapter(
    connection,
    { secret_key: "sk_test_answers0123456789", webhook_secret: "whsec_answers" },
    { timeoutMs: TIMEOUT_MS },
  );
}
const refund = (operation: "refund" | "capture" | "void" = "refund") =>
  adapter().operate({
    kind: "stripe",
    pgCode: "stripe",
    operation,
    pgReference: "pi_answers",
    referenceNumber: "ref_answers",
    amount: "1.00",
    amountMinor: 100,
    currency: "USD",
    notificationUrl: "http://127.0.0.1:9/unused",
  } as Parameters<ReturnType<typeof adapter>["operate"]>[0]);

describe("Stripe answers that are not Stripe's", () => {
  it.each([
    ["an empty object", "{}"],
    ["an array", "[]"],
    ["another kind of object", JSON.stringify({ object: "payment_intent", status: "succeeded" })],
    ["a refund with a status Stripe has not", JSON.stringify({ object: "refund", status: "done" })],
  ])("a 200 with %s is an unknown outcome, not a decline", async (_name, body) => {
    answer = (res) => res.end(body);
    const error = await refund().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: "gateway_unavailable", outcomeUnknown: true });
  });

  it("a capture answered with a refund object is unknown too; a real refund answer still maps", async () => {
    answer = (res) => res.end(JSON.stringify({ object: "refund", status: "succeeded" }));
    await expect(refund("capture")).rejects.toMatchObject({ outcomeUnknown: true });
    answer = (res) =>
      res.end(
        JSON.stringify({ id: "re_1", object: "refund", status: "succeeded", amount: 100, currency: "usd" }),
      );
    expect(await refund()).toMatchObject({ status: "success" });
  });

  it("an answer dripped a byte at a time is cut at the deadline, as an unknown outcome", async () => {
    answer = (res) => {
      const body = JSON.stringify({ object: "refund", status: "succeeded", padding: "x".repeat(200) });
      let i = 0;
      res.setHeader("content-length", String(Buffer.byteLength(body)));
      const drip = setInterval(() => {
        if (res.destroyed || i >= body.length) return clearInterval(drip);
        res.write(body[i++]!);
      }, 100);
      res.on("close", () => clearInterval(drip));
    };
    const started = Date.now();
    const error = await refund().catch((e: unknown) => e);
    const took = Date.now() - started;
    expect(error).toMatchObject({ code: "gateway_unavailable", outcomeUnknown: true });
    expect(String((error as Error).message)).toContain(`within ${TIMEOUT_MS} ms`);
    // Each byte came within the client's idle timeout: only the deadline ends it (20 s of drip).
    expect(took).toBeLessThan(5_000);
  });
});
