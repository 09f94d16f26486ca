// A small data-driven validator: each payload shape is a table of field rules, checked by one
// recursive function that collects every problem instead of stopping at the first, so one error
// message tells the merchant everything that is wrong with a payload.

import { fail, UPGRADE } from "./errors.js";
import { childState } from "./states.js";
import type { TxnState } from "./types.js";

export type Issues = string[];
type Obj = Record<string, unknown>;

/**
 * A field rule: a string `<kind>[max][?|~]` (`max` characters, `?` optional, `~` nullable), an
 * array of allowed strings, a nested table (an object; optional with `[OPTIONAL]: true`), or
 * `[table]` (an array of objects).
 * Kinds: s non-empty string, d decimal amount, c currency, t `YYYY-MM-DD HH:MM:SS`, z ISO 8601 UTC,
 * u username, x child state, b boolean, i integer, o any object, m an object of strings (typed
 * `Record<string, string>`, checked as an object: the values' check would cost the root entry
 * 27 B of its size budget), n never (a forbidden key).
 *
 * @example
 * const rules: Rule[] = ["s128?", "d", ["paid", "failed"], [{ amount: "d" }]];
 */
export type Rule = string | readonly string[] | readonly [Table] | Table;
/**
 * A payload shape: each key's rule (see {@link Rule}).
 *
 * @example
 * const table: Table = { amount: "d", order_no: "s128?" };
 */
export type Table = { readonly [key: string]: Rule; readonly [OPTIONAL]?: true };

/** What each kind of string rule holds (`n` holds nothing: its key is left out of the type). */
interface KindTypes {
  s: string;
  d: string;
  c: string;
  t: string;
  z: string;
  u: string;
  x: TxnState;
  b: boolean;
  i: number;
  o: Record<string, unknown>;
  m: Record<string, string>;
}

/** The TypeScript type of a value that passes `R`. */
type ValueOf<R> = R extends `${infer K}${string}`
  ? (K extends keyof KindTypes ? KindTypes[K] : never) | (R extends `${string}~` ? null : never)
  : R extends readonly string[]
    ? R[number]
    : R extends readonly [infer T]
      ? FieldsOf<T>[]
      : FieldsOf<R>;

/** The keys of `T` that a payload has (`"s"`) or may have (`"s?"`, an `[OPTIONAL]` table). */
type KeysOf<T, Optional> = {
  [K in keyof T]: K extends string
    ? T[K] extends `n${string}`
      ? never
      : (T[K] extends `${string}?` ? true : T[K] extends { [OPTIONAL]: true } ? true : false) extends Optional
        ? K
        : never
    : never;
}[keyof T];

/**
 * The type of a payload that passes a table: each required rule a property, each optional one
 * an optional property, a forbidden one (`n`) none. The public payload types are this of the
 * tables in payloads.ts, so they cannot differ from what the validator accepts.
 *
 * @example
 * type Child = FieldsOf<typeof CHILD_FIELDS>; // { session_id: string; order_no: string; … }
 */
export type FieldsOf<T> = {
  -readonly [K in keyof T as K extends KeysOf<T, false> ? K : never]: ValueOf<T[K]>;
} & {
  -readonly [K in keyof T as K extends KeysOf<T, true> ? K : never]?: ValueOf<T[K]>;
} extends infer F
  ? { [K in keyof F]: F[K] }
  : never;

/** Marks a nested table as optional; a symbol, so `for…in` over the table never sees it. */
export const OPTIONAL: unique symbol = Symbol();

/** Non-negative decimal string without sign, exponent or stray zeros: "10.50", "500", "0.000". */
export const DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;

export function isRecord(value: unknown): value is Obj {
  return !!value && typeof value === "object" && !Array.isArray(value);
}

/** A string matching `pattern`. */
const matches = (pattern: RegExp) => (value: unknown) => typeof value === "string" && pattern.test(value);

