import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.js";

describe("canonicalJson (RFC 8785)", () => {
  it("sorts keys by UTF-16 code units, at every depth", () => {
    // RFC 8785 §3.2.3 sorting example: code-unit order, not code-point or locale order.
    const value = {
      "\u20ac": "Euro",
      "\r": "CR",
      "\ufb33": "Hebrew",
      "1": "One",
      "\ud83d\ude00": "Smiley",
      "\u0080": "Ctl",
      "\u00f6": "o",
    };
    // Checked on the text: JSON.parse would move the integer-like key "1" first again.
    const order = ["\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"];
    const expected = `{${order.map((k) => `${JSON.stringify(k)}:${JSON.stringify((value as Record<string, string>)[k])}`).join(",")}}`;
    expect(canonicalJson(value)).toBe(expected);
    expect(canonicalJson({ b: { d: 1, c: [{ z: 1, y: 2 }] }, a: null })).toBe(
      '{"a":null,"b":{"c":[{"y":2,"z":1}],"d":1}}',
    );
  });

  it("prints numbers the ECMAScript way (RFC 8785 appendix B values)", () => {
    const cases: [number, string][] = [
      [0, "0"],
      [-0, "0"],
      [1e21, "1e+21"],
      [1e-7, "1e-7"],
      [0.000001, "0.000001"],
      [4.5, "4.5"],
      [333333333.3333333, "333333333.3333333"],
      [1e23, "1e+23"],
      [9007199254740992, "9007199254740992"],
      [-1.7976931348623157e308, "-1.7976931348623157e+308"],
      [5e-324, "5e-324"],
    ];
    for (const [n, text] of cases) expect(canonicalJson(n)).toBe(text);
  });

  it("escapes strings minimally", () => {
    expect(canonicalJson('\u20ac$\u000f\nA\'B"\\\\"/')).toBe('"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"');
    expect(canonicalJson("\b\t\f\r\u0000\u001f\u007f")).toBe('"\\b\\t\\f\\r\\u0000\\u001f\u007f"');
  });

  it("omits undefined members and honours toJSON like JSON.stringify", () => {
    expect(canonicalJson({ a: undefined, b: new Date(0), c: [undefined] })).toBe(
      '{"b":"1970-01-01T00:00:00.000Z","c":[null]}',
    );
  });

  it("refuses what JSON cannot carry", () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
    expect(() => canonicalJson({ a: Number.POSITIVE_INFINITY })).toThrow(TypeError);
    expect(() => canonicalJson(1n)).toThrow(TypeError);
    expect(() => canonicalJson("\ud800")).toThrow(/lone surrogate/);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });

  it("is a fixed point of parse: canonical(parse(canonical(x))) === canonical(x)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const once = canonicalJson(value);
        expect(canonicalJson(JSON.parse(once))).toBe(once);
        // Same data as JSON.stringify, only the form differs.
        expect(JSON.parse(once)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
