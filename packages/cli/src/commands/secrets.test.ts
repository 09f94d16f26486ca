import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, bearer, createMerchant } from "../../../../test/support/merchant.js";
import { ADMIN_TOKEN, SECRETS_KEY, type Stack, startStack } from "../../../../test/support/stack.js";
import { run } from "../main.js";

function sink(env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  return {
    out,
    sink: { stdout: (t: string) => out.push(t), stderr: (t: string) => out.push(t), isTTY: false, env },
  };
}

describe("svc secrets", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack("pglite");
    const m = await createMerchant(stack);
    const created = await api(stack, "POST", `/v1/admin/merchants/${m.id}/gateways`, {
      auth: bearer,
      body: {
        pg_code: `stripe-${m.id.slice(4, 12)}`,
        kind: "stripe",
        currencies: ["USD"],
        credentials: { secret_key: "sk_test_0123456789abcdefXYZ", webhook_secret: `whsec_${"w".repeat(24)}` },
      },
    });
    expect(created.status).toBe(201);
  });
  afterAll(() => stack?.close());

  it("generate-key prints 32 random bytes in base64, different each time", async () => {
    const a = sink();
    const b = sink();
    expect(await run(["secrets", "generate-key"], a.sink)).toBe(0);
    expect(await run(["secrets", "generate-key"], b.sink)).toBe(0);
    const key = a.out.join("").trim();
    expect(Buffer.from(key, "base64")).toHaveLength(32);
    expect(key).not.toBe(b.out.join("").trim());
  });

  it("rotate re-seals the stored credentials under the service's new key and says the old can go", async () => {
    const newKey = Buffer.alloc(32, 9).toString("base64");
    const rotating = await startStack("pglite", {
      db: stack.db,
      config: { secretsKey: newKey, secretsPreviousKeys: [SECRETS_KEY] },
    });
    try {
      const args = ["secrets", "rotate", "--api-url", rotating.url, "--admin-token", ADMIN_TOKEN];
      const first = sink();
      expect(await run(args, first.sink), first.out.join("")).toBe(0);
      expect(first.out.join("")).toMatch(/1 credential re-sealed, 0 already under it/);
      expect(first.out.join("")).toContain("previous keys can be removed");
      const again = sink();
      expect(await run([...args, "--json"], again.sink)).toBe(0);
      expect(JSON.parse(again.out.join(""))).toMatchObject({
        resealed: 0,
        already_current: 1,
        cannot_open: [],
      });
    } finally {
      await rotating.close();
    }
  });

  it("rotate without a token to use says where to get one", async () => {
    const s = sink({ SVC_DATA_DIR: "/nonexistent-svc-dir" });
    expect(await run(["secrets", "rotate"], s.sink)).toBe(2);
    expect(s.out.join("")).toMatch(/--admin-token/);
  });
});
