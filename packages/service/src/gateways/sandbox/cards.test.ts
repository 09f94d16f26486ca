import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fixture, startFixture, waitFor } from "./testing.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

const card = (
  number: string,
  extra: Partial<{ expiryMonth: number; expiryYear: number; save: boolean }> = {},
) => ({
  type: "card" as const,
  number,
  expiryMonth: 12,
  expiryYear: 2099,
  cvc: "123",
  save: false,
  ...extra,
});

describe("sandbox cards", () => {
  it("approves 4242… as captured for purchase, with is_sandbox", async () => {
    const result = await fx
      .adapter("sandbox")
      .pay(fx.request("sandbox", { instrument: card("4242 4242 4242 4242") }));
    expect(result.status).toBe("approved");
    expect(result.pgResponse).toMatchObject({ is_sandbox: true, captured: true, authorized: true });
    expect(result.pgReference).toMatch(/^pg_/);
  });

  it("authorizes without capturing when operation is authorize", async () => {
    const result = await fx.adapter("sandbox").pay(fx.request("sandbox", { operation: "authorize" }));
    expect(result).toMatchObject({ status: "approved", pgResponse: { authorized: true, captured: false } });
  });

  it("declines 4000…0002, numbers failing Luhn, and expired cards", async () => {
    const adapter = fx.adapter("sandbox");
    const declined = await adapter.pay(fx.request("sandbox", { instrument: card("4000000000000002") }));
    expect(declined).toMatchObject({
      status: "declined",
      pgResponse: { result: "DECLINED", is_sandbox: true },
    });
    const luhn = await adapter.pay(fx.request("sandbox", { instrument: card("4242424242424241") }));
    expect(luhn.status).toBe("declined");
    expect(String(luhn.pgResponse.reason)).toMatch(/Luhn/);
    const expired = await adapter.pay(
      fx.request("sandbox", { instrument: card("4242424242424242", { expiryMonth: 1, expiryYear: 2020 }) }),
    );
    expect(expired).toMatchObject({ status: "declined", pgResponse: { result: "EXPIRED CARD" } });
  });

  it("saves an approved card when asked, and token_pay accepts only known tokens", async () => {
    const adapter = fx.adapter("sandbox");
    const saved = await adapter.pay(
      fx.request("sandbox", {
        instrument: card("4242424242424242", { save: true, expiryMonth: 3, expiryYear: 2031 }),
      }),
    );
    if (saved.status !== "approved" || !saved.savedCard)
      throw new Error(`expected a saved card, got ${JSON.stringify(saved)}`);
    expect(saved.savedCard).toMatchObject({ brand: "visa", last4: "4242", expiry: "03/31" });
    const token = { formOfPayment: "token_pay" as const };
    const paid = await adapter.pay(
      fx.request("sandbox", {
        ...token,
        instrument: { type: "token", gatewayToken: saved.savedCard.gatewayToken },
      }),
    );
    expect(paid.status).toBe("approved");
    const unknown = await adapter.pay(
      fx.request("sandbox", { ...token, instrument: { type: "token", gatewayToken: "tok_nope" } }),
    );
    expect(unknown).toMatchObject({ status: "declined", pgResponse: { reason: "unknown gateway token" } });
  });

  it("runs the 4000…3220 challenge: page, form submit, 303 back, approved with challengeOccurred", async () => {
    const adapter = fx.adapter("sandbox");
    const first = await adapter.pay(
      fx.request("sandbox", { instrument: card("4000000000003220", { save: true }) }),
    );
    if (first.status !== "action_required") throw new Error(`expected action_required, got ${first.status}`);
    expect(first.redirectUrl.startsWith(`${fx.sandbox.url}/pages/`)).toBe(true);
    expect((await adapter.paymentStatus({ pgReference: first.pgReference })).status).toBe("action_required");

    const page = await request(first.redirectUrl);
    const html = await page.body.text();
    expect(page.statusCode).toBe(200);
    expect(html).toContain('<form method="post"');
    expect(html).toContain('value="approve"');

    const submitted = await request(first.redirectUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "action=approve",
    });
    await submitted.body.dump();
    expect(submitted.statusCode).toBe(303);
    const location = new URL(String(submitted.headers.location));
    expect(location.searchParams.get("pg_reference")).toBe(first.pgReference);
    expect(location.searchParams.get("from")).toBe("test");
    const back = await request(location);
    expect(await back.body.text()).toBe("back at svc");
    expect(fx.receiver.visits).toContain(`${location.pathname}${location.search}`);

    const final = await adapter.paymentStatus({ pgReference: first.pgReference });
    expect(final).toMatchObject({
      status: "approved",
      challengeOccurred: true,
      savedCard: { last4: "3220" },
    });
    const note = await waitFor(() =>
      fx.receiver.received.find((r) => r.json.pg_reference === first.pgReference),
    );
    expect(adapter.parseNotification(note.rawBody)).toMatchObject({
      type: "payment_result",
      result: { status: "approved", challengeOccurred: true },
    });
  });
});
