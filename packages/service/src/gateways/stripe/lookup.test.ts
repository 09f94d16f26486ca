/**
 * The adapter's look-ups of a lost answer (a PaymentIntent by the attempt in its metadata, a
 * refund by its reference) against the stand-in, with the official `stripe` package: page by
 * page, stopping at the object; "not there" only once the list has ended; past the bound,
 * unknown — never "not there", which would settle a paid attempt as never received.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayPaymentRef } from "../adapter.js";
import type { GatewayConnection } from "../connection.js";
import { GatewayError } from "../gateway-error.js";
import { createStripeAdapter, firstListed } from "./adapter.js";
import { ACCOUNT_A, rawCard, RETURN_URL, startFixture, type Fixture } from "./standin/testing.js";

/** More than one page of Stripe's largest (100). */
const PAYMENTS = 150;

let f: Fixture;
/** The PaymentIntents made, oldest first, each with the attempt its metadata names. */
const made: { attemptId: string; id: string }[] = [];
beforeAll(async () => {
  f = await startFixture();
  for (let i = 0; i < PAYMENTS; i++) {
    const attemptId = `att_lookup_${i}`;
    const pi = await f.stripe.paymentIntents.create({
      amount: 100,
      currency: "usd",
      confirm: true,
      payment_method_data: rawCard("4242424242424242"),
      return_url: RETURN_URL,
      metadata: { attempt_id: attemptId },
    });
    made.push({ attemptId, id: pi.id });
  }
});
afterAll(() => f.standIn.close());

const adapter = (lookupMax?: number) =>
  createStripeAdapter(
    { api_base_url: `http://127.0.0.1:${f.standIn.port}` } as GatewayConnection,
    { secret_key: ACCOUNT_A.secretKey, webhook_secret: ACCOUNT_A.webhookSecret },
    { timeoutMs: 5_000, ...(lookupMax === undefined ? {} : { lookupMax }) },
  );

const ref = (attemptId: string): GatewayPaymentRef => ({
  pgCode: "stripe",
  sessionId: "sess_lookup",
  attemptId,
  pgReference: null,
  amount: "1.00",
  amountMinor: 100,
  currency: "USD",
  operation: "purchase",
  startedAt: new Date(),
  redirectUrl: null,
  returnUrl: RETURN_URL,
});

/** The GET requests to `path` the stand-in received while `run` ran. */
async function listRequests<T>(path: string, run: () => Promise<T>): Promise<{ result: T; pages: number }> {
  const from = f.standIn.requests.length;
  const result = await run();
  const pages = f.standIn.requests.slice(from).filter((r) => r.method === "GET" && r.path === path).length;
  return { result, pages };
}

describe("Stripe look-ups of a lost answer", () => {
  it("finds the newest attempt's PaymentIntent on the first page and reads no further", async () => {
    const newest = made.at(-1)!;
    const { result, pages } = await listRequests("/v1/payment_intents", () =>
      adapter().paymentByAttempt(ref(newest.attemptId)),
    );
    expect(result?.pgReference).toBe(newest.id);
    expect(pages).toBe(1);
  });

  it("finds an older one page by page", async () => {
    const oldest = made[0]!;
    const { result, pages } = await listRequests("/v1/payment_intents", () =>
      adapter().paymentByAttempt(ref(oldest.attemptId)),
    );
    expect(result?.pgReference).toBe(oldest.id);
    expect(pages).toBe(2);
  });

  it("says an attempt has none only once the list has ended", async () => {
    const { result, pages } = await listRequests("/v1/payment_intents", () =>
      adapter().paymentByAttempt(ref("att_lookup_never")),
    );
    expect(result).toBeUndefined();
    expect(pages).toBe(2);
  });

  it.each([
    ["answered with a 500", { failNext: 1, status: 500 as const }],
    // Two: the official package sends a request again once, retries off or not, when its
    // connection closes without an answer (RequestSender._shouldRetry, stripe-node #1040).
    ["whose answer is lost twice", { loseAnswers: 2 }],
  ])("a list page %s makes the look-up unknown, not 'none'", async (_what, fault) => {
    f.standIn.faults.push({ ...fault, path: /^\/v1\/payment_intents$/, method: "GET" });
    try {
      await expect(adapter().paymentByAttempt(ref(made[0]!.attemptId))).rejects.toMatchObject({
        code: "gateway_unavailable",
        outcomeUnknown: true,
      });
    } finally {
      f.standIn.faults.length = 0;
    }
  });

  it("past its bound the look-up is unknown, not 'none', and what lies within it is still found", async () => {
    const bounded = adapter(PAYMENTS - 10);
    for (const attemptId of ["att_lookup_never", made[0]!.attemptId]) {
      const error = await bounded.paymentByAttempt(ref(attemptId)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ code: "gateway_unavailable", outcomeUnknown: true });
      expect((error as Error).message).toContain(`more than ${PAYMENTS - 10} objects`);
      expect((error as Error).message).toContain(attemptId);
    }
    expect((await bounded.paymentByAttempt(ref(made[20]!.attemptId)))?.pgReference).toBe(made[20]!.id);
  });

  it("a refund is found by its reference among the payment's refunds, and past the bound is unknown", async () => {
    const pi = made[1]!.id;
    for (const reference of ["ref_lookup_a", "ref_lookup_b", "ref_lookup_c"])
      await f.stripe.refunds.create({
        payment_intent: pi,
        amount: 10,
        metadata: { reference_number: reference },
      });
    const operation = (referenceNumber: string) =>
      ({
        pgCode: "stripe",
        kind: "stripe",
        operation: "refund",
        pgReference: pi,
        referenceNumber,
        amount: "0.10",
        amountMinor: 10,
        currency: "USD",
        notificationUrl: "http://127.0.0.1:9/unused",
      }) as const;
    expect(await adapter().operationStatus(operation("ref_lookup_a"))).toMatchObject({ status: "success" });
    expect(await adapter().operationStatus(operation("ref_lookup_never"))).toBeUndefined();
    // Newest first: with a bound of two, the newest two are read, the oldest is past it.
    expect(await adapter(2).operationStatus(operation("ref_lookup_c"))).toMatchObject({ status: "success" });
    await expect(adapter(2).operationStatus(operation("ref_lookup_a"))).rejects.toMatchObject({
      code: "gateway_unavailable",
      outcomeUnknown: true,
    });
  });
});

describe("firstListed", () => {
  /** A list of `n` numbers that counts how many were read. */
  function counted(n: number) {
    const state = { read: 0 };
    async function* list() {
      for (let i = 0; i < n; i++) {
        state.read += 1;
        yield i;
      }
    }
    return { list: list(), state };
  }
  const what = { what: "the number", max: 5 };

  it("stops at the first match", async () => {
    const { list, state } = counted(100);
    expect(await firstListed(list, (i) => i === 2, what)).toBe(2);
    expect(state.read).toBe(3);
  });

  it("a list of exactly the bound, read to its end without a match, has none", async () => {
    const { list, state } = counted(5);
    expect(await firstListed(list, () => false, what)).toBeUndefined();
    expect(state.read).toBe(5);
  });

  it("one more than the bound is unknown", async () => {
    const { list } = counted(6);
    await expect(firstListed(list, () => false, what)).rejects.toMatchObject({
      code: "gateway_unavailable",
      outcomeUnknown: true,
    });
  });
});
