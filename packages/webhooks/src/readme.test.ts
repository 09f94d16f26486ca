// The README's payload reference is a reader's summary of the field tables in payloads.ts: it
// must name every field they describe, so a field added to a table cannot go undocumented.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fieldPaths, OPERATION_FIELDS, PAYMENT_FIELDS, type Table } from "./schema.js";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

/** The README's text from the heading starting with `from` to the next heading of its level. */
function section(from: string): string {
  const start = readme.indexOf(`\n### ${from}`);
  expect(start, from).toBeGreaterThan(0);
  const end = readme.indexOf("\n#", start + 1);
  return readme.slice(start, end);
}

/** Field paths of `table` the section does not name in backticks (by path or by last name). */
function unnamed(table: Table, text: string): string[] {
  const named = new Set([...text.matchAll(/`([a-z_.[\]]+)`/g)].map((m) => m[1]!));
  return fieldPaths(table).filter((path) => {
    const last = path.split(/\.|\[\]\./).at(-1)!;
    return !named.has(path) && !named.has(`${path}[]`) && !named.has(last);
  });
}

describe("README payload reference", () => {
  it("names every field of the operation and payment tables", () => {
    expect(unnamed(OPERATION_FIELDS, section("Operation webhook"))).toEqual([]);
    expect(unnamed(PAYMENT_FIELDS, section("Payment webhook"))).toEqual([]);
    // The check can fail: a section without the tables names none of their fields.
    expect(unnamed(PAYMENT_FIELDS, section("Operation webhook"))).toContain("transactions");
  });
});
