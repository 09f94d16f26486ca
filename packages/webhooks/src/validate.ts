// A small data-driven validator: each payload shape is a table of field rules, checked by one
// loop that collects every problem instead of stopping at the first, so one error message tells
// the merchant everything that is wrong with a payload.

import { fail, UPGRADE } from "./errors.js";
import { normaliseTxnState } from "./states.js";

export type Issues = string[];
type Obj = Record<string, unknown>;

/**
 * A field rule: a string `<kind>[?|~][max]` (`?` optional, `~` nullable, `max` characters), an
 * array of allowed strings, a nested table (an object; optional with `[OPTIONAL]: true`), or
 * `[table]` (an array of objects).
 * Kinds: s string, d decimal amount, c currency, t `YYYY-MM-DD HH:MM:SS`, z ISO 8601 UTC,
 * u username, x child state, b boolean, i integer, o any object.
 */
export type Rule = string | readonly string[] | readonly [Table] | Table;
export type Table = { readonly [key: string]: Rule; readonly [OPTIONAL]?: true };

/** Marks a nested table as optional; a symbol, so `for…in` over the table never sees it. */
export const OPTIONAL: unique symbol = Symbol("optional");

/** Non-negative decimal string without sign, exponent or stray zeros: "10.50", "500", "0.000". */
export const DECIMAL = /^(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

/**
 * `YYYY-MM-DD HH:MM:SS` that is also a real calendar time (no 2026-02-30 or 24:00:00): the
 * ISO form must survive a round trip through Date unchanged.
 */
function isTimestampUtc(text: string): boolean {
  const iso = `${text.replace(" ", "T")}.000Z`;
  const time = Date.parse(iso);
  return text[10] === " " && !Number.isNaN(time) && new Date(time).toISOString() === iso;
}

// The kinds that are not strings: their test, and how to say what was expected.
const TYPES: Record<string, [(value: unknown) => boolean, string]> = {
  b: [(value) => typeof value === "boolean", "true or false"],
  i: [Number.isSafeInteger, "an integer"],
  o: [isRecord, "an object"],
};

// What each string kind must look like, and how to say it.
const FORMATS: Record<string, [{ test(text: string): boolean }, string]> = {
  d: [DECIMAL, 'a decimal string like "10.50"'],
  c: [/^[A-Z]{3}$/, "an ISO 4217 code like KWD"],
  t: [{ test: isTimestampUtc }, 'UTC "YYYY-MM-DD HH:MM:SS"'],
  z: [
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|\+00:00)$/,
    "ISO 8601 UTC like 2026-11-21T10:00:00Z",
  ],
  // Django's default username rule, which the seed's "letters, digits and @ . + - _" describes.
  u: [/^[\p{L}\p{M}\p{N}@.+\-_]+$/u, "only letters, digits and @ . + - _"],
};

export function isRecord(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value as an issue shows it: strings quoted (cut at 40 characters), containers by kind. */
function describe(value: unknown): string {
  return typeof value === "string"
    ? JSON.stringify(value.slice(0, 40))
    : Array.isArray(value)
      ? "an array"
      : value && typeof value === "object"
        ? "an object"
        : String(value);
}

/** Checks `obj` against `table`, pushing `path key: problem` for each broken rule. */
export function check(issues: Issues, obj: Obj, table: Table, path = ""): void {
  for (const key in table) {
    const rule = table[key]!;
    const value = obj[key];
    const at = path + key;
    const flags = typeof rule === "string" ? rule : "";
    if (value === undefined) {
      if (flags ? flags[1] !== "?" : !(rule as Table)[OPTIONAL]) issues.push(`${at}: required`);
      continue;
    }
    if (value === null && flags[1] === "~") continue;
    let expected: string | undefined;
    const type = TYPES[flags[0]!];
    if (typeof rule !== "string") {
      if (Array.isArray(rule)) {
        if (typeof rule[0] === "string") {
          if (!rule.includes(value)) expected = `one of ${rule.join(", ")}`;
        } else if (!Array.isArray(value)) expected = "an array";
        else {
          for (let i = 0; i < value.length; i++) {
            if (isRecord(value[i])) check(issues, value[i], rule[0], `${at}[${i}].`);
            else issues.push(`${at}[${i}]: expected an object, got ${describe(value[i])}`);
          }
        }
      } else if (!isRecord(value)) expected = "an object";
      else check(issues, value, rule as Table, `${at}.`);
    } else if (type) {
      if (!type[0](value)) expected = type[1];
    } else if (typeof value !== "string") expected = "a string";
    else {
      const max = +flags.slice(flags[1] === "?" || flags[1] === "~" ? 2 : 1);
      // Limits count characters (code points); only a string longer in UTF-16 units can exceed.
      const length = max && value.length > max ? [...value].length : 0;
      if (length > max) issues.push(`${at}: at most ${max} characters, got ${length}`);
      const format = FORMATS[flags[0]!];
      if (format && !format[0].test(value)) {
        issues.push(`${at}: expected ${format[1]}, got ${JSON.stringify(value)}`);
      }
      if (flags[0] === "x" && !normaliseTxnState(value)) {
        issues.push(`${at}: unknown state ${JSON.stringify(value)}`);
      }
    }
    if (expected) issues.push(`${at}: expected ${expected}, got ${describe(value)}`);
  }
}

/** Validates `value` against `table` and throws `invalid_payload` listing every broken rule. */
export function validate(value: unknown, table: Table, extra?: (payload: Obj, issues: Issues) => void): Obj {
  if (!isRecord(value)) return invalid(["payload: expected a JSON object"]);
  const issues: Issues = [];
  check(issues, value, table);
  extra?.(value, issues);
  return issues.length ? invalid(issues) : value;
}

function invalid(issues: Issues): never {
  return fail(
    "invalid_payload",
    `Authentic payload breaks the contract (${issues.join("; ")}): answer 400, and ${UPGRADE}`,
    issues,
  );
}
