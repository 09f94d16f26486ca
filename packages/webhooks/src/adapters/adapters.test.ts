import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationPayload, SECRET } from "../../test/fixtures.js";
import { createDeduper } from "../dedupe.js";
import type { WebhookEvent } from "../index.js";
import { generateTestHeaders } from "../signing.js";
import { VERSION_HEADER } from "../versions.js";
import { svcWebhooks } from "./fastify.js";
import { createWebhookHandler } from "./fetch.js";
import { webhookMiddleware } from "./node.js";

const received: WebhookEvent[] = [];
let failNext = false;
const options = {
  secrets: SECRET,
  maxBodyBytes: 64 * 1024,
  dedupe: createDeduper(),
  onEvent: (event: WebhookEvent) => {
    if (failNext) {
      failNext = false;
      throw new Error("database unavailable");
    }
    received.push(event);
  },
};

/** The message a payload of a version newer than this library gets. */
const NEWER =
  "This payload is version 2027-03-01; @svc/webhooks 0.1.0 knows 2026-11-24 — upgrade @svc/webhooks.";

/** The cases every adapter must answer the same way: [name, build request, status, error code]. */
async function cases() {
  const good = await generateTestHeaders(operationPayload(), SECRET);
  const invalid = await generateTestHeaders({ ...operationPayload(), result: "maybe" }, SECRET);
  const named = await generateTestHeaders(operationPayload(), SECRET);
  const newer = await generateTestHeaders(operationPayload(), SECRET);
  // A newer version's payload that this library's field rules would refuse.
  const reshaped = await generateTestHeaders({ ...operationPayload(), amount: 10.5 }, SECRET);
  const version = (headers: object, v: string) => ({ ...headers, [VERSION_HEADER]: v });
  return {
    good,
    named,
    list: [
      ["authentic", good.body, good.headers, 200, undefined],
      ["duplicate", good.body, good.headers, 200, undefined],
      ["tampered", good.body.replace("10.500", "99.500"), good.headers, 401, "signature_mismatch"],
      ["unsigned", good.body, {}, 401, "missing_header"],
      ["invalid payload", invalid.body, invalid.headers, 400, "invalid_payload"],
      ["too large", "x".repeat(70 * 1024), good.headers, 413, "body_too_large"],
      ["first version, named", named.body, version(named.headers, "2026-11-24"), 200, undefined],
      ["newer version", newer.body, version(newer.headers, "2027-03-01"), 400, "unsupported_version"],
      [
        "newer version, fields this library refuses",
        reshaped.body,
        version(reshaped.headers, "2027-03-01"),
        400,
        "unsupported_version",
      ],
      [
        "newer version, not authentic",
        newer.body.replace("10.500", "99.500"),
        version(newer.headers, "2027-03-01"),
        401,
        "signature_mismatch",
      ],
    ] as const,
  };
}

/** The answer's error code matches the case's, and a newer version is named in the message. */
function expectError(answer: { error?: string; message?: string }, name: string, error?: string) {
  expect(answer.error, name).toBe(error);
  if (error === "unsupported_version") expect(answer.message, name).toBe(NEWER);
}

