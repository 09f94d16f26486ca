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

  it('says bounds, field counts and patterns in words, not Ajv\'s ("must be >= 1", "must match pattern")', () => {
    const out = ajvToFieldErrors(
      [
        { instancePath: "/limit", keyword: "minimum", params: { comparison: ">=", limit: 1 } },
        { instancePath: "/count", keyword: "maximum", params: { comparison: "<=", limit: 100 } },
        { instancePath: "/details", keyword: "maxProperties", params: { limit: 30 } },
        { instancePath: "/otp", keyword: "pattern", params: { pattern: "^[0-9]+$" } },
        { instancePath: "/code", keyword: "pattern", params: { pattern: "^[A-Z]{3}$" } },
      ],
      "body",
    );
    expect(out).toEqual({
      limit: ["must be 1 or more"],
      count: ["must be 100 or less"],
      details: ["must have at most 30 fields"],
      otp: ["must be digits only (0–9)"],
      code: ["has the wrong format (it must match ^[A-Z]{3}$)"],
    });
  });
});

describe("ajvToFieldErrors on alternatives and queries", () => {
  const union = (type: string, at = "/expiry") => ({
    instancePath: at,
    schemaPath: `#/properties${at}/anyOf/${type === "string" ? 0 : 1}/type`,
    keyword: "type",
    params: { type },
  });
  const anyOf = {
    instancePath: "/expiry",
    schemaPath: "#/properties/expiry/anyOf",
    keyword: "anyOf",
    params: {},
  };

  it("one message for a value that has none of the alternatives' types", () => {
    expect(ajvToFieldErrors([union("string"), union("integer"), anyOf], "body")).toEqual({
      expiry: ["must be a string or a whole number"],
    });
  });

  it("what is wrong with the value as the alternative whose type it has", () => {
    const tooLong = {
      instancePath: "/expiry",
      schemaPath: "#/properties/expiry/anyOf/0/maxLength",
      keyword: "maxLength",
      params: { limit: 32 },
    };
    expect(ajvToFieldErrors([tooLong, union("integer"), anyOf], "body")).toEqual({
      expiry: ["must be at most 32 characters"],
    });
  });

  it("a query parameter given twice, an unknown one, and an endpoint with none", () => {
    const twice = { instancePath: "/limit", keyword: "type", params: { type: "integer" } };
    const unknown = {
      instancePath: "",
      keyword: "additionalProperties",
      params: { additionalProperty: "stat" },
    };
    const query = { values: { limit: ["5", "6"], stat: "paid" }, parameters: ["state", "limit"] };
    expect(ajvToFieldErrors([twice, unknown], "querystring", query)).toEqual({
      limit: ["is given more than once; give it once"],
      stat: ["is not a parameter of this endpoint (state, limit); remove it or check its spelling"],
    });
    expect(ajvToFieldErrors([unknown], "querystring", { values: {}, parameters: [] })).toEqual({
      stat: ["is not taken: this endpoint has no query parameters; remove it"],
    });
    // The same type error on a value given once says what type it must be.
    expect(
      ajvToFieldErrors([twice], "querystring", { values: { limit: "x" }, parameters: ["limit"] }),
    ).toEqual({
      limit: ["must be a whole number"],
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
    app.get("/unread", async () => {
      throw Object.assign(new Error("querystring is too long"), { statusCode: 400, code: "FST_ERR_OTHER" });
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
    // A request Fastify could not read keeps its status, and is not called a JSON error.
    const unread = await app.inject({ method: "GET", url: "/unread" });
    expect([unread.statusCode, unread.json().code]).toEqual([400, "invalid_request"]);
    expect(unread.json().detail).toContain("querystring is too long");
    // Anything unexpected stays a 500 that shows nothing of it.
    const other = await app.inject({ method: "GET", url: "/other" });
    expect([other.statusCode, other.json().code]).toEqual([500, "internal_error"]);
    await app.close();
  });
});
