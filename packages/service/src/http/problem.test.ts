import { describe, expect, it } from "vitest";
import { ajvToFieldErrors, FieldErrors, validationError } from "./problem.js";

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
