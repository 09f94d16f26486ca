/**
 * Checks a parsed form against what Stripe accepts for an endpoint and answers as Stripe does:
 * an unknown parameter is `parameter_unknown`, a missing one `parameter_missing`, a wrong type
 * `parameter_invalid_integer` / `parameter_invalid_empty` … (docs.stripe.com/error-codes). Each
 * endpoint's field table is typed `Record<keyof Stripe.XParams, Spec>`, so tsc fails when the
 * package's published parameters and the table drift apart. Parameters Stripe accepts that the
 * stand-in does not model are refused with a message that says so, never silently ignored.
 */
import type { FormObject, FormValue } from "./form.js";
import { invalidRequest } from "./errors.js";

export type Spec =
  | { t: "string"; enum?: readonly string[]; max?: number }
  | { t: "integer"; min?: number; max?: number }
  | { t: "boolean" }
  | { t: "array"; of: Spec; max?: number }
  | { t: "object"; fields: Readonly<Record<string, Spec>>; required?: readonly string[] }
  /** Stripe's metadata: up to 50 string keys (40 characters) with string values (500). */
  | { t: "metadata" }
  /** `created=123` or `created[gte]=…` (Stripe's RangeQueryParam). */
  | { t: "range" }
  /** Accepted by Stripe for this endpoint, not modelled by the stand-in: refused with a note. */
  | { t: "unmodelled" };

export type Value = string | number | boolean | Value[] | ParamObject;
export interface ParamObject {
  [key: string]: Value;
}

const METADATA_MAX_KEYS = 50;
const METADATA_KEY_MAX_CHARS = 40;
const METADATA_VALUE_MAX_CHARS = 500;
/** Stripe's default limit for a string parameter. */
const STRING_MAX_CHARS = 5000;

const fail = (message: string, param: string, code?: string) =>
  invalidRequest(message, { param, phase: "validation", ...(code ? { code } : {}) });

function emptyRefusal(name: string) {
  return fail(
    `You passed an empty string for '${name}'. We assume empty values are an attempt to unset a parameter; however '${name}' cannot be unset. You should remove '${name}' from your request or supply a non-empty value.`,
    name,
    "parameter_invalid_empty",
  );
}

function oneOf(values: readonly string[]): string {
  return values.length < 3
    ? values.join(" or ")
    : `${values.slice(0, -1).join(", ")}, or ${values[values.length - 1]}`;
}

function readArrayItems(raw: FormValue, name: string): FormValue[] {
  if (typeof raw === "string" || !Object.keys(raw).every((k) => /^\d+$/.test(k)))
    throw fail(`Invalid array`, name);
  return Object.keys(raw)
    .sort((a, b) => Number(a) - Number(b))
    .map((k) => raw[k] ?? "");
}

function readValue(raw: FormValue, spec: Spec, name: string): Value | undefined {
  switch (spec.t) {
    case "unmodelled":
      throw fail(
        `The Stripe stand-in does not model '${name}', which Stripe accepts on this endpoint; see the stand-in's module comment (gateways/stripe/standin/index.ts) for what it implements.`,
        name,
      );
    case "string": {
      if (typeof raw !== "string") throw fail(`Invalid string: ${JSON.stringify(raw)}`, name);
      if (raw === "") throw emptyRefusal(name);
      if (spec.enum && !spec.enum.includes(raw))
        throw fail(`Invalid ${name}: must be one of ${oneOf(spec.enum)}`, name);
      const max = spec.max ?? STRING_MAX_CHARS;
      if (raw.length > max) throw fail(`Invalid ${name}: must be at most ${max} characters`, name);
      return raw;
    }
    case "integer": {
      if (typeof raw !== "string") throw fail(`Invalid integer: ${JSON.stringify(raw)}`, name);
      if (raw === "") throw emptyRefusal(name);
      if (!/^-?\d+$/.test(raw)) throw fail(`Invalid integer: ${raw}`, name, "parameter_invalid_integer");
      const n = Number(raw);
      if (!Number.isSafeInteger(n)) throw fail(`Invalid integer: ${raw}`, name, "parameter_invalid_integer");
      if (spec.min !== undefined && n < spec.min)
        throw fail(
          `This value must be greater than or equal to ${spec.min}.`,
          name,
          "parameter_invalid_integer",
        );
      if (spec.max !== undefined && n > spec.max)
        throw fail(
          `This value must be less than or equal to ${spec.max}.`,
          name,
          "parameter_invalid_integer",
        );
      return n;
    }
    case "boolean":
      if (raw === "true") return true;
      if (raw === "false") return false;
      if (raw === "") throw emptyRefusal(name);
      throw fail(`Invalid boolean: ${typeof raw === "string" ? raw : JSON.stringify(raw)}`, name);
    case "array": {
      if (raw === "") return undefined; // `expand=` unsets, as Stripe reads empty values
      const items = readArrayItems(raw, name);
      if (spec.max !== undefined && items.length > spec.max)
        throw fail(`Invalid array: ${name} may have at most ${spec.max} items`, name);
      return items.map((item, i) => readValue(item, spec.of, `${name}[${i}]`) ?? "");
    }
    case "object":
      if (raw === "") return undefined;
      if (typeof raw === "string") throw fail(`Invalid object`, name);
      return readObject(raw, spec.fields, spec.required ?? [], name);
    case "metadata":
      return readMetadata(raw, name);
    case "range":
      if (typeof raw === "string") return readValue(raw, { t: "integer" }, name);
      return readObject(raw, RANGE_FIELDS, [], name);
  }
}

