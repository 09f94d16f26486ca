import { existsSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant } from "../../../test/support/merchant.js";
import { paidParent } from "../../../test/support/payments.js";
import { startReceiver } from "../../../test/support/receiver.js";
import { type Stack, startStack } from "../../../test/support/stack.js";
import { configureWebhooks } from "../../../test/support/webhooks.js";
import { freePort } from "../../../test/support/free-port.js";
import { testDb } from "../../../test/support/stores.js";
import { loadConfig } from "./config.js";
import type { Db } from "./db/client.js";
import { startService } from "./server.js";

describe("service shutdown", () => {
  let stack: Stack;
  // Started in the hook, so a slow start on a busy machine does not eat the test's own time.
  beforeAll(async () => {
    // A gateway timeout of 1 s: the grace is then its floor, 5 s.
    stack = await startStack("pglite", { config: { gatewayTimeoutMs: 1_000 } });
  });

  it("completes while a client holds a request open, and leaves no client socket behind", async () => {
    const { port } = new URL(stack.url);
    // A request whose body never finishes: the server waits for it until shutdown cuts it.
    const socket = net.connect(Number(port), "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.write(
      "POST /v1/checkout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    );
    const closedBySever = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    // The server has the connection once it answers (401: no key); the body is still unfinished.
    await new Promise<void>((resolve) => socket.once("data", () => resolve()));
    const started = Date.now();
    await stack.close();
    await closedBySever;
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);
});

describe("service shutdown during a gateway call", () => {
  it("waits for a refund whose gateway answers after 6 s (the gateway timeout is 10 s), and answers it", async () => {
    const stack = await startStack("pglite", { operationAnswerDelayMs: 6_000 });
    const m = await createMerchant(stack);
    const tx = await paidParent(stack, m);
    const refund = api(stack, "POST", "/v1/operations", {
      auth: apiKey(m.privateKey),
      headers: { "idempotency-key": `drain-${tx.session_id}` },
      body: { operation: "refund", session_id: tx.session_id, amount: "1.000" },
    });
    // The refund is at the gateway when the shutdown begins.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const closed = stack.close();
    const answer = await refund;
    await closed;
    expect(answer.status).toBe(200);
    expect(answer.json.result).toBe("success");
  }, 40_000);
});

describe("service shutdown with a webhook attempt in flight", () => {
  it("stops taking requests at once, while the worker waits for its attempt", async () => {
    const stack = await startStack("pglite");
    const receiver = await startReceiver();
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    receiver.respond = () => ({ status: 200, body: "ok", until: held });
    try {
      const m = await createMerchant(stack);
      await configureWebhooks(stack, m, {
        enabled: true,
        operations_webhook_url: `${receiver.url}/ops`,
        notify_api_initiated: true,
      });
      const tx = await paidParent(stack, m);
      const refund = await api(stack, "POST", "/v1/operations", {
        auth: apiKey(m.privateKey),
        headers: { "idempotency-key": `inflight-${tx.session_id}` },
        body: { operation: "refund", session_id: tx.session_id, amount: "1.000" },
      });
      expect(refund.status).toBe(200);
      await receiver.waitFor(1, { path: "/ops" }); // its answer is held: the attempt is in flight
      const closed = stack.close();
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The worker waits (up to 5 s) for the held attempt; the server no longer takes requests.
      // It once went on serving until the worker had stopped.
      const meanwhile = await fetch(`${stack.url}/healthz`).then(
        (r) => r.status,
        () => "refused",
      );
      expect([503, "refused"]).toContain(meanwhile);
      release();
      await closed;
    } finally {
      release();
      await receiver.close();
    }
  }, 40_000);
});

describe("service start on PGlite", () => {
  it("creates its data dir when it does not exist yet (svc serve on a fresh machine)", async () => {
    const parent = mkdtempSync(path.join(os.tmpdir(), "svc-start-"));
    const dataDir = path.join(parent, "not", "yet");
    try {
      const service = await startService(
        loadConfig({}, { port: 0, host: "127.0.0.1", dataDir, logLevel: "silent" }),
      );
      try {
        expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
        expect(existsSync(path.join(dataDir, "pgdata"))).toBe(true);
      } finally {
        await service.close();
      }
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("a start that fails after listening", () => {
  it("closes what it opened and throws: no process left listening and ready without its worker", async () => {
    // The worker's first LISTEN refused (as when the database restarts between the migrations
    // and the worker's start, or has no connection left): it once left /readyz answering 200.
    const db = await testDb("pglite");
    const refusing: Db = {
      ...db,
      listen: async (channel, onMessage, onReconnect) => {
        if (channel.includes("outbox")) throw new Error("Connection terminated unexpectedly");
        return db.listen(channel, onMessage, onReconnect);
      },
    };
    const port = await freePort();
    await expect(
      startService(loadConfig({}, { port, host: "127.0.0.1", logLevel: "silent" }), { db: refusing }),
    ).rejects.toThrow("Connection terminated unexpectedly");
    await expect(fetch(`http://127.0.0.1:${port}/readyz`)).rejects.toThrow();
  });
});
