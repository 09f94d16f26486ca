/**
 * One description of each payload: the OpenAPI webhook schemas, @svc/webhooks' field tables (what
 * its validator checks and its types are inferred from) and the payloads the service really
 * builds must agree field for field. The schemas are generated from the tables, so this fails
 * when the service's payload builders drift from them (or the generation breaks).
 */
import { parseOperationWebhook, parsePaymentWebhook } from "@svc/webhooks";
import {
  fieldPaths,
  type JsonSchema,
  OPERATION_FIELDS,
  PAYMENT_FIELDS,
  payloadKeys,
  type Table,
} from "@svc/webhooks/schema";
import { generateSecret, PAYLOAD_VERSIONS, VERSION_HEADER } from "@svc/webhooks/sign";
import { describe, expect, it } from "vitest";
import type { OperationRow } from "../operations/operations.repo.js";
import { operationPayload } from "../operations/operation-webhook.js";
import { paymentPayload } from "../payments/payment-webhook.js";
import type { ChildRow } from "../payments/payments.repo.js";
import type { TransactionRow } from "../payments/transactions.repo.js";
import { OPENAPI_WEBHOOKS } from "./openapi.js";

interface Operation {
  post: {
    parameters: { name: string; required: boolean; schema: JsonSchema }[];
    requestBody: { content: { "application/json": { schema: JsonSchema } } };
  };
}
const webhooks = OPENAPI_WEBHOOKS as unknown as Record<"operation" | "payment", Operation>;
const schemaOf = (name: "operation" | "payment") =>
  webhooks[name].post.requestBody.content["application/json"].schema;

/** Every field path of a JSON Schema, written as fieldPaths writes them (`txn.state`, `transactions[].state`). */
function schemaPaths(schema: JsonSchema, at = ""): string[] {
  return Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).flatMap(([key, sub]) => {
    const path = at + key;
    return sub.type === "array"
      ? [path, ...schemaPaths(sub.items as JsonSchema, `${path}[].`)]
      : [path, ...schemaPaths(sub, `${path}.`)];
  });
}

/**
 * Every field path of a real payload, walked along the schema: nested objects the schema
 * describes field by field (`txn`, `initiator`, each of `transactions`) are entered, free-form
 * ones (`pg_response`, `metadata`) are not.
 */
function payloadPaths(value: Record<string, unknown>, schema: JsonSchema, at = ""): string[] {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(value).flatMap(([key, item]) => {
    const path = at + key;
    const sub = properties[key];
    if (!sub) return [path];
    if (sub.type === "array")
      return [
        path,
        ...(item as Record<string, unknown>[]).flatMap((i) =>
          payloadPaths(i, sub.items as JsonSchema, `${path}[].`),
        ),
      ];
    return sub.properties
      ? [path, ...payloadPaths(item as Record<string, unknown>, sub, `${path}.`)]
      : [path];
  });
}

const unique = (paths: string[]) => [...new Set(paths)];
const sorted = (keys: string[]) => [...keys].sort();
const allKeys = (table: Table) => sorted([...payloadKeys(table).required, ...payloadKeys(table).optional]);

const at = new Date("2026-11-24T10:00:00Z");
const secret = generateSecret();
/** What the payloads take of a Routing: no gateway setting of this merchant moves real money. */
const signing = { secret, live: [] as string[] };

const parent = (order_no: string | null, metadata: Record<string, string>) =>
  ({
    session_id: "sess_parent",
    order_no,
    type: "e_commerce",
    created_via: "api",
    state: "paid",
    amount_minor: 10_500,
    currency_code: "KWD",
    operation: "purchase",
    metadata,
    pg_code: "sandbox_card",
    form_of_payment: "card",
    pg_response: { code: "00" },
    created_at: at,
  }) as unknown as TransactionRow;

const child = (initiator: OperationRow["initiator"]): OperationRow => ({
  session_id: "sess_child",
  parent_session_id: "sess_parent",
  merchant_id: "m_1",
  operation: "refund",
  amount_minor: 2_500,
  currency_code: "KWD",
  state: "refunded",
  reference_number: "REF-1",
  source: "input",
  via: "dashboard",
  initiator,
  pg_code: "sandbox_card",
  pg_response: { code: "00" },
  gateway_operation_id: null,
  operated_at: at,
  created_at: at,
});

const childRow: ChildRow = {
  session_id: "sess_child",
  parent_session_id: "sess_parent",
  operation: "refund",
  amount_minor: 2_500,
  currency_code: "KWD",
  state: "refunded",
  reference_number: "REF-1",
  source: "input",
  created_at: at,
};

