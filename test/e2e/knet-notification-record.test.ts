/**
 * KNET's response post when svc cannot record the notification's id after it applied the payment
 * (a database blip between the two): the payment is paid and KNET still gets its REDIRECT= line.
 * Without it KNET reverses a payment svc has just marked paid.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Db, Queryable } from "../../packages/service/src/db/client.js";
import { startKnetStandIn } from "../../packages/service/src/gateways/knet/standin/index.js";
import type { KnetStandIn } from "../../packages/service/src/gateways/knet/standin/types.js";
import { payOnKnet, saveKnetSetting } from "../support/knet.js";
import { api, apiKey, createMerchant, createTransaction, type TestMerchant } from "../support/merchant.js";
import { type Stack, startStack } from "../support/stack.js";
import { STORES, testDb } from "../support/stores.js";

const TERMINAL = { tranportalId: "880777", password: "880777pg", resourceKey: "R3c0rdF41lsKey16" };

/** `db`, whose next `failures.left` inserts of a gateway notification's id fail as a lost connection would. */
function failingNotificationIds(db: Db, failures: { left: number }): Db {
  const guard = (q: Queryable): Queryable => ({
    query: async (sql, params) => {
      if (failures.left > 0 && sql.startsWith("insert into gateway_notifications")) {
        failures.left -= 1;
        throw new Error("Connection terminated unexpectedly");
      }
      return q.query(sql, params);
    },
  });
  return {
    ...db,
    query: (sql, params) => guard(db).query(sql, params),
    tx: (fn) => db.tx((q) => fn(guard(q))),
  };
}

describe.each(STORES)("KNET's response when its id cannot be recorded (%s)", (store) => {
  let stack: Stack;
  let knet: KnetStandIn;
  let m: TestMerchant;
  let pgCode: string;
  const failures = { left: 0 };

  beforeAll(async () => {
    stack = await startStack(store, { db: failingNotificationIds(await testDb(store), failures) });
    knet = await startKnetStandIn({ terminals: [TERMINAL] });
    m = await createMerchant(stack);
    pgCode = `knet-rec-${m.id.slice(4, 12)}`;
    expect((await saveKnetSetting(stack, m.id, pgCode, TERMINAL, knet.url)).status).toBe(201);
  });
  afterAll(async () => {
    await stack?.close();
    await knet?.close();
  });

  it("the payment is paid, KNET gets REDIRECT= (it keeps the money), the customer lands on svc's result page", async () => {
    const tx = (await createTransaction(stack, m, { pg_codes: [pgCode], amount: "4.000" })).json;
    const started = await api(stack, "POST", `/v1/checkout/${tx.session_id}/payments`, {
      auth: apiKey(m.publicKey),
      body: { form_of_payment: "redirect", pg_code: pgCode },
    });
    expect(started.status, started.text).toBe(200);
    failures.left = 1;
    const warn = vi.spyOn(stack.service.app.log, "warn");
    const browser = await payOnKnet(started.json.redirect_url, { expiry: "09/2021" });
    expect(failures.left).toBe(0); // the fault was met
    // The operator is told which payment's notification it was.
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ pg_code: pgCode, err: expect.any(Error) }),
      expect.stringMatching(/^gateway notification applied, but its id not recorded/),
    );
    warn.mockRestore();
    expect(browser.location).toBe(`${stack.url}/pay/${tx.session_id}/return`);
    const entry = knet.payments().find((p) => p.udf1 === tx.session_id)!;
    expect(entry).toMatchObject({ result: "CAPTURED", voided: false });
    const status = await api(stack, "GET", `/v1/payments/${tx.session_id}`, { auth: apiKey(m.privateKey) });
    expect(status.json.state).toBe("paid");
  });
});
