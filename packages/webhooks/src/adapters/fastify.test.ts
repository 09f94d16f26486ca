// The Fastify plugin inside a real Fastify 5 app (fastify is a dependency of the service
// workspace, so it resolves from the repo root; it is not a dependency of this package).
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationPayload, SECRET } from "../../test/fixtures.js";
import { createDeduper } from "../dedupe.js";
import type { WebhookEvent } from "../index.js";
import { generateTestHeaders } from "../signing.js";
import { svcWebhooks } from "./fastify.js";

let app: FastifyInstance;
const received: WebhookEvent[] = [];
let failNext = false;

beforeAll(async () => {
  app = Fastify();
  // A sibling route that must keep Fastify's own JSON parsing.
  app.post("/orders", async (request) => ({ parsed: request.body }));
  await app.register(svcWebhooks, {
    path: "/webhooks/svc",
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
  });
  await app.ready();
});

afterAll(() => app.close());

const post = (body: string, headers: Record<string, string>) =>
  app.inject({
    method: "POST",
    url: "/webhooks/svc",
    payload: body,
    headers: { "content-type": "application/json", ...headers },
  });

describe("fastify adapter (real Fastify 5)", () => {
  it("answers 200 / 401 / 400 / 413 and runs the handler once", async () => {
    const good = await generateTestHeaders(operationPayload(), SECRET);
    const invalid = await generateTestHeaders({ ...operationPayload(), result: "maybe" }, SECRET);
    const cases = [
      ["authentic", good.body, good.headers, 200],
      ["duplicate", good.body, good.headers, 200],
      ["tampered", good.body.replace("10.500", "99.500"), good.headers, 401],
      ["unsigned", good.body, {}, 401],
      ["invalid payload", invalid.body, invalid.headers, 400],
      ["too large", "x".repeat(70 * 1024), good.headers, 413],
    ] as const;
    for (const [name, body, headers, status] of cases) {
      const res = await post(body, headers);
      expect(res.statusCode, name).toBe(status);
      if (status === 401) expect(res.json().error).toMatch(/signature_mismatch|missing_header/);
    }
    expect(received.map((e) => e.id)).toEqual([good.headers["webhook-id"]]);
  });

  it("verifies the raw bytes whatever the content type", async () => {
    const { body, headers } = await generateTestHeaders(operationPayload(), SECRET);
    const res = await post(body, { ...headers, "content-type": "text/plain; charset=utf-8" });
    expect(res.statusCode).toBe(200);
  });

  it("answers 500 when the handler throws, and handles the retry", async () => {
    const { body, headers } = await generateTestHeaders(operationPayload(), SECRET);
    failNext = true;
    expect((await post(body, headers)).statusCode).toBe(500);
    expect((await post(body, headers)).statusCode).toBe(200);
    expect(received.at(-1)?.id).toBe(headers["webhook-id"]);
  });

  it("answers 405 to anything but POST, as the other adapters do", async () => {
    const handled = received.length;
    for (const method of ["GET", "PUT", "PATCH", "DELETE"] as const) {
      const res = await app.inject({ method, url: "/webhooks/svc" });
      expect([method, res.statusCode, res.json().error]).toEqual([method, 405, "method_not_allowed"]);
    }
    expect((await app.inject({ method: "HEAD", url: "/webhooks/svc" })).statusCode).toBe(405);
    expect(received).toHaveLength(handled);
  });

  it("keeps JSON parsing for the app's other routes", async () => {
    const res = await app.inject({ method: "POST", url: "/orders", payload: { a: 1 } });
    expect(res.json()).toEqual({ parsed: { a: 1 } });
  });

  it("accepts the versions it knows and refuses a newer one by name, authentic or not first", async () => {
    received.length = 0;
    const named = await generateTestHeaders(operationPayload(), SECRET);
    const res = await post(named.body, { ...named.headers, "svc-webhook-version": "2026-11-24" });
    expect(res.statusCode).toBe(200);
    expect(received.map((e) => e.id)).toEqual([named.headers["webhook-id"]]);
    const newer = await generateTestHeaders({ ...operationPayload(), amount: 10.5 }, SECRET);
    const sent = { ...newer.headers, "svc-webhook-version": "2027-03-01" };
    const refused = await post(newer.body, sent);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({
      error: "unsupported_version",
      message:
        "This payload is version 2027-03-01; @svc/webhooks 0.1.0 knows 2026-11-24 — upgrade @svc/webhooks.",
    });
    expect((await post(newer.body.replace('"amount":10.5', '"amount":11.5'), sent)).json().error).toBe(
      "signature_mismatch",
    );
    expect(received).toHaveLength(1);
  });
});
