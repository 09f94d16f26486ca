import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fixture, startFixture } from "./testing.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

const walletB = (mobileNumber: string) =>
  ({ formOfPayment: "wallet_b_pay", instrument: { type: "wallet_b", mobileNumber } }) as const;

describe("sandbox wallets", () => {
  it("wallet A approves any payment_token except the string 'decline'", async () => {
    const adapter = fx.adapter("sandbox");
    const ok = await adapter.pay(
      fx.request("sandbox", {
        formOfPayment: "wallet_a_pay",
        instrument: { type: "wallet_a", paymentToken: "tok" },
      }),
    );
    expect(ok).toMatchObject({ status: "approved", pgResponse: { wallet: "wallet_a", is_sandbox: true } });
    const no = await adapter.pay(
      fx.request("sandbox", {
        formOfPayment: "wallet_a_pay",
        instrument: { type: "wallet_a", paymentToken: "decline" },
      }),
    );
    expect(no.status).toBe("declined");
  });

  it("wallet B asks for a code and approves 123456", async () => {
    const adapter = fx.adapter("sandbox");
    const started = await adapter.pay(fx.request("sandbox", walletB("+96550001234")));
    expect(started.status).toBe("otp_required");
    expect((await adapter.paymentStatus({ pgReference: started.pgReference })).status).toBe("otp_required");
    const done = await adapter.confirmOtp(started.pgReference, "123456");
    expect(done).toMatchObject({ status: "approved", pgReference: started.pgReference });
    // A repeated confirm answers the same (idempotent).
    expect((await adapter.confirmOtp(started.pgReference, "123456")).status).toBe("approved");
  });

  it("wallet B refuses a wrong code, allows a retry, and declines for good after 3 wrong codes", async () => {
    const adapter = fx.adapter("sandbox");
    const retried = await adapter.pay(fx.request("sandbox", walletB("96551112222")));
    const wrong = await adapter.confirmOtp(retried.pgReference, "000000");
    expect(wrong).toMatchObject({
      status: "otp_required",
      pgResponse: { result: "WRONG OTP", attempts_left: 2 },
    });
    expect((await adapter.confirmOtp(retried.pgReference, "123456")).status).toBe("approved");

    const locked = await adapter.pay(fx.request("sandbox", walletB("96551113333")));
    for (const left of [2, 1]) {
      expect((await adapter.confirmOtp(locked.pgReference, "111111")).pgResponse.attempts_left).toBe(left);
    }
    const third = await adapter.confirmOtp(locked.pgReference, "111111");
    expect(third).toMatchObject({
      status: "declined",
      pgResponse: { reason: "too many wrong one-time codes" },
    });
    expect((await adapter.confirmOtp(locked.pgReference, "123456")).status).toBe("declined");
    expect((await adapter.paymentStatus({ pgReference: locked.pgReference })).status).toBe("declined");
  });

  it("wallet B declines a number ending in 0000 after the right code", async () => {
    const adapter = fx.adapter("sandbox");
    const started = await adapter.pay(fx.request("sandbox", walletB("96550000000")));
    expect(started.status).toBe("otp_required");
    expect((await adapter.confirmOtp(started.pgReference, "123456")).status).toBe("declined");
  });
});
