/** SVC_ROLE: api serves HTTP without a worker; worker delivers and serves only health and metrics. */
import { afterAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../../../test/support/stack.js";
import { loadConfig } from "./config.js";

describe("SVC_ROLE", () => {
  const stacks: Stack[] = [];
  afterAll(async () => {
    for (const s of stacks) await s.close();
  });

  it("defaults to all and rejects unknown roles", () => {
    expect(loadConfig({}).role).toBe("all");
    expect(() => loadConfig({ SVC_ROLE: "both" })).toThrow("SVC_ROLE must be one of api, worker, all");
  });

  it("api: the API without a delivery worker", async () => {
    const stack = await startStack("pglite", { config: { role: "api" } });
    stacks.push(stack);
    expect(stack.service.worker).toBeUndefined();
    const r = await fetch(`${stack.url}/v1/operations`, { method: "POST" });
    expect(r.status).toBe(401);
  });

  it("worker: a delivery worker; HTTP only for health, readiness and metrics", async () => {
    const stack = await startStack("pglite", { config: { role: "worker" } });
    stacks.push(stack);
    expect(stack.service.worker).toBeDefined();
    expect((await fetch(`${stack.url}/v1/operations`, { method: "POST" })).status).toBe(404);
    expect((await fetch(`${stack.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${stack.url}/metrics`)).status).toBe(200);
  });
});
