/** One attempt through the worker's low-level undici dispatch, against a raw node:http server. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhookHeaders } from "@svc/webhooks";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attemptDelivery, createDeliveryAgent, RESPONSE_KEEP_BYTES } from "./deliver.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

describe("attemptDelivery", () => {
  let server: http.Server;
  let base: string;
  const agent = createDeliveryAgent({ allowPrivate: true });
  const seen: {
    url: string;
    headers: http.IncomingHttpHeaders;
    rawHeaders: string[];
    body: string;
    remotePort: number | undefined;
    /** The client closed the connection before the answer ended. */
    cut?: boolean;
  }[] = [];
  /** Settles the held answer of /hold. */
  let release: () => void = () => {};
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (body += c));
      req.on("end", () => {
        const entry: (typeof seen)[number] = {
          url: req.url!,
          headers: req.headers,
          rawHeaders: req.rawHeaders,
          body,
          remotePort: req.socket.remotePort,
        };
        seen.push(entry);
        res.on("close", () => (entry.cut = !res.writableFinished));
        const path = req.url!.split("?")[0];
        if (path === "/ok") res.writeHead(200).end("fine");
        else if (path === "/big") {
          // 3 chunks, a multi-byte character at the start, NULs inside the kept part.
          res.writeHead(500, { "content-type": "text/plain" });
          res.write(`é${"\0".repeat(2)}${"a".repeat(1000)}`);
          setTimeout(() => res.end("b".repeat(5000)), 5);
        } else if (path === "/redirect")
          res.writeHead(307, { Location: "https://elsewhere.example/x" }).end();
        else if (path === "/busy") res.writeHead(429, { "Retry-After": "7" }).end();
        else if (path === "/slow") setTimeout(() => res.writeHead(200).end(), 1_000);
        else if (path === "/trickle") {
          // Headers at once, then a byte every 50 ms for as long as the client listens: each gap
          // is far below the timeout, the whole body never ends.
          res.writeHead(200, { "content-type": "text/plain" });
          res.flushHeaders();
          const drip = setInterval(() => res.write("."), 50);
          res.on("close", () => clearInterval(drip));
        } else if (path === "/hold") {
          release = () => res.writeHead(200).end("held");
        } else res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await agent.close();
    await new Promise((resolve) => server.close(resolve));
  });

  const input = (path: string, timeoutMs = 5_000) => ({
    url: `${base}${path}`,
    messageId: "msg_t1",
    eventType: "operation",
    sequence: 7,
    payloadVersion: "2026-11-24",
    headers: { "X-Shop": "north", "Webhook-Id": "spoofed" },
    body: '{"n":1}',
    secrets: [SECRET],
    timeoutMs,
    allowPrivate: true,
  });

  it("POSTs the body to the path and query with verifiable Standard Webhooks headers", async () => {
    const outcome = await attemptDelivery(agent, input("/ok?a=1"));
    expect(outcome).toMatchObject({ ok: true, statusCode: 200, error: null, responseBody: "fine" });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(0);
    const req = seen.at(-1)!;
    expect(req.url).toBe("/ok?a=1");
    expect(req.body).toBe('{"n":1}');
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["webhook-id"]).toBe("msg_t1");
    expect(req.headers["svc-event-type"]).toBe("operation");
    expect(req.headers["svc-sequence"]).toBe("7");
    expect(req.headers["svc-webhook-version"]).toBe("2026-11-24");
    // An endpoint's custom header is sent; it cannot replace one of svc's own.
    expect(req.headers["x-shop"]).toBe("north");
    expect(req.rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === "webhook-id")).toHaveLength(1);
    const verified = await verifyWebhookHeaders(req.body, req.headers as Record<string, string>, SECRET);
    expect(verified.id).toBe("msg_t1");
  });

  it("keeps the first 2 KB of a response read in several chunks, as UTF-8 without NULs", async () => {
    // An agent of its own: the shared one's other idle sockets would take the next attempts.
    const own = createDeliveryAgent({ allowPrivate: true });
    try {
      const outcome = await attemptDelivery(own, input("/big"));
      expect(outcome).toMatchObject({ ok: false, statusCode: 500, error: "HTTP 500" });
      // 2048 bytes: "é" (2 bytes), 2 NULs (dropped), 1000 "a", then 1044 "b".
      expect(outcome.responseBody).toBe(`é${"a".repeat(1000)}${"b".repeat(RESPONSE_KEEP_BYTES - 1004)}`);
      // The socket was read to the end and is kept alive: the next attempts come from its port.
      // undici hands a socket back one event-loop turn after its response (client-h1 waits "a
      // full event loop cycle" before reusing it); an attempt started within that turn opens another.
      const nextTurn = () => new Promise((r) => setImmediate(r));
      await nextTurn();
      expect((await attemptDelivery(own, input("/ok"))).ok).toBe(true);
      await nextTurn();
      expect((await attemptDelivery(own, input("/ok"))).ok).toBe(true);
      const [big, second, third] = seen.slice(-3);
      expect(big!.url).toBe("/big");
      expect(second!.remotePort).toBe(big!.remotePort);
      expect(third!.remotePort).toBe(big!.remotePort);
    } finally {
      await own.close();
    }
  });

  it("does not follow a redirect and names its target; reads Retry-After on 429", async () => {
    const redirect = await attemptDelivery(agent, input("/redirect"));
    expect(redirect).toMatchObject({ ok: false, statusCode: 307, retryAfterSeconds: null });
    expect(redirect.error).toBe(
      "redirect 307 to https://elsewhere.example/x not followed: configure the final URL",
    );
    expect(seen.filter((r) => r.url === "/x")).toHaveLength(0);
    const busy = await attemptDelivery(agent, input("/busy"));
    expect(busy).toMatchObject({ ok: false, statusCode: 429, error: "HTTP 429", retryAfterSeconds: 7 });
  });

  it("times out, refuses a literal private address, and reports a refused connection", async () => {
    const slow = await attemptDelivery(agent, input("/slow", 200));
    expect(slow).toMatchObject({ ok: false, statusCode: null, error: "timed out after 200 ms" });
    const guarded = createDeliveryAgent({ allowPrivate: false });
    const refused = await attemptDelivery(guarded, { ...input("/ok"), allowPrivate: false });
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/127\.0\.0\.1/);
    await guarded.close();
    const closed = await attemptDelivery(agent, { ...input("/ok"), url: "http://127.0.0.1:1/x" });
    expect(closed).toMatchObject({ ok: false, statusCode: null });
    expect(closed.error).toMatch(/ECONNREFUSED/);
  });

  it("the timeout bounds the whole body: a receiver trickling its answer is cut at the deadline", async () => {
    // Bounded: before the fix the attempt never ended (each gap between bytes reset undici's timer).
    const outcome = await Promise.race([
      attemptDelivery(agent, input("/trickle", 300)),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("the attempt was still open after 10 s")), 10_000).unref(),
      ),
    ]);
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: "timed out after 300 ms" });
    const trickled = seen.at(-1)!;
    expect(trickled.url).toBe("/trickle");
    // The connection was closed by the client, mid-answer (waited for, bounded: close is async).
    for (let i = 0; i < 100 && trickled.cut === undefined; i++) await new Promise((r) => setTimeout(r, 20));
    expect(trickled.cut).toBe(true);
  });

  it("the timeout bounds the wait for a socket: an attempt still queued at its deadline is never sent", async () => {
    // One socket: the second attempt waits behind the held first one, past its own deadline.
    const single = new Agent({ connections: 1, keepAliveTimeout: 30_000 });
    try {
      const held = attemptDelivery(single, input("/hold", 10_000));
      for (let i = 0; i < 250 && seen.at(-1)?.url !== "/hold"; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(seen.at(-1)!.url).toBe("/hold");
      const queued = await attemptDelivery(single, input("/ok?queued", 200));
      expect(queued).toMatchObject({ ok: false, statusCode: null, error: "timed out after 200 ms" });
      release();
      expect(await held).toMatchObject({ ok: true, statusCode: 200 });
      // Requests leave in order: once a later one has arrived, the queued one was aborted unsent.
      expect((await attemptDelivery(single, input("/ok?after"))).ok).toBe(true);
      expect(seen.map((r) => r.url)).not.toContain("/ok?queued");
      expect(seen.at(-1)!.url).toBe("/ok?after");
    } finally {
      await single.close();
    }
  });
});
