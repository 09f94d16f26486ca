/**
 * `@svc/webhooks/schema`: the payloads' one description (the field tables the validator checks
 * and the types are inferred from), and what is generated from it: a JSON Schema (OpenAPI 3.1)
 * of each payload and its required and optional keys. The svc service builds its OpenAPI
 * `webhooks` section with {@link payloadJsonSchema}, so the document, the validator and the
 * types cannot describe different payloads. A separate entry: receivers do not load it.
 *
 * @example
 * import { OPERATION_FIELDS, payloadJsonSchema } from "@svc/webhooks/schema";
 * const schema = payloadJsonSchema(OPERATION_FIELDS, { amount: "Operation amount" });
 *
 * @packageDocumentation
 */
import type { TxnState } from "./types.js";
import { OPTIONAL, type Rule, type Table } from "./validate.js";

export {
  CHILD_FIELDS,
  ENDPOINT_DISABLED_FIELDS,
  OPERATION_FIELDS,
  PAYMENT_FIELDS,
  PAYMENT_TRANSACTION_FIELDS,
} from "./payloads.js";
export type { FieldsOf, Rule, Table } from "./validate.js";

/**
 * A JSON Schema object, as OpenAPI 3.1 uses it.
 *
 * @example
 * const schema: JsonSchema = payloadJsonSchema(PAYMENT_FIELDS);
 * console.log(schema.required);
 */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * What to add to one field's schema: its description, or keywords the library does not check
 * (e.g. limits the service keeps), merged over the generated ones.
 *
 * @example
 * const notes: Record<string, SchemaNote> = {
 *   amount: "Operation amount, decimal string in the parent's currency",
 *   metadata: { maxProperties: 50 },
 * };
 */
export type SchemaNote = string | JsonSchema;

/**
 * Every child state in its wire spelling: what the `x` rule accepts once normalised.
 *
 * @example
 * CHILD_STATES.includes(payment.transactions[0].state); // true
 */
export const CHILD_STATES: readonly TxnState[] = [
  "paid",
  "refunded",
  "voided",
  ...["queued", "rejected"].flatMap((result) =>
    ["refund", "capture", "void"].map((operation) => `${operation}_${result}` as TxnState),
  ),
];

// The JSON type of each kind of string rule (see `Rule` in validate.ts); `n` has none.
const TYPES: Record<string, JsonSchema> = {
  s: { type: "string" },
  d: { type: "string" },
  c: { type: "string" },
  t: { type: "string" },
  z: { type: "string" },
  u: { type: "string" },
  x: { type: "string", enum: CHILD_STATES },
  b: { type: "boolean" },
  i: { type: "integer" },
  o: { type: "object" },
  m: { type: "object", additionalProperties: { type: "string" } },
};

const isOptional = (rule: Rule) =>
  typeof rule === "string" ? rule.endsWith("?") : !Array.isArray(rule) && !!(rule as Table)[OPTIONAL];
const isForbidden = (rule: Rule) => typeof rule === "string" && rule[0] === "n";

/**
 * The keys a payload described by `table` always has (`required`) and may have (`optional`),
 * in the table's order; forbidden keys are in neither.
 *
 * @example
 * payloadKeys(OPERATION_FIELDS).optional; // ["initiator", "metadata", "order_no"]
 */
export function payloadKeys(table: Table): { required: string[]; optional: string[] } {
  const keys = Object.keys(table).filter((key) => !isForbidden(table[key]!));
  return {
    required: keys.filter((key) => !isOptional(table[key]!)),
    optional: keys.filter((key) => isOptional(table[key]!)),
  };
}

/**
 * Every field path of `table`: `txn.amount` for a nested table's field, `transactions[].state`
 * for an array's; forbidden keys are left out.
 *
 * @example
 * fieldPaths(OPERATION_FIELDS).includes("txn.state"); // true
 */
export function fieldPaths(table: Table, at = ""): string[] {
  return Object.keys(table).flatMap((key) => {
    const rule = table[key]!;
    const path = at + key;
    if (isForbidden(rule)) return [];
    if (typeof rule === "string" || typeof rule[0] === "string") return [path];
    return Array.isArray(rule)
      ? [path, ...fieldPaths((rule as readonly unknown[])[0] as Table, `${path}[].`)]
      : [path, ...fieldPaths(rule as Table, `${path}.`)];
  });
}

function schemaOf(rule: Rule, notes: Record<string, SchemaNote>, path: string): JsonSchema {
  let schema: JsonSchema;
  if (typeof rule === "string") {
    schema = { ...TYPES[rule[0]!] };
    const max = parseInt(rule.slice(1));
    if (max) schema.maxLength = max;
    if (rule.endsWith("~")) schema.type = [schema.type, "null"];
  } else if (typeof rule[0] === "string") {
    schema = { type: "string", enum: [...(rule as readonly string[])] };
  } else if (Array.isArray(rule)) {
    schema = { type: "array", items: schemaOf((rule as readonly unknown[])[0] as Table, notes, `${path}[]`) };
  } else {
    const table = rule as Table;
    const { required } = payloadKeys(table);
    const properties: Record<string, JsonSchema> = {};
    for (const key of Object.keys(table)) {
      if (!isForbidden(table[key]!))
        properties[key] = schemaOf(table[key]!, notes, path ? `${path}.${key}` : key);
    }
    schema = { type: "object", required, properties };
  }
  const note = notes[path];
  return typeof note === "string" ? { ...schema, description: note } : { ...schema, ...note };
}

/**
 * The JSON Schema (OpenAPI 3.1) of the payload `table` describes: each field's JSON type, its
 * allowed values, `maxLength` where the table limits it, `null` where it allows it, `required`
 * from the table's optional marks. `notes` adds descriptions and unchecked keywords by field
 * path (see {@link fieldPaths}); a note for a path the table does not have throws, so notes
 * cannot outlive the fields they describe.
 *
 * @example
 * const schema = payloadJsonSchema(PAYMENT_FIELDS, { metadata: { maxProperties: 50 } });
 * // { type: "object", required: ["event", "session_id", …], properties: { … } }
 */
export function payloadJsonSchema(table: Table, notes: Record<string, SchemaNote> = {}): JsonSchema {
  const paths = fieldPaths(table);
  const unknown = Object.keys(notes).filter((path) => !paths.includes(path));
  if (unknown.length) throw new Error(`Notes for fields the payload does not have: ${unknown.join(", ")}`);
  return schemaOf(table, notes, "");
}