describe("node adapter (real http server)", () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    server = http.createServer(webhookMiddleware(options));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers 200 / 401 / 400 / 413 and runs the handler once", async () => {
    received.length = 0;
    const { list, good, named } = await cases();
    for (const [name, body, headers, status, error] of list) {
      const res = await fetch(url, {
        method: "POST",
        body,
        headers: { ...headers, "content-type": "application/json" },
      });
      expect(res.status, name).toBe(status);
      if (error) expectError(await res.json(), name, error);
    }
    expect(received.map((e) => e.id)).toEqual([good.headers["webhook-id"], named.headers["webhook-id"]]);
    const first = received[0];
    expect(first?.type === "operation" && first.payload.reference_number).toBe("REF-7Q2K9");
  });

  it("answers 500 when the handler throws, and handles the retry", async () => {
    const { body, headers } = await generateTestHeaders(operationPayload(), SECRET);
    failNext = true;
    expect((await fetch(url, { method: "POST", body, headers })).status).toBe(500);
    expect((await fetch(url, { method: "POST", body, headers })).status).toBe(200);
    expect(received.at(-1)?.id).toBe(headers["webhook-id"]);
    expect((await fetch(url)).status).toBe(405);
  });

  it("uses a body that express.raw() already read, and explains a parsed one", async () => {
    const { body, headers } = await generateTestHeaders(operationPayload(), SECRET);
    const middleware = webhookMiddleware({ ...options, dedupe: undefined });
    const answer = (req: object) =>
      new Promise<{ status: number; body: string }>((resolve) => {
        const res = {
          statusCode: 0,
          setHeader() {},
          end(b: string) {
            resolve({ status: this.statusCode, body: b });
          },
        };
        void middleware({ method: "POST", headers, readableEnded: true, ...req } as never, res as never);
      });
    expect((await answer({ body: Buffer.from(body) })).status).toBe(200);
    const parsed = await answer({ body: JSON.parse(body) });
    expect(parsed.status).toBe(500);
    expect(parsed.body).toContain("express.json()");
  });
});