describe("the webhook payloads, described once", () => {
  it("OpenAPI schemas have exactly the field tables' fields and required keys", () => {
    for (const [name, table] of [
      ["operation", OPERATION_FIELDS],
      ["payment", PAYMENT_FIELDS],
    ] as const) {
      const schema = schemaOf(name);
      expect(schemaPaths(schema), name).toEqual(fieldPaths(table));
      expect(schema.required, name).toEqual(payloadKeys(table).required);
    }
  });

  it("the operation payload the service builds has the table's keys, and the schema's fields only", async () => {
    const full = await operationPayload(
      parent("ORD-1", {}),
      child({ id: 7, username: "sara", email: "sara@shop.example", first_name: "Sara", phone: "+965" }),
      signing,
    );
    // metadata is added per endpoint (include_metadata) when the publication writes the body.
    expect(sorted([...Object.keys(full), "metadata"])).toEqual(allKeys(OPERATION_FIELDS));
    const bare = await operationPayload(parent(null, {}), child(null), signing);
    expect(sorted(Object.keys(bare))).toEqual(sorted(payloadKeys(OPERATION_FIELDS).required));
    const known = schemaPaths(schemaOf("operation"));
    for (const payload of [full, bare]) {
      const paths = payloadPaths(payload as unknown as Record<string, unknown>, schemaOf("operation"));
      expect(paths.filter((p) => !known.includes(p))).toEqual([]);
      expect(parseOperationWebhook(payload)).toEqual(payload);
    }
    expect(unique(payloadPaths(full as unknown as Record<string, unknown>, schemaOf("operation")))).toEqual(
      expect.arrayContaining(["initiator.first_name", "initiator.phone", "txn.state"]),
    );
  });

  it("the payment payload the service builds has the table's keys, and the schema's fields only", async () => {
    const full = await paymentPayload(parent("ORD-1", { order: "1001" }), [childRow], at, signing);
    expect(sorted(Object.keys(full))).toEqual(allKeys(PAYMENT_FIELDS));
    const bare = await paymentPayload(parent(null, {}), [], at, signing);
    expect(sorted(Object.keys(bare))).toEqual(sorted(payloadKeys(PAYMENT_FIELDS).required));
    const known = schemaPaths(schemaOf("payment"));
    const paths = unique(payloadPaths(full as unknown as Record<string, unknown>, schemaOf("payment")));
    expect(paths.filter((p) => !known.includes(p))).toEqual([]);
    // Every child field the schema lists is in a real child, and no other.
    expect(sorted(paths.filter((p) => p.startsWith("transactions[].")))).toEqual(
      sorted(known.filter((p) => p.startsWith("transactions[]."))),
    );
    for (const payload of [full, bare]) expect(parsePaymentWebhook(payload)).toEqual(payload);
  });

  it("is_sandbox is false only for a payment through (or, before one, offering) a setting that moves real money", async () => {
    const live = { secret, live: ["knet_live"] };
    expect((await operationPayload(parent(null, {}), child(null), signing)).is_sandbox).toBe(true);
    expect(
      (await operationPayload(parent(null, {}), child(null), { secret, live: ["sandbox_card"] })).is_sandbox,
    ).toBe(false);
    expect((await operationPayload(parent(null, {}), child(null), live)).is_sandbox).toBe(true);
    const paid = parent(null, {});
    expect((await paymentPayload(paid, [], at, live)).is_sandbox).toBe(true);
    expect((await paymentPayload({ ...paid, pg_code: "knet_live" }, [], at, live)).is_sandbox).toBe(false);
    // Expired before any gateway: live when a gateway it offered is.
    const unpaid = { ...paid, state: "expired", pg_code: null } as TransactionRow;
    expect(
      (await paymentPayload({ ...unpaid, pg_codes: ["sandbox_card", "knet_live"] }, [], at, live)).is_sandbox,
    ).toBe(false);
    expect((await paymentPayload({ ...unpaid, pg_codes: ["sandbox_card"] }, [], at, live)).is_sandbox).toBe(
      true,
    );
  });

  it("documents the version header with the versions @svc/webhooks knows", () => {
    for (const name of ["operation", "payment"] as const) {
      const header = webhooks[name].post.parameters.find((p) => p.name === VERSION_HEADER);
      expect(header?.schema.enum).toEqual([...PAYLOAD_VERSIONS]);
    }
  });
});
