// The JSON Schema generated from the payload tables: the fields the validator checks are exactly
// the schema's properties, and a sample payload's keys are exactly the table's keys.
import { describe, expect, it } from "vitest";
import { operationPayload, paymentPayload } from "../test/fixtures.js";
import { normaliseTxnState, parseOperationWebhook, parsePaymentWebhook } from "./index.js";
import {
  CHILD_STATES,
  fieldPaths,
  type JsonSchema,
  OPERATION_FIELDS,
  PAYMENT_FIELDS,
  payloadJsonSchema,
  payloadKeys,
} from "./schema.js";

const sign = <T extends object>(p: T) => ({ ...p, signature: "ab".repeat(32) });

/** Every field path of a JSON Schema, written like fieldPaths writes them. */
function schemaPaths(schema: JsonSchema, at = ""): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties).flatMap(([key, sub]) => {
    const path = at + key;
    if (sub.type === "array") return [path, ...schemaPaths(sub.items as JsonSchema, `${path}[].`)];
    return [path, ...schemaPaths(sub, `${path}.`)];
  });
}

describe("payloadJsonSchema", () => {
  it("has exactly the tables' fields, required where the validator requires them", () => {
    for (const table of [OPERATION_FIELDS, PAYMENT_FIELDS]) {
      const schema = payloadJsonSchema(table);
      expect(schemaPaths(schema)).toEqual(fieldPaths(table));
      expect(schema.required).toEqual(payloadKeys(table).required);
    }
    // A required field removed from a payload is what the validator refuses, one by one.
    for (const key of payloadKeys(OPERATION_FIELDS).required) {
      const { [key]: _gone, ...rest } = sign(operationPayload()) as Record<string, unknown>;
      expect(() => parseOperationWebhook(rest), key).toThrow(`${key}: required`);
    }
    for (const key of payloadKeys(PAYMENT_FIELDS).required) {
      const { [key]: _gone, ...rest } = sign(paymentPayload()) as Record<string, unknown>;
      expect(() => parsePaymentWebhook(rest), key).toThrow(`${key}: required`);
    }
  });

  it("writes each rule as JSON Schema", () => {
    const schema = payloadJsonSchema(PAYMENT_FIELDS) as {
      properties: Record<string, JsonSchema & { items: { properties: Record<string, JsonSchema> } }>;
    };
    const p = schema.properties;
    expect(p.event).toEqual({ type: "string", enum: ["payment"] });
    expect(p.order_no).toEqual({ type: "string", maxLength: 128 });
    expect(p.pg_code).toEqual({ type: ["string", "null"] });
    expect(p.is_sandbox).toEqual({ type: "boolean" });
    expect(p.metadata).toEqual({ type: "object", additionalProperties: { type: "string" } });
    expect(p.transactions!.type).toBe("array");
    expect(p.transactions!.items.properties.state).toEqual({ type: "string", enum: CHILD_STATES });
    const op = payloadJsonSchema(OPERATION_FIELDS) as { properties: Record<string, JsonSchema> };
    expect(op.properties.event).toBeUndefined(); // forbidden, so not a property
    expect(op.properties.initiator).toMatchObject({ required: ["id", "username", "email"] });
    expect((op.properties.initiator!.properties as Record<string, JsonSchema>).id).toEqual({
      type: "integer",
    });
  });

  it("adds notes by path, and refuses a note for a field the payload does not have", () => {
    const schema = payloadJsonSchema(OPERATION_FIELDS, {
      amount: "Operation amount",
      "txn.order_no": "The parent's order_no",
      initiator: { description: "Who", deprecated: false },
    }) as { properties: Record<string, JsonSchema & { properties: Record<string, JsonSchema> }> };
    expect(schema.properties.amount).toEqual({ type: "string", description: "Operation amount" });
    expect(schema.properties.txn!.properties.order_no!.description).toBe("The parent's order_no");
    expect(schema.properties.initiator).toMatchObject({ description: "Who", deprecated: false });
    expect(() => payloadJsonSchema(OPERATION_FIELDS, { amout: "typo", event: "forbidden" })).toThrow(
      "Notes for fields the payload does not have: amout, event",
    );
  });

  it("lists every child state the validator accepts, in the canonical spelling", () => {
    expect(CHILD_STATES).toHaveLength(9);
    for (const state of CHILD_STATES) expect(normaliseTxnState(state)).toBe(state);
  });
});

describe("payloadKeys", () => {
  it("are a sample payload's keys, with and without the optional ones", () => {
    for (const [table, sample] of [
      [OPERATION_FIELDS, sign({ ...operationPayload(), metadata: { a: "b" } })],
      [PAYMENT_FIELDS, sign({ ...paymentPayload(), metadata: { a: "b" } })],
    ] as const) {
      const { required, optional } = payloadKeys(table);
      expect(Object.keys(sample).sort()).toEqual([...required, ...optional].sort());
    }
    expect(payloadKeys(OPERATION_FIELDS).optional).toEqual(["initiator", "metadata", "order_no"]);
    expect(payloadKeys(PAYMENT_FIELDS).optional).toEqual(["order_no", "metadata"]);
  });
});
