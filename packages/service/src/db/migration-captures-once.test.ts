/**
 * Migration 0021's backfill: payments attempted at a Stripe setting before `captures_once`
 * existed get it from their gateway's kind; payments at other gateways keep `false`.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMerchant, createTransaction, type TestMerchant } from "../../../../test/support/merchant.js";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { STORES } from "../../../../test/support/stores.js";

const MIGRATION = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "migrations",
  "0021_transaction_captures_once.sql",
);

describe.each(STORES)("migration 0021 on %s", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("sets captures_once on payments attempted at a Stripe setting, and on no other", async () => {
    const stripePg = `stripe-backfill-${m.id.slice(4, 10)}`;
    await stack.db.query(
      `insert into gateway_settings (id, merchant_id, pg_code, name, kind, operation, currencies)
       values ($1, $2, $3, 'Stripe', 'stripe', 'authorize', '{USD}')`,
      [`gw_${stripePg}`, m.id, stripePg],
    );
    const atStripe = (await createTransaction(stack, m, { pg_codes: [m.pg.authorize] })).json.session_id;
    const atSandbox = (await createTransaction(stack, m, { pg_codes: [m.pg.authorize] })).json.session_id;
    // As they were before the migration: attempted at their gateway, the column at its default.
    await stack.db.query(
      "update transactions set pg_code = $2, captures_once = false where session_id = $1",
      [atStripe, stripePg],
    );
    await stack.db.query(
      "update transactions set pg_code = $2, captures_once = false where session_id = $1",
      [atSandbox, m.pg.authorize],
    );
    const sql = await readFile(MIGRATION, "utf8");
    const backfill = sql.slice(sql.indexOf("update transactions"));
    await stack.db.exec(backfill);
    const rows = await stack.db.query<{ session_id: string; captures_once: boolean }>(
      "select session_id, captures_once from transactions where session_id = any($1)",
      [[atStripe, atSandbox]],
    );
    expect(Object.fromEntries(rows.map((r) => [r.session_id, r.captures_once]))).toEqual({
      [atStripe]: true,
      [atSandbox]: false,
    });
  });
});
