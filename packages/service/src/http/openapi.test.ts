/**
 * The OpenAPI document is good enough to generate a client from: Redocly's recommended rules
 * pass with nothing reported, every operation has its stable operationId (the names @svc/node's
 * methods take), states its security, and answers its errors as problem+json.
 */
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { OPERATION_IDS } from "./openapi.js";

interface Operation {
  operationId?: string;
  security?: unknown[];
  responses: Record<string, { $ref?: string }>;
}

describe("the OpenAPI document", () => {
  let stack: Stack;
  let text: string;
  let doc: { servers: { url: string }[]; paths: Record<string, Record<string, Operation>> };
  beforeAll(async () => {
    stack = await startStack("pglite");
    text = await (await fetch(`${stack.url}/openapi.json`)).text();
    doc = JSON.parse(text);
  });
  afterAll(() => stack.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
    );

  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: text, absoluteRef: "openapi.json", config });
    expect(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    ).toEqual([]);
  });

  it("names this service in servers", () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: stack.url })]);
  });

  it("gives every operation its stable operationId, each once, and lists no route that is gone", () => {
    const listed = operations();
    expect(listed.filter(({ op }) => !op.operationId).map(({ key }) => key)).toEqual([]);
    expect(Object.fromEntries(listed.map(({ key, op }) => [key, op.operationId]))).toEqual(OPERATION_IDS);
    const ids = listed.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("states security on every operation: only the gateway's signed notifications are open", () => {
    const open = operations().filter(({ op }) => op.security?.length === 0);
    expect(open.map(({ key }) => key)).toEqual(["POST /v1/gateways/{pg_code}/notifications"]);
    expect(operations().every(({ op }) => Array.isArray(op.security))).toBe(true);
  });

  it("answers errors as problem+json: every operation has 4xx responses, each referencing the Problem schema", () => {
    const parsed = JSON.parse(text) as {
      components: { responses: Record<string, { content: Record<string, { schema: { $ref: string } }> }> };
    };
    for (const { key, op } of operations()) {
      const errors = Object.entries(op.responses).filter(([status]) => status.startsWith("4"));
      expect(errors.length, key).toBeGreaterThan(0);
      for (const [status, response] of errors) {
        expect(response.$ref, `${key} ${status}`).toBe(`#/components/responses/Error${status}`);
        const content = parsed.components.responses[`Error${status}`]!.content;
        expect(content["application/problem+json"]!.schema.$ref).toBe("#/components/schemas/Problem");
      }
    }
  });

  it("lists the answers a merchant really gets: a declined refund, an unknown outcome, an expired session", () => {
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path]![method]!.responses);
    expect(statuses("/v1/operations", "post")).toEqual(
      expect.arrayContaining(["402", "404", "409", "413", "415", "422", "502", "504"]),
    );
    expect(statuses("/v1/checkout/{session_id}/payments", "post")).toEqual(
      expect.arrayContaining(["410", "502", "504"]),
    );
    expect(statuses("/v1/gateways/{pg_code}/notifications", "post")).toContain("401");
    // A reused Idempotency-Key is a 422 (idempotency_key_reused), not a 409.
    const responses = (
      JSON.parse(text) as { components: { responses: Record<string, { description: string }> } }
    ).components.responses;
    expect(responses.Error409!.description).not.toContain("another body");
    expect(responses.Error422!.description).toContain("Idempotency-Key");
  });
});
