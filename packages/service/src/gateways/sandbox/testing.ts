/**
 * Test support: a real notification receiver on loopback and a fixture that starts a real
 * sandbox server with adapters pointed at it. Used by the *.test.ts files beside it.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { SandboxGatewayKind as GatewayKind } from "@svc/protocol";
import type { GatewayPaymentRequest } from "../adapter.js";
import { SandboxGatewayAdapter } from "./adapter.js";
import { type SandboxGateway, startSandboxGateway } from "./server.js";

export const TEST_SECRET = "sandbox_test_secret";

export interface Received {
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
  json: Record<string, unknown>;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Browser visits to the return URL (GET), as path + query. */
  visits: string[];
  /** The return URL a payment sends the customer's browser back to. */
  returnUrl: string;
  /** Answer 500 to the next `count` notifications (a briefly-down service). */
  failNext(count: number): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const visits: string[] = [];
  let failures = 0;
  const server = createServer(async (req, res) => {
    if (req.method === "GET") {
      visits.push(req.url ?? "");
      res.writeHead(200, { "content-type": "text/plain" }).end("back at svc");
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (failures > 0) {
      failures -= 1;
      res.writeHead(500).end();
      return;
    }
    const rawBody = Buffer.concat(chunks);
    received.push({ rawBody, headers: req.headers, json: JSON.parse(rawBody.toString("utf8")) });
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/notifications`,
    returnUrl: `http://127.0.0.1:${port}/return?from=test`,
    received,
    visits,
    failNext: (count) => {
      failures = count;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `find` until it returns something (notifications arrive asynchronously). */
export async function waitFor<T>(find: () => T | undefined, timeoutMs = 3_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`waitFor: nothing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface Fixture {
  sandbox: SandboxGateway;
  receiver: Receiver;
  adapter(kind: GatewayKind): SandboxGatewayAdapter;
  request(kind: GatewayKind, overrides?: Partial<GatewayPaymentRequest>): GatewayPaymentRequest;
  close(): Promise<void>;
}

export async function startFixture(
  options: { queuedDelayMs?: number; retryDelaysMs?: number[] } = {},
): Promise<Fixture> {
  const receiver = await startReceiver();
  const sandbox = await startSandboxGateway({
    port: 0,
    notificationSecret: TEST_SECRET,
    queuedDelayMs: options.queuedDelayMs ?? 50,
    notificationRetryDelaysMs: options.retryDelaysMs ?? [0, 20, 40],
  });
  const adapters = new Map<GatewayKind, SandboxGatewayAdapter>();
  return {
    sandbox,
    receiver,
    adapter(kind) {
      const adapter =
        adapters.get(kind) ?? new SandboxGatewayAdapter({ kind, baseUrl: sandbox.url, timeoutMs: 2_000 });
      adapters.set(kind, adapter);
      return adapter;
    },
    request: (kind, overrides = {}) => ({
      pgCode: `pg_${kind}`,
      kind,
      sessionId: `sess_${randomUUID()}`,
      attemptId: `att_${randomUUID()}`,
      amount: "10.000",
      amountMinor: 10_000,
      currency: "KWD",
      operation: "purchase",
      formOfPayment: "svc_pg",
      instrument: {
        type: "card",
        number: "4242424242424242",
        expiryMonth: 12,
        expiryYear: 2099,
        cvc: "123",
        save: false,
      },
      language: "en",
      returnUrl: receiver.returnUrl,
      notificationUrl: receiver.url,
      ...overrides,
    }),
    async close() {
      await Promise.all([...adapters.values()].map((adapter) => adapter.close()));
      await sandbox.close();
      await receiver.close();
    },
  };
}
