/**
 * A gateway whose answers carry text no JSON signature and no `jsonb` column can hold: a lone
 * UTF-16 surrogate (`"\ud83d"` in its JSON, half an emoji) and a NUL (`"\u0000"`). The payment
 * and the refund it made must still be recorded, answered and sent, not fail after the money
 * moved (db/json.ts): the text is kept with U+FFFD for the surrogate and without the NUL.
 *
 * The gateway is the real sandbox one, behind a loopback relay that adds such a field to every
 * `pg_response` it answers, as a gateway reporting nonsense would.
 */
import http from "node:http";
import { verifyWebhook } from "@svc/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxGateway, startSandboxGateway } from "../gateways/sandbox/server.js";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Receiver, startReceiver } from "../../../../test/support/receiver.js";
import { GATEWAY_SECRET, type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";
import { configureWebhooks } from "../../../../test/support/webhooks.js";

const NONSENSE = "half an emoji \ud83d, a NUL \u0000.";
const KEPT = "half an emoji \ufffd, a NUL .";

/** Relays to `target`, adding `note: NONSENSE` to each `pg_response` object in a JSON answer. */
async function startNonsenseRelay(target: string) {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const upstream = await fetch(`${target}${req.url}`, {
      method: req.method!,
      headers: { "content-type": req.headers["content-type"] ?? "application/json" },
      ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
    });
    let text = await upstream.text();
    try {
      const json = JSON.parse(text) as unknown;
      const addNote = (value: unknown): void => {
        if (Array.isArray(value)) value.forEach(addNote);
        else if (value && typeof value === "object") {
          for (const [key, v] of Object.entries(value)) {
            if (key === "pg_response" && v && typeof v === "object")
              (v as Record<string, unknown>).note = NONSENSE;
            else addNote(v);
          }
        }
      };
      addNote(json);
      text = JSON.stringify(json); // writes the lone surrogate as \ud83d and the NUL as \u0000
    } catch {
      // not JSON: relayed as it came
    }
    res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "text/plain" });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe.each(STORES)("a gateway answering text JSON signatures and jsonb cannot hold, on %s", (store) => {
  let gateway: SandboxGateway;
  let relay: Awaited<ReturnType<typeof startNonsenseRelay>>;
  let stack: Stack;
  let m: TestMerchant;
  let receiver: Receiver;
  beforeAll(async () => {
    gateway = await startSandboxGateway({ port: 0, notificationSecret: GATEWAY_SECRET });
    relay = await startNonsenseRelay(gateway.url);
    [stack, receiver] = await Promise.all([
      startStack(store, { config: { gatewayUrl: relay.url } }),
      startReceiver(),
    ]);
    m = await createMerchant(stack);
    await configureWebhooks(stack, m, {
      enabled: true,
      operations_webhook_url: `${receiver.url}/operations`,
      notify_api_initiated: true,
    });
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
    await relay?.close();
    await gateway?.close();
  });

  it("the payment and its refund are recorded, answered and sent, the text kept with U+FFFD and without the NUL", async () => {
    const parent = await paidParent(stack, m);
    const status = await api(stack, "GET", `/v1/payments/${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    expect(status.json.pg_response).toMatchObject({ note: KEPT });

    const refund = await api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      body: { operation: "refund", session_id: parent.session_id, amount: "1.000" },
    });
    expect(refund.status, refund.text).toBe(200);
    expect(refund.json).toMatchObject({ result: "success", pg_response: { note: KEPT } });
    const [delivered] = await receiver.waitFor(1, { path: "/operations" });
    const event = await verifyWebhook(
      delivered!.body,
      delivered!.headers as Record<string, string>,
      m.webhookSecret,
    );
    expect(event.type === "operation" && event.payload.pg_response).toMatchObject({ note: KEPT });
    // What was stored is what was sent.
    const after = await api(stack, "GET", `/v1/payments/${parent.session_id}`, {
      auth: apiKey(m.privateKey),
    });
    expect(after.json.refunded_amount).toBe("1.000");
  });
});
