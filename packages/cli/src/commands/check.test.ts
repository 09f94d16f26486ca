/**
 * `svc webhooks check` against real receivers on loopback: built with @svc/webhooks (the node,
 * fastify and fetch adapters) they pass every check; a naive receiver that parses JSON before
 * verifying, and checks neither the timestamp nor the version, fails exactly those checks, each
 * with the advice that fixes it.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { createHmac } from "node:crypto";
import { createDeduper } from "@svc/webhooks/dedupe";
import { svcWebhooks } from "@svc/webhooks/fastify";
import { createWebhookHandler } from "@svc/webhooks/fetch";
import { webhookMiddleware } from "@svc/webhooks/node";
import { generateSecret } from "@svc/webhooks/sign";
import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../../../../test/support/dev-process.js";
import { freePort } from "../../../../test/support/free-port.js";
import { run } from "../main.js";
import { CHECK_NAMES, checkReceiver } from "./check.js";

const secret = generateSecret();
const servers: { close(): Promise<unknown> }[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  servers.push({ close: () => new Promise((r) => server.close(r)) });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
}

/** The receiver people write first: parse, re-serialise, compare; no timestamp or version check. */
function naiveReceiver(): http.RequestListener {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  return (req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const parsed = JSON.parse(raw) as unknown;
      const signed = `${String(req.headers["webhook-id"])}.${String(req.headers["webhook-timestamp"])}.${JSON.stringify(parsed)}`;
      const expected = createHmac("sha256", key).update(signed).digest("base64");
      const given = String(req.headers["webhook-signature"] ?? "")
        .split(" ")
        .map((s) => s.split(",")[1]);
      res.statusCode = given.includes(expected) ? 200 : 401;
      res.end();
    });
  };
}

describe("svc webhooks check", () => {
  it("a receiver on @svc/webhooks/node with a deduper passes every check", async () => {
    const url = await serve(
      webhookMiddleware({ secrets: secret, dedupe: createDeduper(), onEvent: () => {} }),
    );
    const results = await checkReceiver({ url, secret });
    expect(results.map((r) => r.name)).toEqual(CHECK_NAMES);
    expect(results.filter((r) => !r.passed)).toEqual([]);
  });

  it("a receiver on @svc/webhooks/fastify passes every check", async () => {
    const app = Fastify();
    await app.register(svcWebhooks, { path: "/webhooks", secrets: secret, onEvent: () => {} });
    await app.listen({ port: 0, host: "127.0.0.1" });
    servers.push(app);
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/webhooks`;
    expect((await checkReceiver({ url, secret })).filter((r) => !r.passed)).toEqual([]);
  });

  it("a fetch-style receiver on @svc/webhooks/fetch passes every check", async () => {
    const handle = createWebhookHandler({ secrets: secret, dedupe: createDeduper(), onEvent: () => {} });
    // Node's http in front of a fetch handler, as a Request/Response runtime would call it.
    const url = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", async () => {
        const response = await handle(
          new Request(`http://127.0.0.1${req.url}`, {
            method: req.method,
            headers: req.headers as Record<string, string>,
            body: Buffer.concat(chunks),
          }),
        );
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(await response.text());
      });
    });
    expect((await checkReceiver({ url, secret })).filter((r) => !r.passed)).toEqual([]);
  });

  it("the README's example receiver (examples/webhook-receiver.mjs) passes every check", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [path.join(ROOT, "examples/webhook-receiver.mjs")], {
      cwd: ROOT,
      env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let printed = "";
      child.stdout.on("data", (d: Buffer) => (printed += d.toString()));
      await expect.poll(() => printed, { timeout: 10_000 }).toContain("receiving webhooks on");
      const results = await checkReceiver({ url: `http://127.0.0.1:${port}/webhooks`, secret });
      expect(results.filter((r) => !r.passed)).toEqual([]);
      expect(printed).toMatch(/operation #1 msg_check_\w+ sess_check_\w+ success/);
    } finally {
      child.kill();
    }
  });

  it("a naive receiver fails the raw-body, timestamp and version checks, each with its fix", async () => {
    const url = await serve(naiveReceiver());
    const results = await checkReceiver({ url, secret });
    const failed = Object.fromEntries(results.filter((r) => !r.passed).map((r) => [r.name, r]));
    expect(Object.keys(failed).sort()).toEqual([
      "future-timestamp",
      "newer-version",
      "raw-body",
      "stale-timestamp",
    ]);
    expect(failed["raw-body"]!.fix).toMatch(/exact bytes received, before parsing JSON/);
    expect(failed["raw-body"]!.answers).toEqual(["401"]);
    expect(failed["stale-timestamp"]!.fix).toMatch(/more than 5 minutes/);
    expect(failed["future-timestamp"]!.answers).toEqual(["200"]);
    expect(failed["newer-version"]!.fix).toMatch(/svc-webhook-version/);
    // What it does right is graded right: it refuses a changed body and a wrong secret.
    expect(results.find((r) => r.name === "tampered-body")!.passed).toBe(true);
    expect(results.find((r) => r.name === "wrong-secret")!.passed).toBe(true);
  });

  it("a receiver that answers 410 or 500 is told what that does", async () => {
    const gone = await serve((_req, res) => {
      res.statusCode = 410;
      res.end();
    });
    const results = await checkReceiver({ url: gone, secret });
    // 410 is no refusal either: svc gives the message up for good.
    expect(results.filter((r) => r.passed)).toEqual([]);
    expect(results.find((r) => r.name === "valid")!.fix).toMatch(
      /gives the message up at once, with no retry/,
    );
    const broken = await serve((_req, res) => {
      res.statusCode = 500;
      res.end();
    });
    expect(
      (await checkReceiver({ url: broken, secret })).find((r) => r.name === "wrong-secret")!.fix,
    ).toMatch(/is a 4xx \(401\), not a 5xx/);
  });

  it("the command prints a report card and exits 1 on a failure, 0 when all pass, 2 without a secret", async () => {
    const naive = await serve(naiveReceiver());
    let out = "";
    const sink = {
      stdout: (t: string) => (out += t),
      stderr: (t: string) => (out += t),
      isTTY: false,
      env: {},
    };
    expect(await run(["webhooks", "check", naive, "--secret", secret], sink)).toBe(1);
    expect(out).toContain("FAIL  raw-body");
    expect(out).toContain("PASS  tampered-body");
    expect(out).toContain("7 of 11 checks passed.");
    // The whole report card, word for word (the receiver's port and timings aside).
    await expect(
      out.replaceAll(naive, "http://127.0.0.1:PORT/webhooks").replace(/\b\d+ ms\b/g, "N ms"),
    ).toMatchFileSnapshot("__snapshots__/naive-report-card.txt");
    const good = await serve(webhookMiddleware({ secrets: secret, onEvent: () => {} }));
    out = "";
    expect(await run(["webhooks", "check", good, "--secret", secret, "--json"], sink)).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ url: good, passed: true });
    out = "";
    expect(await run(["webhooks", "check", good], { ...sink, env: { SVC_DATA_DIR: "/nonexistent" } })).toBe(
      2,
    );
    expect(out).toContain("no secret");
  });
});
