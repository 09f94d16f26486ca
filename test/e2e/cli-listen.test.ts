/**
 * Issue 14's acceptance, as a developer does it: `svc dev` in its own process, a local receiver
 * built with @svc/webhooks, `svc listen --forward-to` it (its own process, `--json`), and
 * `svc trigger` for every trigger: each event arrives verified, one parent's in order; the
 * receiver down for a while, then back: what it missed arrives by the retry schedule; the
 * delivery log shows the cli endpoint's attempts.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { webhookMiddleware } from "@svc/webhooks/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../packages/cli/src/main.js";
import { TRIGGERS } from "../../packages/cli/src/commands/trigger.js";
import { ROOT, startDev, stop } from "../support/dev-process.js";
import { freePort } from "../support/free-port.js";

interface Received {
  eventType: string;
  sequence: number;
  id: string;
  sessionId: string;
  result?: string;
  source?: string;
}

describe("svc listen + svc trigger against svc dev", () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "svc-listen-"));
  let dev: ChildProcess;
  let listener: ChildProcess;
  const listenLines: Record<string, unknown>[] = [];
  let env: Record<string, string>;
  let creds: { service_url: string; private_key: string };
  let secret: string;
  const received: Received[] = [];
  let receiverPort: number;
  let receiver: http.Server | undefined;

  const startReceiver = () =>
    new Promise<void>((resolve) => {
      receiver = http.createServer(
        webhookMiddleware({
          secrets: secret,
          onEvent: (event, req) => {
            const payload = event.payload as unknown as Record<string, unknown>;
            received.push({
              eventType: String(req.headers["svc-event-type"]),
              sequence: Number(req.headers["svc-sequence"]),
              id: event.id,
              sessionId: String(payload.parent_session_id ?? payload.session_id ?? ""),
              result: typeof payload.result === "string" ? payload.result : undefined,
              source: typeof payload.source === "string" ? payload.source : undefined,
            });
          },
        }),
      );
      receiver.listen(receiverPort, "127.0.0.1", () => resolve());
    });
  const stopReceiver = () =>
    new Promise<void>((resolve) => {
      receiver!.closeAllConnections();
      receiver!.close(() => resolve());
    });

  /** `svc <args>` in this process (the CLI's own code and the real service), its JSON result. */
  async function svc(args: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = "";
    let err = "";
    const code = await run(args, {
      stdout: (t) => (out += t),
      stderr: (t) => (err += t),
      isTTY: false,
      env,
    });
    return { code, out, err };
  }

  beforeAll(async () => {
    env = {
      SVC_PORT: String(await freePort()),
      SVC_GATEWAY_PORT: String(await freePort()),
      SVC_DATA_DIR: dataDir,
    };
    dev = (await startDev(env)).child;
    creds = JSON.parse(readFileSync(path.join(dataDir, "dev-credentials.json"), "utf8"));
    // Retries one second apart, so the receiver's downtime is made up within the test.
    const configured = await fetch(`${creds.service_url}/v1/webhooks/config`, {
      method: "PUT",
      headers: { authorization: `Api-Key ${creds.private_key}`, "content-type": "application/json" },
      body: JSON.stringify({ retry_schedule_seconds: [1, 1, 1, 1, 1, 1, 1, 1], timeout_seconds: 5 }),
    });
    expect(configured.status).toBe(200);

    receiverPort = await freePort();
    listener = spawn(
      process.execPath,
      [
        path.join(ROOT, "node_modules/tsx/dist/cli.mjs"),
        "packages/cli/src/main.ts",
        "listen",
        "--forward-to",
        `http://127.0.0.1:${receiverPort}/webhooks`,
        "--json",
      ],
      { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let buffer = "";
    let errors = "";
    listener.stdout!.on("data", (d: Buffer) => {
      buffer += d.toString();
      let end: number;
      while ((end = buffer.indexOf("\n")) >= 0) {
        listenLines.push(JSON.parse(buffer.slice(0, end)) as Record<string, unknown>);
        buffer = buffer.slice(end + 1);
      }
    });
    listener.stderr!.on("data", (d: Buffer) => (errors += d.toString()));
    const deadline = Date.now() + 30_000;
    while (!listenLines.some((l) => l.type === "ready")) {
      if (Date.now() > deadline || listener.exitCode !== null)
        throw new Error(`svc listen did not start: ${errors}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    secret = String(listenLines.find((l) => l.type === "ready")!.signing_secret);
    expect(secret).toMatch(/^whsec_/);
    await startReceiver();
  }, 120_000);

  afterAll(async () => {
    listener?.kill("SIGTERM");
    if (receiver?.listening) await stopReceiver();
    if (dev) await stop(dev);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const of = (sessionId: string) => received.filter((r) => r.sessionId === sessionId);
  const label = (r: Received) => (r.eventType === "operation" ? `operation (${r.result})` : r.eventType);

  it("lists the triggers", async () => {
    const listed = await svc(["trigger", "--list", "--json"]);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.out) as { name: string }[]).map((t) => t.name)).toEqual(
      TRIGGERS.map((t) => t.name),
    );
  });

  for (const t of TRIGGERS.filter((t) => t.name !== "webhook.test")) {
    it(`svc trigger ${t.name}: ${t.produces.join(", ")} arrive verified, in order`, async () => {
      const done = await svc(["trigger", t.name, "--json"]);
      expect(done.err).toBe("");
      expect(done.code).toBe(0);
      const { session_id } = JSON.parse(done.out) as { session_id: string };
      const expected = t.produces.map((p) => p.replace(", source pg", ""));
      await expect.poll(() => of(session_id).map(label), { timeout: 20_000 }).toEqual(expected);
      // One parent's messages: numbered 1, 2, … in the order they arrived.
      expect(of(session_id).map((r) => r.sequence)).toEqual(expected.map((_, i) => i + 1));
      if (t.name === "operation.gateway_refund") expect(of(session_id).at(-1)!.source).toBe("pg");
    }, 60_000);
  }

  it("svc webhooks test and svc trigger webhook.test reach the receiver", async () => {
    const before = received.filter((r) => r.eventType === "webhook.test").length;
    expect((await svc(["trigger", "webhook.test"])).code).toBe(0);
    await expect
      .poll(() => received.filter((r) => r.eventType === "webhook.test").length, { timeout: 15_000 })
      .toBeGreaterThan(before);
  });

  it("the receiver down for a while, then back: the missed messages arrive by the retry schedule, in order", async () => {
    await stopReceiver();
    const done = await svc(["trigger", "operation.refund", "--json"]);
    expect(done.code).toBe(0);
    const { session_id } = JSON.parse(done.out) as { session_id: string };
    // The CLI forwarded, the local server did not answer, and the service scheduled a retry.
    await expect
      .poll(
        () =>
          listenLines.filter(
            (l) => l.type === "delivery" && l.status_code === null && String(l.result).startsWith("retry at"),
          ).length,
        { timeout: 20_000 },
      )
      .toBeGreaterThanOrEqual(1);
    expect(of(session_id)).toEqual([]);
    await startReceiver();
    await expect
      .poll(() => of(session_id).map(label), { timeout: 30_000 })
      .toEqual(["payment.paid", "operation (success)"]);

    // The delivery log shows the cli endpoint's attempts: the failed forward and the success. The
    // CLI reports each answer back after forwarding it, so the log may lag the receiver a moment.
    type Delivery = {
      endpoint_id: string | null;
      status: string;
      attempts: { status_code: number | null }[];
    };
    const cliEndpoint = String(listenLines.find((l) => l.type === "ready")!.endpoint_id);
    const cliDeliveries = async () => {
      const log = await fetch(`${creds.service_url}/v1/webhooks/messages?session_id=${session_id}`, {
        headers: { authorization: `Api-Key ${creds.private_key}` },
      });
      const { messages } = (await log.json()) as { messages: { deliveries: Delivery[] }[] };
      return messages.flatMap((m) => m.deliveries).filter((d) => d.endpoint_id === cliEndpoint);
    };
    await expect
      .poll(async () => (await cliDeliveries()).map((d) => d.status), { timeout: 10_000 })
      .toEqual(["succeeded", "succeeded"]);
    const first = await cliDeliveries();
    const attempts = first.flatMap((d) => d.attempts.map((a) => a.status_code));
    expect(attempts).toContain(null);
    expect(attempts).toContain(200);
  }, 90_000);
});
