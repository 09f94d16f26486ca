/** db/json.ts: what a gateway's text becomes before PostgreSQL's jsonb and a webhook signature take it. */
import { canonicalJson } from "@svc/webhooks";
import { describe, expect, it } from "vitest";
import { clipText, jsonParam, storable, storableText } from "./json.js";

describe("storable text and JSON", () => {
  it("a lone surrogate becomes U+FFFD and a NUL goes; a whole pair stays", () => {
    expect(storableText("a\ud83d b\ude00 c\u0000d 😀")).toBe("a\ufffd b\ufffd cd 😀");
    expect(storableText("plain")).toBe("plain");
  });

  it("every string in a value is made storable, keys too; numbers, booleans and null stay", () => {
    const value = { "k\ud83d": ["x\u0000", { n: 1, ok: true, none: null, s: "\ude00" }] };
    expect(storable(value)).toEqual({ "k\ufffd": ["x", { n: 1, ok: true, none: null, s: "\ufffd" }] });
    // The JSON text has no \u escape PostgreSQL's jsonb refuses, and RFC 8785 can sign it.
    const text = jsonParam(value);
    expect(text).not.toMatch(/\\ud[89a-f]|\\u0000/i);
    expect(() => canonicalJson(JSON.parse(text))).not.toThrow();
    expect(() => canonicalJson(value)).toThrow(/lone surrogate/);
  });

  it("cuts by characters, never inside a surrogate pair", () => {
    const name = `a${"😀".repeat(31)}`; // 32 characters, 63 UTF-16 units
    expect(clipText(name, 32)).toBe(name);
    expect(clipText(`${name}😀`, 32)).toBe(name);
    expect(clipText("😀😀😀", 2)).toBe("😀😀");
    expect(storableText(clipText("😀😀😀", 2))).toBe("😀😀");
  });
});
