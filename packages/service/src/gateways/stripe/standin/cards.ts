/**
 * Stripe's published test cards (docs.stripe.com/testing) and what each does: brands that
 * succeed, declines with Stripe's codes and wording, 3-D Secure cards, refund behaviours, and
 * the invalid-data checks (Luhn, expiry, CVC). A number that passes Luhn but is not a test card
 * is answered as Stripe's test mode answers a live card.
 */
export type CardBrand =
  "visa" | "mastercard" | "amex" | "discover" | "diners" | "jcb" | "unionpay" | "unknown";

/** A decline as Stripe reports it: error `code`, `decline_code`, customer-facing message. */
export interface Decline {
  code: string;
  declineCode: string;
  message: string;
  param?: string;
}

export type CardOutcome =
  | { kind: "success" }
  | { kind: "decline"; decline: Decline }
  /** Needs 3-D Secure; after a completed authentication it succeeds or is declined. */
  | {
      kind: "three_d_secure";
      afterAuthentication: { kind: "success" } | { kind: "decline"; decline: Decline };
    };

/** What refunds of a payment made with this card do (docs.stripe.com/testing#refunds). */
export type RefundBehaviour = "succeeded" | "pending_then_succeeded" | "succeeded_then_failed";

export interface TestCard {
  outcome: CardOutcome;
  refunds: RefundBehaviour;
  funding?: "credit" | "debit" | "prepaid";
  country?: string;
}

const declined = (declineCode: string, message = "Your card was declined."): Decline => ({
  code: "card_declined",
  declineCode,
  message,
});

export const DECLINES = {
  generic: declined("generic_decline"),
  insufficientFunds: declined("insufficient_funds", "Your card has insufficient funds."),
  lostCard: declined("lost_card"),
  stolenCard: declined("stolen_card"),
  expiredCard: { code: "expired_card", declineCode: "expired_card", message: "Your card has expired." },
  incorrectCvc: {
    code: "incorrect_cvc",
    declineCode: "incorrect_cvc",
    message: "Your card's security code is incorrect.",
    param: "cvc",
  },
  processingError: {
    code: "processing_error",
    declineCode: "processing_error",
    message: "An error occurred while processing your card. Try again in a little bit.",
  },
  liveCardInTestMode: declined(
    "live_mode_test_card",
    "Your card was declined. Your request was in test mode, but used a non test (live) card. For a list of valid test cards, visit: https://stripe.com/docs/testing.",
  ),
} satisfies Record<string, Decline>;

const ok: TestCard = { outcome: { kind: "success" }, refunds: "succeeded" };
const decline = (d: Decline): TestCard => ({
  outcome: { kind: "decline", decline: d },
  refunds: "succeeded",
});
const threeDs = (after: TestCard["outcome"] & { kind: "success" | "decline" }): TestCard => ({
  outcome: { kind: "three_d_secure", afterAuthentication: after },
  refunds: "succeeded",
});

/** docs.stripe.com/testing: cards by brand, declined payments, 3-D Secure, refunds. */
export const TEST_CARDS: Readonly<Record<string, TestCard>> = {
  "4242424242424242": ok,
  "4000056655665556": { ...ok, funding: "debit" },
  "5555555555554444": ok,
  "2223003122003222": ok,
  "5200828282828210": { ...ok, funding: "debit" },
  "5105105105105100": { ...ok, funding: "prepaid" },
  "378282246310005": ok,
  "371449635398431": ok,
  "6011111111111117": ok,
  "6011000990139424": ok,
  "6011981111111113": { ...ok, funding: "debit" },
  "3056930009020004": ok,
  "36227206271667": ok,
  "3566002020360505": ok,
  "6200000000000005": ok,
  "4000000000000077": ok,
  "4000000000003055": ok, // 3-D Secure supported, not required
  "4000000000000002": decline(DECLINES.generic),
  "4000000000009995": decline(DECLINES.insufficientFunds),
  "4000000000009987": decline(DECLINES.lostCard),
  "4000000000009979": decline(DECLINES.stolenCard),
  "4000000000000069": decline(DECLINES.expiredCard),
  "4000000000000127": decline(DECLINES.incorrectCvc),
  "4000000000000119": decline(DECLINES.processingError),
  "4000002760003184": threeDs({ kind: "success" }),
  "4000002500003155": threeDs({ kind: "success" }),
  "4000000000003220": threeDs({ kind: "success" }),
  "4000008400001629": threeDs({ kind: "decline", decline: DECLINES.generic }),
  "4000000000007726": { ...ok, refunds: "pending_then_succeeded" },
  "4000000000005126": { ...ok, refunds: "succeeded_then_failed" },
};

/** Stripe's test PaymentMethod ids (docs.stripe.com/testing, "PaymentMethods" tab) and their numbers. */
export const TEST_PAYMENT_METHODS: Readonly<Record<string, string>> = {
  pm_card_visa: "4242424242424242",
  pm_card_visa_debit: "4000056655665556",
  pm_card_mastercard: "5555555555554444",
  pm_card_mastercard_debit: "5200828282828210",
  pm_card_mastercard_prepaid: "5105105105105100",
  pm_card_amex: "378282246310005",
  pm_card_discover: "6011111111111117",
  pm_card_diners: "3056930009020004",
  pm_card_jcb: "3566002020360505",
  pm_card_unionpay: "6200000000000005",
  pm_card_chargeDeclined: "4000000000000002",
  pm_card_chargeDeclinedInsufficientFunds: "4000000000009995",
  pm_card_chargeDeclinedLostCard: "4000000000009987",
  pm_card_chargeDeclinedStolenCard: "4000000000009979",
  pm_card_chargeDeclinedExpiredCard: "4000000000000069",
  pm_card_chargeDeclinedIncorrectCvc: "4000000000000127",
  pm_card_chargeDeclinedProcessingError: "4000000000000119",
  pm_card_authenticationRequired: "4000002760003184",
  pm_card_threeDSecure2Required: "4000000000003220",
  pm_card_pendingRefund: "4000000000007726",
  pm_card_refundFail: "4000000000005126",
};

export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return number.length >= 12 && sum % 10 === 0;
}

export function brandOf(number: string): CardBrand {
  if (/^4/.test(number)) return "visa";
  if (/^(5[1-5]|2[2-7])/.test(number)) return "mastercard";
  if (/^3[47]/.test(number)) return "amex";
  if (/^(6011|65|64[4-9])/.test(number)) return "discover";
  if (/^(36|30[0-5]|38|39)/.test(number)) return "diners";
  if (/^35/.test(number)) return "jcb";
  if (/^62/.test(number)) return "unionpay";
  return "unknown";
}

/** The test card for a number; other numbers are live cards, declined in test mode. */
export function testCardFor(number: string): TestCard {
  return TEST_CARDS[number] ?? decline(DECLINES.liveCardInTestMode);
}
