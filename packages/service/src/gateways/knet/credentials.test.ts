/**
 * KNET credentials through the operator API, on both stores: a tranportal id or password that
 * KNET's plain payment request cannot carry ('&', control characters) is refused at save, naming
 * the field and what is allowed, never echoing the value; every other printable character is
 * saved and reaches KNET (the stand-in) intact in a real payment.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  api,
  apiKey,
  bearer,
  createMerchant,
  createTransaction,
  type TestMerchant,
} from "../../../../../test/support/merchant.js";
import { saveKnetSetting } from "../../../../../test/support/knet.js";
import { type Stack, startStack } from "../../../../../test/support/stack.js";
import { STORES } from "../../../../../test/support/stores.js";
import { startKnetStandIn } from "./standin/index.js";
import type { KnetStandIn } from "./standin/types.js";

const KNET = {
  tranportal_id: "tp-id-0054321",
  tranportal_password: "Pw-k9!x2Q",
  resource_key: "K7c9Qw2Lm4Xz8Rt1",
};
/** A password with every kind of punctuation KNET's request can carry (15 characters, KNET's most). */
const PUNCTUATED = { tranportalId: "880477", password: "p=%+ #!/?;:'\"<>", resourceKey: "Qw2Lm4Xz8Rt1K7c9" };

describe.each(STORES)("KNET credentials at save (%s)", (store) => {
  let stack: Stack;
  let m: TestMerchant;
  let knet: KnetStandIn;
  const path = () => `/v1/admin/merchants/${m.id}/gateways`;

  beforeAll(async () => {
    stack = await startStack(store);
    m = await createMerchant(stack);
    knet = await startKnetStandIn({ terminals: [PUNCTUATED] });
  });
  afterAll(async () => {
    await stack?.close();
    await knet?.close();
  });

  it.each([
    ["a tranportal password with '&'", "tranportal_password", "pw&secret9", "'&'"],
    ["a tranportal id with '&'", "tranportal_id", "tp&id-0054321", "'&'"],
    [
      "a tranportal password with a tab",
      "tranportal_password",
      "pw\tsecret9",
      "control characters (found U+0009)",
    ],
    [
      "a tranportal id with a C1 control",
      "tranportal_id",
      "tp-id\u0085054321",
      "control characters (found U+0085)",
    ],
  ])("refuses %s: 422 naming the field and what is allowed, nothing saved", async (_, field, value, what) => {
    const pgCode = `knetamp-${Math.random().toString(36).slice(2, 10)}`;
    const r = await api(stack, "POST", path(), {
      auth: bearer,
      body: {
        pg_code: pgCode,
        kind: "knet",
        currencies: ["KWD"],
        credentials: { ...KNET, [field]: value },
      },
    });
    expect(r.status, r.text).toBe(422);
    expect(r.json.code).toBe("validation_failed");
    expect(Object.keys(r.json.errors)).toEqual([`credentials.${field}`]);
    const [message] = r.json.errors[`credentials.${field}`] as string[];
    expect(message).toContain(`cannot hold ${what}`);
    expect(message).toContain("any other printable character is fine");
    expect(message).toContain(`Copy the ${field.replace("_", " ")} exactly as KNET gave it`);
    expect(r.text).not.toContain(value.slice(0, 6));
    expect(await stack.db.query("select 1 from gateway_settings where pg_code = $1", [pgCode])).toHaveLength(
      0,
    );
  });

  it("refuses one in a partial change too, and keeps the saved credentials", async () => {
    const pgCode = `knetpatch-${m.id.slice(4, 12)}`;
    const created = await api(stack, "POST", path(), {
      auth: bearer,
      body: { pg_code: pgCode, kind: "knet", currencies: ["KWD"], credentials: KNET },
    });
    expect(created.status, created.text).toBe(201);
    const changed = await api(stack, "PATCH", `${path()}/${pgCode}`, {
      auth: bearer,
      body: { credentials: { tranportal_password: "new&pw" } },
    });
    expect(changed.status).toBe(422);
    expect(changed.json.errors["credentials.tranportal_password"][0]).toContain("cannot hold '&'");
    expect(changed.text).not.toContain("new&pw");
  });

  it("saves any other printable character, and KNET's page accepts the payment request it goes into", async () => {
    const pgCode = `knetpunct-${m.id.slice(4, 12)}`;
    const created = await saveKnetSetting(stack, m.id, pgCode, PUNCTUATED, knet.url);
    expect(created.status, created.text).toBe(201);
    const tx = (await createTransaction(stack, m, { pg_codes: [pgCode], amount: "1.500" })).json;
    const started = await api(stack, "POST", `/v1/checkout/${tx.session_id}/payments`, {
      auth: apiKey(m.publicKey),
      body: { form_of_payment: "redirect", pg_code: pgCode },
    });
    expect(started.status, started.text).toBe(200);
    // KNET decrypted the trandata, found the password as saved, and opened its payment page.
    const init = await fetch(started.json.redirect_url as string, { redirect: "manual" });
    expect(init.status).toBe(302);
    expect(init.headers.get("location")).toContain("PaymentID=");
    expect(knet.payments().find((p) => p.udf1 === tx.session_id)).toMatchObject({ result: "PENDING" });
  });
});
