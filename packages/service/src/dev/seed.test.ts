/**
 * `svc dev`'s demo merchant and its stand-in settings: seeded again on every start, the settings
 * svc dev made follow the stand-ins (a new port), and a KNET or Stripe setting the developer added
 * with their own keys is never taken over.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../../../../test/support/stack.js";
import { merchantsRepo } from "../merchants/merchants.repo.js";
import { newDemoKnetTerminal, newDemoStripeAccount, seedDemoMerchant } from "./seed.js";

describe("svc dev's demo merchant", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack("pglite");
  });
  afterAll(() => stack?.close());

  it("keeps its stand-in settings pointed at the stand-ins, and leaves the developer's own alone", async () => {
    const { app } = stack.service;
    const { gatewaySettings } = app.services;
    const knet = { url: "http://127.0.0.1:18082", terminal: newDemoKnetTerminal() };
    // A data dir from before the Stripe stand-in: its credentials file has no stripe code.
    const before = await seedDemoMerchant(app, stack.config, undefined, { knet });
    expect(before.pg_codes.stripe).toBeUndefined();
    const merchantId = (await merchantsRepo.findMerchantByDomain(app.services.db, before.merchant_id))!.id;
    const setting = (code: string) => gatewaySettings.get(merchantId, code);

    // There the developer added Stripe with their own test key and Stripe's host, as the docs say.
    await gatewaySettings.create(merchantId, {
      pg_code: "stripe",
      kind: "stripe",
      currencies: ["USD"],
      credentials: {
        secret_key: "sk_test_theirOwnKey0123",
        webhook_secret: "whsec_dGhlaXJPd25TZWNyZXQxMjM0",
      },
    });
    const theirs = await setting("stripe");

    // svc dev now starts a Stripe stand-in: the demo gets a setting of its own beside theirs.
    const stripe = { url: "http://127.0.0.1:18083", account: newDemoStripeAccount() };
    const first = await seedDemoMerchant(app, stack.config, before, { knet, stripe });
    expect(first.pg_codes.stripe).not.toBe("stripe");
    expect(first.stripe_account).toEqual(stripe.account);
    expect(await setting(first.pg_codes.stripe)).toMatchObject({ kind: "stripe", api_base_url: stripe.url });
    expect(await setting("stripe")).toEqual(theirs);

    // The next start: the stand-ins on other ports, the same credentials file. The demo's
    // settings follow them; the developer's stays as it was.
    const again = await seedDemoMerchant(app, stack.config, first, {
      knet: { ...knet, url: "http://127.0.0.1:28082" },
      stripe: { ...stripe, url: "http://127.0.0.1:28083" },
    });
    expect(again.pg_codes).toEqual(first.pg_codes);
    expect(await setting(first.pg_codes.stripe)).toMatchObject({ api_base_url: "http://127.0.0.1:28083" });
    expect(await setting(first.pg_codes.knet)).toMatchObject({ api_base_url: "http://127.0.0.1:28082" });
    expect(await setting("stripe")).toEqual(theirs);
  });
});