const RANGE_FIELDS: Record<"gt" | "gte" | "lt" | "lte", Spec> = {
  gt: { t: "integer" },
  gte: { t: "integer" },
  lt: { t: "integer" },
  lte: { t: "integer" },
};

function readMetadata(raw: FormValue, name: string): ParamObject | undefined {
  if (raw === "") return undefined;
  if (typeof raw === "string") throw fail(`Invalid object`, name);
  const out: ParamObject = {};
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value !== "string")
      throw fail(`Invalid value type: ${JSON.stringify(value)} must be a string`, `${name}[${key}]`);
    if (key.length > METADATA_KEY_MAX_CHARS)
      throw fail(`Metadata keys can have up to ${METADATA_KEY_MAX_CHARS} characters.`, `${name}[${key}]`);
    if (value.length > METADATA_VALUE_MAX_CHARS)
      throw fail(`Metadata values can have up to ${METADATA_VALUE_MAX_CHARS} characters.`, `${name}[${key}]`);
    if (value !== "") out[key] = value; // an empty value unsets the key
  }
  if (Object.keys(out).length > METADATA_MAX_KEYS)
    throw fail(`You can have up to ${METADATA_MAX_KEYS} metadata keys.`, name);
  return out;
}

/**
 * Reads `form` with `fields`; `prefix` names nested parameters as Stripe does (`a[b][c]`).
 *
 * @example
 * readObject(parseForm("amount=500"), { amount: { t: "integer" } }, ["amount"]);
 * // { amount: 500 }
 */
export function readObject(
  form: FormObject,
  fields: Readonly<Record<string, Spec>>,
  required: readonly string[],
  prefix = "",
): ParamObject {
  const name = (key: string) => (prefix ? `${prefix}[${key}]` : key);
  for (const key of Object.keys(form)) {
    if (!Object.hasOwn(fields, key))
      throw fail(`Received unknown parameter: ${name(key)}`, name(key), "parameter_unknown");
  }
  for (const key of required) {
    if (form[key] === undefined)
      throw fail(`Missing required param: ${name(key)}.`, name(key), "parameter_missing");
  }
  const out: ParamObject = {};
  for (const [key, raw] of Object.entries(form)) {
    const spec = fields[key];
    if (!spec) continue;
    const value = readValue(raw, spec, name(key));
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** Typed reads of validated parameters (the schema already guaranteed the types). */
export const read = {
  string: (p: ParamObject, key: string): string | undefined =>
    typeof p[key] === "string" ? p[key] : undefined,
  integer: (p: ParamObject, key: string): number | undefined =>
    typeof p[key] === "number" ? p[key] : undefined,
  boolean: (p: ParamObject, key: string): boolean | undefined =>
    typeof p[key] === "boolean" ? p[key] : undefined,
  object: (p: ParamObject, key: string): ParamObject | undefined => {
    const v = p[key];
    return typeof v === "object" && !Array.isArray(v) ? v : undefined;
  },
  strings: (p: ParamObject, key: string): string[] | undefined => {
    const v = p[key];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined;
  },
  metadata: (p: ParamObject, key: string): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(read.object(p, key) ?? {})) if (typeof v === "string") out[k] = v;
    return out;
  },
};
