// Field checkers that collect every problem instead of stopping at the first, so one error
// message tells the merchant everything that is wrong with a payload.

export type Issues = string[];
type Obj = Record<string, unknown>;

export function isRecord(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function at(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** Length in characters (code points), as the seed's limits count them. */
function charLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

interface StringRule {
  optional?: boolean;
  nullable?: boolean;
  max?: number;
  pattern?: RegExp;
  /** Shown when `pattern` fails, e.g. "a decimal string like 10.50". */
  expected?: string;
}

/** A required (or optional) string member; absent optional members return undefined. */
export function str(
  issues: Issues,
  obj: Obj,
  key: string,
  path: string,
  rule: StringRule = {},
): string | undefined {
  const value = obj[key];
  if (value === undefined) {
    if (!rule.optional) issues.push(`${at(path, key)}: required`);
    return undefined;
  }
  if (value === null && rule.nullable) return undefined;
  if (typeof value !== "string") {
    issues.push(`${at(path, key)}: expected a string, got ${describe(value)}`);
    return undefined;
  }
  if (rule.max !== undefined && charLength(value) > rule.max) {
    issues.push(`${at(path, key)}: at most ${rule.max} characters, got ${charLength(value)}`);
  }
  if (rule.pattern && !rule.pattern.test(value)) {
    issues.push(`${at(path, key)}: expected ${rule.expected ?? rule.pattern}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A string member that must be one of `values`. */
export function oneOf<T extends string>(
  issues: Issues,
  obj: Obj,
  key: string,
  path: string,
  values: readonly T[],
): T | undefined {
  const value = obj[key];
  if (typeof value === "string" && (values as readonly string[]).includes(value)) return value as T;
  issues.push(
    value === undefined
      ? `${at(path, key)}: required`
      : `${at(path, key)}: expected one of ${values.join(", ")}, got ${describe(value)}`,
  );
  return undefined;
}

export function bool(issues: Issues, obj: Obj, key: string, path: string): boolean | undefined {
  const value = obj[key];
  if (typeof value === "boolean") return value;
  issues.push(`${at(path, key)}: expected true or false, got ${describe(value)}`);
  return undefined;
}

export function integer(issues: Issues, obj: Obj, key: string, path: string): number | undefined {
  const value = obj[key];
  if (Number.isSafeInteger(value)) return value as number;
  issues.push(`${at(path, key)}: expected an integer, got ${describe(value)}`);
  return undefined;
}

/** A nested JSON object member. */
export function object(issues: Issues, obj: Obj, key: string, path: string): Obj | undefined {
  const value = obj[key];
  if (isRecord(value)) return value;
  issues.push(`${at(path, key)}: expected an object, got ${describe(value)}`);
  return undefined;
}

/** Non-negative decimal string without sign, exponent or stray zeros: "10.50", "500", "0.000". */
export const DECIMAL = /^(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;
export const CURRENCY = /^[A-Z]{3}$/;

export function decimal(issues: Issues, obj: Obj, key: string, path: string): string | undefined {
  return str(issues, obj, key, path, { pattern: DECIMAL, expected: 'a decimal string like "10.50"' });
}

export function currency(issues: Issues, obj: Obj, key: string, path: string): string | undefined {
  return str(issues, obj, key, path, { pattern: CURRENCY, expected: "an ISO 4217 code like KWD" });
}

const UTC_FORMAT = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** `YYYY-MM-DD HH:MM:SS` that is also a real calendar time (no 2026-02-30 or 24:00:00). */
export function isTimestampUtc(text: string): boolean {
  const m = UTC_FORMAT.exec(text);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return (
    date.getUTCFullYear() === y &&
    date.getUTCMonth() === mo - 1 &&
    date.getUTCDate() === d &&
    date.getUTCHours() === h &&
    date.getUTCMinutes() === mi &&
    date.getUTCSeconds() === s
  );
}

export function timestampUtc(issues: Issues, obj: Obj, key: string, path: string): string | undefined {
  const value = str(issues, obj, key, path);
  if (value !== undefined && !isTimestampUtc(value)) {
    issues.push(`${at(path, key)}: expected UTC "YYYY-MM-DD HH:MM:SS", got ${JSON.stringify(value)}`);
  }
  return value;
}

export function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value === "object" ? "an object" : String(value);
}
