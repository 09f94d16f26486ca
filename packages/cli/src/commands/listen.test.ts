/**
 * `svc listen` when its stream drops (a proxy timing out, the laptop's Wi-Fi, a service restart):
 * the CLI reopens it, and what was sent meanwhile waited in the outbox and arrives, in order,
 * nothing lost. Ctrl-C (stop) deletes the temporary endpoint.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { webhookMiddleware } from "@svc/webhooks/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, apiKey, createMerchant, type TestMerchant } from "../../../../test/support/merchant.js";
import { paidParent } from "../../../../test/support/payments.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { createApi } from "../lib/api.js";
import { createOutput } from "../lib/output.js";
import { listen } from "./listen.js";

describe("svc listen across a dropped stream", () => {
  let stack: Stack;
  let m: TestMerchant;
  let receiver: http.Server;
  let url: string;
  const got: { session: string; sequence: string; result: string }[] = [];
  let secret = "";
  beforeAll(async () => {
    stack = await startStack("pglite");
    m = await createMerchant(stack);
    receiver = http.createServer((req, res) =>
      webhookMiddleware({
        secrets: secret,
        onEvent: (event) => {
          if (event.type !== "operation") return;
          got.push({
            session: event.payload.session_id,
            sequence: String(req.headers["svc-sequence"]),
            result: event.payload.result,
          });
        },
      })(req, res),
    );
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  });
  afterAll(async () => {
    receiver.close();
    await stack.close();
  });

  it("reopens the stream and delivers, in order, what was sent while it was down; stop deletes the endpoint", async () => {
    let printed = "";
    const out = createOutput(false, {
      stdout: (t) => (printed += t),
      stderr: (t) => (printed += t),
      isTTY: false,
      env: {},
    });
    const handle = await listen(
      createApi({ apiUrl: stack.url, apiKey: m.privateKey }),
      { forwardTo: url, events: ["operation"] },
      out,
    );
    secret = handle.signingSecret!;
    const refund = (session: string) =>
      api(stack, "POST", "/v1/operations", {
        auth: apiKey(m.privateKey),
        body: { operation: "refund", session_id: session, amount: "1.000" },
      });
    const parent = await paidParent(stack, m);
    expect((await refund(parent.session_id)).status).toBe(200);
    await expect.poll(() => got.length, { timeout: 10_000 }).toBe(1);

    // Every connection to the service cut, the event stream among them.
    stack.service.app.server.closeAllConnections();
    for (let i = 0; i < 3; i++) expect((await refund(parent.session_id)).status).toBe(200);
    await expect.poll(() => printed, { timeout: 10_000 }).toMatch(/reconnecting in \d+ ms/);
    // At least once: a delivery whose report back was cut with the stream may come again (the
    // same sequence); what counts is each one arriving, first arrivals in order.
    const firstArrivals = () => [...new Set(got.map((g) => g.sequence))];
    await expect.poll(() => firstArrivals().length, { timeout: 15_000 }).toBe(4);
    expect(firstArrivals()).toEqual(["1", "2", "3", "4"]);
    expect(got.every((g) => g.session === parent.session_id && g.result === "success")).toBe(true);

    await handle.stop();
    const gone = await api(stack, "GET", `/v1/webhooks/endpoints/${handle.endpointId}`, {
      auth: apiKey(m.privateKey),
    });
    expect(gone.status).toBe(404);
  }, 45_000);
});

describe("svc listen's options", () => {
  const run$ = async (args: string[]) => {
    const { run } = await import("../main.js");
    const out: string[] = [];
    const code = await run(["listen", ...args, "--api-key", "sk_unused", "--api-url", "http://127.0.0.1:9"], {
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => out.push(t),
      isTTY: false,
      env: {},
    });
    return { code, text: out.join("") };
  };

  it("refuses a --forward-timeout or --forward-to it cannot use before creating anything (exit 2, naming the option)", async () => {
    for (const timeout of ["abc", "0", "-1", "301"]) {
      const r = await run$(["--forward-to", "http://localhost:3000/hook", "--forward-timeout", timeout]);
      expect(r.code, timeout).toBe(2);
      expect(r.text).toContain(
        `--forward-timeout takes seconds, more than 0 and at most 300 (got "${timeout}")`,
      );
    }
    for (const target of ["notaurl", "ftp://localhost/hook"]) {
      const r = await run$(["--forward-to", target]);
      expect(r.code, target).toBe(2);
      expect(r.text).toContain(`--forward-to must be an http:// or https:// URL`);
    }
  });

  it("the option parser's own errors read like every other error: `svc: …` (exit 2)", async () => {
    for (const [args, message] of [
      [[], "svc: required option '--forward-to <url>' not specified"],
      [["--forward-to", "http://localhost:3000/hook", "--bogus"], "svc: unknown option '--bogus'"],
    ] as const) {
      const r = await run$([...args]);
      expect(r.code).toBe(2);
      expect(r.text.split("\n")[0]).toBe(message);
      expect(r.text).not.toMatch(/^error:/m);
    }
  });
});
