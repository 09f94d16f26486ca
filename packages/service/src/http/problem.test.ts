import { describe, expect, it } from "vitest";
import Fastify from "fastify";
import { ajvToFieldErrors, errorHandler, FieldErrors, validationError } from "./problem.js";

describe("FieldErrors", () => {
  it("treats prototype names as ordinary fields (a random body once sent toString and crashed the handler)", () => {
    const errors = new FieldErrors();
    errors.add("toString", "is not a known field");
    errors.add("__proto__", "is not a known field");
    errors.add("toString", "again");
    expect(errors.errors.toString).toEqual(["is not a known field", "again"]);
    expect(Object.keys(errors.errors)).toEqual(["toString", "__proto__"]);
  });

  it("builds a problem that names the field and says what to do", () => {
    const problem = validationError({ amount: ["must be a decimal string"] }).toProblem();
    expect(problem).toMatchObject({
      status: 422,
      code: "validation_failed",
      detail: 'Fix the field "amount": must be a decimal string.',
    });
  });

  it("maps Ajv issues to field paths", () => {
    const out = ajvToFieldErrors(
      [
        { instancePath: "", keyword: "required", params: { missingProperty: "amount" } },
        { instancePath: "/pg_codes/0", keyword: "maxLength", params: { limit: 64 } },
        { instancePath: "", keyword: "additionalProperties", params: { additionalProperty: "colour" } },
      ],
      "body",
    );
    expect(out).toEqual({
      amount: ["is required"],
      "pg_codes.0": ["must be at most 64 characters"],
      colour: ["is not a known field; remove it or check its spelling"],
    });
  });
});

describe("errorHandler", () => {
  it("answers a transaction undone by a deadlock with 503 database_conflict and Retry-After, never 500", async () => {
    const app = Fastify({ logger: false });
    app.setErrorHandler(errorHandler);
    app.get("/deadlock", async () => {
      throw Object.assign(new Error("deadlock detected"), { code: "40P01" });
    });
    app.get("/other", async () => {
      throw new Error("something else");
    });
    const deadlock = await app.inject({ method: "GET", url: "/deadlock" });
    expect(deadlock.statusCode).toBe(503);
    expect(deadlock.headers["retry-after"]).toBe("1");
    expect(deadlock.json()).toMatchObject({ code: "database_conflict", status: 503 });
    expect(deadlock.json().detail).toContain("Retry in 1 s with the same Idempotency-Key");
    expect(deadlock.body).not.toContain("deadlock detected");
    // Anything unexpected stays a 500 that shows nothing of it.
    const other = await app.inject({ method: "GET", url: "/other" });
    expect([other.statusCode, other.json().code]).toEqual([500, "internal_error"]);
    await app.close();
  });
});