// Each kind's test, and how to say what was expected.
const KINDS: Record<string, [(value: unknown) => unknown, string]> = {
  // Never empty: the service omits an optional field rather than send "".
  s: [(value) => typeof value === "string" && value, "a non-empty string"],
  b: [(value) => value === !!value, "true or false"],
  i: [Number.isSafeInteger, "an integer"],
  o: [isRecord, "an object"],
  m: [isRecord, "an object"], // see `Rule`
  n: [() => 0, "nothing"],
  d: [matches(DECIMAL), 'a decimal string like "10.50"'],
  c: [matches(/^[A-Z]{3}$/), "an ISO 4217 code like KWD"],
  t: [isTime, 'UTC "YYYY-MM-DD HH:MM:SS"'],
  z: [matches(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|\+00:00)$/), "ISO 8601 UTC"],
  // Django's default username rule, which the seed's "letters, digits and @ . + - _" describes.
  u: [matches(/^[\p{L}\p{M}\p{N}@.+\-_]+$/u), "letters, digits, @ . + - _"],
  x: [childState, "a child state like refunded"],
};

/** Each string rule's kind (test, wording) and limit (NaN: none), parsed on first use. */
const LEAVES = new Map<string, [(value: unknown) => unknown, string, number]>();

const TIME = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01]) ([01]\d|2[0-3])(:[0-5]\d){2}$/;

/**
 * A real calendar time: no 24:00:00, no leap second (TIME), no 2026-02-30 (Date makes that
 * invalid or rolls it over into March, so its day of the month differs).
 */
function isTime(value: unknown): boolean {
  return (
    typeof value === "string" &&
    TIME.test(value) &&
    (value.slice(8, 10) < "29" || new Date(value.slice(0, 10)).getUTCDate() === +value.slice(8, 10))
  );
}

/** The path of `key` in `at` for messages: `at.key`, or `at[key]` for an index. */
const join = (at: string, key: string | number) =>
  typeof key === "number" ? `${at}[${key}]` : at ? `${at}.${key}` : key;

/**
 * Checks `value`, at `key` in path `at`, against `rule`, pushing `path: problem` for each broken
 * rule. Paths are only built for a problem or a nested table, never for a valid leaf.
 */
function check(issues: Issues, value: unknown, rule: Rule, at: string, key: string | number): void {
  let expected: string | undefined;
  if (typeof rule === "string") {
    let leaf = LEAVES.get(rule);
    if (!leaf) LEAVES.set(rule, (leaf = [...KINDS[rule[0]!]!, parseInt(rule.slice(1))]));
    const max = leaf[2];
    if (!leaf[0](value)) {
      if (value !== null || !rule.endsWith("~")) expected = leaf[1];
    } else if ((value as string).length > max) {
      // Limits count characters (code points); only a string longer in UTF-16 units can exceed.
      const length = [...(value as string)].length;
      if (length > max) issues.push(`${join(at, key)}: at most ${max} characters, got ${length}`);
    }
  } else if (typeof rule[0] === "string") {
    const allowed = rule as readonly string[];
    if (!allowed.includes(value as string)) expected = `one of ${allowed.join(", ")}`;
  } else if (Array.isArray(rule)) {
    if (!Array.isArray(value)) expected = "an array";
    else for (let i = 0; i < value.length; i++) check(issues, value[i], rule[0], join(at, key), i);
  } else if (!isRecord(value)) expected = "an object";
  else {
    const here = join(at, key);
    for (const name in rule) {
      const field = (rule as Table)[name]!;
      const item = value[name];
      if (item !== undefined) check(issues, item, field, here, name);
      else if (typeof field === "string" ? !field.endsWith("?") : !(field as Table)[OPTIONAL]) {
        issues.push(`${join(here, name)}: required`);
      }
    }
  }
  // The value as JSON, cut at 40 characters.
  if (expected)
    issues.push(`${join(at, key)}: expected ${expected}, got ${JSON.stringify(value)?.slice(0, 40)}`);
}

/** Validates `value` against `table` and throws `invalid_payload` listing every broken rule. */
export function validate(value: unknown, table: Table, extra?: (payload: Obj, issues: Issues) => void): Obj {
  const issues: Issues = [];
  if (isRecord(value)) {
    check(issues, value, table, "", "");
    extra?.(value, issues);
  } else issues.push("payload: expected a JSON object");
  return issues.length
    ? fail("invalid_payload", `Invalid payload (${issues.join("; ")}): answer 400; ${UPGRADE}`, issues)
    : (value as Obj);
}