describe("dedupe through the node adapter (real http server, concurrent deliveries)", () => {
  let server: http.Server;
  let url: string;
  /** Each onEvent call waits for the test to settle it. */
  const calls: { id: string; settle: (fail?: Error) => void }[] = [];
  let called: () => void = () => {};
  beforeAll(async () => {
    const middleware = webhookMiddleware({
      secrets: SECRET,
      dedupe: createDeduper(),
      onEvent: (event) =>
        new Promise<void>((resolve, reject) => {
          calls.push({ id: event.id, settle: (fail) => (fail ? reject(fail) : resolve()) });
          called();
        }),
    });
    server = http.createServer(middleware);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const nextCall = () => new Promise<void>((resolve) => (called = resolve));

  it("answers 409 + Retry-After to a retry while the first delivery is handled, so a failure loses nothing", async () => {
    const { body, headers } = await generateTestHeaders(operationPayload(), SECRET);
    const deliver = () => fetch(url, { method: "POST", body, headers });
    // The first delivery's handler is slow: the sender gives up waiting and retries meanwhile.
    let started = nextCall();
    const first = deliver();
    await started;
    const retry = await deliver();
    expect(retry.status).toBe(409);
    expect(retry.headers.get("retry-after")).toBe("60");
    expect(await retry.json()).toMatchObject({ error: "in_progress" });
    expect(calls).toHaveLength(1);
    // The first handler then fails: 500, and the id is forgotten…
    calls[0]!.settle(new Error("database unavailable"));
    expect((await first).status).toBe(500);
    // …so the next retry runs the handler again, and the message is handled.
    started = nextCall();
    const again = deliver();
    await started;
    expect(calls).toHaveLength(2);
    calls[1]!.settle();
    expect((await again).status).toBe(200);
    // Only now is it a duplicate that may be answered 2xx, without running the handler.
    const late = await deliver();
    expect([late.status, await late.json()]).toEqual([200, { received: true, duplicate: true }]);
    expect(calls.map((c) => c.id)).toEqual([headers["webhook-id"], headers["webhook-id"]]);
  });
});

describe("fetch adapter", () => {
  const handler = createWebhookHandler(options);
  const post = (body: BodyInit, headers: HeadersInit) =>
    handler(new Request("https://shop.example/webhooks", { method: "POST", body, headers }));

  it("answers 200 / 401 / 400 / 413 like the node adapter, and runs the handler once", async () => {
    received.length = 0;
    const { list, good, named } = await cases();
    for (const [name, body, headers, status, error] of list) {
      const res = await post(body, headers);
      expect(res.status, name).toBe(status);
      if (name === "duplicate") expect(await res.json()).toEqual({ received: true, duplicate: true });
      if (error) expectError(await res.json(), name, error);
    }
    // "duplicate" repeats "authentic" (same webhook-id): the handler ran for the first only.
    expect(received.map((e) => e.id)).toEqual([good.headers["webhook-id"], named.headers["webhook-id"]]);
  });

  it("answers 500 when the handler throws, handles the retry, and 405 to anything but POST", async () => {
    received.length = 0;
    const { body, headers } = await generateTestHeaders(operationPayload(), SECRET);
    failNext = true;
    expect((await post(body, headers)).status).toBe(500);
    expect((await post(body, headers)).status).toBe(200);
    expect(received.map((e) => e.id)).toEqual([headers["webhook-id"]]);
    const get = await handler(new Request("https://shop.example/webhooks", { headers }));
    expect([get.status, (await get.json()).error]).toEqual([405, "method_not_allowed"]);
  });

  it("stops reading a body without content-length once it passes maxBodyBytes", async () => {
    const { headers } = await generateTestHeaders(operationPayload(), SECRET);
    const chunk = new Uint8Array(16 * 1024).fill(0x20);
    let pulled = 0;
    let cancelled = false;
    // 100 chunks of 16 KiB (1.6 MiB), streamed: the request carries no content-length.
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled++ === 100) controller.close();
        else controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const request = new Request("https://shop.example/webhooks", {
      method: "POST",
      body: stream,
      headers,
      duplex: "half",
    } as RequestInit);
    expect(request.headers.get("content-length")).toBeNull();
    const res = await handler(request);
    expect([res.status, (await res.json()).error]).toEqual([413, "body_too_large"]);
    // The limit is 64 KiB: the fifth chunk passes it, and reading stops there.
    expect(pulled).toBeLessThan(10);
    expect(cancelled).toBe(true);
  });
});

describe("fastify adapter", () => {
  it("registers a raw-body route that answers like the others", async () => {
    // A stand-in for the few Fastify calls the plugin makes (fastify.test.ts runs the real one):
    // it records the parser and route, then drives the route handler like Fastify would.
    let parser:
      ((req: unknown, body: Uint8Array, done: (e: Error | null, b?: unknown) => void) => void) | undefined;
    let route: { path: string; handler: (req: never, reply: never) => Promise<unknown> } | undefined;
    let removed = false;
    let others: { method: string[]; url: string } | undefined;
    const app = {
      removeAllContentTypeParsers: () => {
        removed = true;
      },
      addContentTypeParser: (
        type: string,
        opts: { parseAs: string; bodyLimit?: number },
        fn: typeof parser,
      ) => {
        expect([type, opts.parseAs, opts.bodyLimit]).toEqual(["*", "buffer", 64 * 1024]);
        parser = fn;
      },
      post: (path: string, handler: never) => {
        route = { path, handler };
      },
      route: (r: { method: string[]; url: string }) => {
        others = r;
      },
    };
    await svcWebhooks(app as never, { ...options, dedupe: createDeduper(), path: "/webhooks/svc" });
    expect(removed).toBe(true);
    expect(route?.path).toBe("/webhooks/svc");
    expect(others).toMatchObject({ method: ["GET", "PUT", "PATCH", "DELETE"], url: "/webhooks/svc" });
    const { list } = await cases();
    for (const [name, body, headers, status, error] of list.filter(([n]) => n !== "too large")) {
      const parsedBody = await new Promise((resolve) =>
        parser!({}, Buffer.from(body), (_e, b) => resolve(b)),
      );
      const reply = {
        status: 0,
        sent: "",
        code(s: number) {
          this.status = s;
          return this;
        },
        header() {
          return this;
        },
        send(p: string) {
          this.sent = p;
          return this;
        },
      };
      await route!.handler({ body: parsedBody, headers } as never, reply as never);
      expect(reply.status, name).toBe(status);
      if (error) expectError(JSON.parse(reply.sent), name, error);
    }
  });
});
