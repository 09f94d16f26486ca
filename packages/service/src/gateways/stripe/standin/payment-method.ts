/**
 * Card PaymentMethods: built from `payment_method_data[card]` (raw card data, refused for
 * accounts without access as Stripe refuses it) or from Stripe's test ids (`pm_card_visa` …,
 * which Stripe turns into a new `pm_…` each time they are used). The invalid-data checks of
 * docs.stripe.com/testing#invalid-data (Luhn, expiry, CVC) answer 402 `card_error`s.
 */
import type Stripe from "stripe";
import { brandOf, luhnValid, TEST_PAYMENT_METHODS, testCardFor, type TestCard } from "./cards.js";
import { StripeApiError, invalidRequest } from "./errors.js";
import { newId } from "./ids.js";
import { read, type ParamObject } from "./params.js";

/** A PaymentMethod the stand-in made, with the test card that decides its outcomes. */
export interface PaymentMethodRecord {
  paymentMethod: Stripe.PaymentMethod;
  card: TestCard;
}

/** Stripe's wording for accounts without raw card data access, in test mode. */
export const RAW_CARD_DATA_REFUSAL =
  "Sending credit card numbers directly to the Stripe API is generally unsafe. We suggest you use test tokens that map to the test card you are using, see https://stripe.com/docs/testing. To enable raw card data APIs in test mode, see https://support.stripe.com/questions/enabling-access-to-raw-card-data-apis.";

/** Years after this many from now are not a card's expiry. */
const MAX_EXPIRY_YEARS_AHEAD = 50;

function cardError(code: string, message: string, param: string): StripeApiError {
  // Checked before anything is made, so (as for any refused parameter) no idempotent result is saved.
  return new StripeApiError(402, { type: "card_error", code, message, param }, "validation");
}

interface CardInput {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string | undefined;
}

/** The invalid-data answers of docs.stripe.com/testing; `prefix` is the card's parameter path. */
export function checkCardInput(card: CardInput, prefix: string, now = new Date()): void {
  if (!/^\d{12,19}$/.test(card.number) || !luhnValid(card.number))
    throw cardError("incorrect_number", "Your card number is incorrect.", `${prefix}[number]`);
  if (card.expMonth < 1 || card.expMonth > 12)
    throw cardError(
      "invalid_expiry_month",
      "Your card's expiration month is invalid.",
      `${prefix}[exp_month]`,
    );
  const year = now.getUTCFullYear();
  if (card.expYear < year || card.expYear > year + MAX_EXPIRY_YEARS_AHEAD)
    throw cardError("invalid_expiry_year", "Your card's expiration year is invalid.", `${prefix}[exp_year]`);
  if (card.expYear === year && card.expMonth < now.getUTCMonth() + 1)
    throw cardError(
      "invalid_expiry_month",
      "Your card's expiration month is invalid.",
      `${prefix}[exp_month]`,
    );
  const cvcDigits = brandOf(card.number) === "amex" ? 4 : 3;
  if (card.cvc !== undefined && !new RegExp(`^\\d{${cvcDigits}}$`).test(card.cvc))
    throw cardError("invalid_cvc", "Your card's security code is invalid.", `${prefix}[cvc]`);
}

function buildPaymentMethod(
  card: CardInput,
  billing: ParamObject | undefined,
  metadata: Record<string, string>,
  test: TestCard,
): Stripe.PaymentMethod {
  const brand = brandOf(card.number);
  const address = billing ? read.object(billing, "address") : undefined;
  return {
    id: newId("pm"),
    object: "payment_method",
    allow_redisplay: "unspecified",
    billing_details: {
      address: {
        city: (address && read.string(address, "city")) ?? null,
        country: (address && read.string(address, "country")) ?? null,
        line1: (address && read.string(address, "line1")) ?? null,
        line2: (address && read.string(address, "line2")) ?? null,
        postal_code: (address && read.string(address, "postal_code")) ?? null,
        state: (address && read.string(address, "state")) ?? null,
      },
      email: (billing && read.string(billing, "email")) ?? null,
      name: (billing && read.string(billing, "name")) ?? null,
      phone: (billing && read.string(billing, "phone")) ?? null,
      tax_id: null,
    },
    card: {
      brand,
      checks: {
        address_line1_check: null,
        address_postal_code_check: null,
        cvc_check: card.cvc ? "pass" : null,
      },
      country: test.country ?? "US",
      display_brand: brand,
      exp_month: card.expMonth,
      exp_year: card.expYear,
      fingerprint: `fp${card.number.slice(-8)}`,
      funding: test.funding ?? "credit",
      generated_from: null,
      last4: card.number.slice(-4),
      networks: { available: [brand], preferred: null },
      regulated_status: "unregulated",
      three_d_secure_usage: { supported: true },
      wallet: null,
    },
    created: Math.floor(Date.now() / 1000),
    customer: null,
    customer_account: null,
    livemode: false,
    metadata,
    type: "card",
  };
}

/**
 * A PaymentMethod from `payment_method_data` (type card). `rawCardData` is the account's access
 * to raw card numbers; without it Stripe answers 402 with RAW_CARD_DATA_REFUSAL.
 */
export function paymentMethodFromData(
  data: ParamObject,
  rawCardData: boolean,
  prefix = "payment_method_data",
): PaymentMethodRecord {
  const card = read.object(data, "card");
  if (!card)
    throw invalidRequest(`Missing required param: ${prefix}[card].`, {
      code: "parameter_missing",
      param: `${prefix}[card]`,
      phase: "validation",
    });
  if (!rawCardData)
    throw new StripeApiError(
      402,
      { type: "invalid_request_error", message: RAW_CARD_DATA_REFUSAL },
      "validation",
    );
  const input: CardInput = {
    number: (read.string(card, "number") ?? "").replaceAll(" ", ""),
    expMonth: read.integer(card, "exp_month") ?? 0,
    expYear: normaliseYear(read.integer(card, "exp_year") ?? 0),
    cvc: read.string(card, "cvc"),
  };
  checkCardInput(input, `${prefix}[card]`);
  const test = testCardFor(input.number);
  return {
    paymentMethod: buildPaymentMethod(
      input,
      read.object(data, "billing_details"),
      read.metadata(data, "metadata"),
      test,
    ),
    card: test,
  };
}

/** Stripe accepts two-digit years and reads them as this century's. */
function normaliseYear(year: number): number {
  return year < 100 ? 2000 + year : year;
}

/** A fresh PaymentMethod for one of Stripe's test ids, or undefined for any other id. */
export function paymentMethodFromTestId(id: string): PaymentMethodRecord | undefined {
  const number = TEST_PAYMENT_METHODS[id];
  if (!number) return undefined;
  const test = testCardFor(number);
  const nextYear = new Date().getUTCFullYear() + 1;
  return {
    paymentMethod: buildPaymentMethod(
      { number, expMonth: 12, expYear: nextYear, cvc: undefined },
      undefined,
      {},
      test,
    ),
    card: test,
  };
}
